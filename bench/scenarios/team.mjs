// A team conversation (AgentTeam) on the STUB ACP agent
// (bench/stub-acp-agent.cjs, which answers every prompt "ok" at once): 5
// members on three layouts, 200 turns; before each turn a person writes to
// one member or to everyone, then the next member (in turn) is asked.
// - bytes sent: what the members' sessions were sent (full prompt on a
//   member's first turn, then deltas), against the full prompt for that
//   member every turn (what a stateless run would send; planned by the same
//   core on the same transcript): bar ≥ 10× fewer;
// - time per turn: team.ask's median and p99 (planning, the session's
//   turn and the stub's answer).
// Prints one row per measure, each with the target bench/run.mjs shows.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { report, smoke } from '../measure.mjs';

const pkg = createRequire(import.meta.url)('agent-context');
const STUB = fileURLToPath(new URL('../stub-acp-agent.cjs', import.meta.url));
const TURNS = smoke ? 20 : 200;
const MEMBERS = ['claude-code', 'openai-codex', 'google-gemini', 'google-gemini', 'openai-codex'].map((agentType, i) => ({
  id: `member${i}`,
  agentType,
  systemInstruction: `You are member ${i} of the team. Keep answers short and name the files you touch.`,
}));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-bench-team-'));
const cwd = path.join(dir, 'work');
fs.mkdirSync(cwd);

const team = new pkg.AgentTeam({
  teamTask: 'Build the release: parser, tests, docs and packaging, reviewed by two members.',
  members: MEMBERS,
  cd: cwd,
  command: STUB,
  timeout: 60,
  maxRetries: 0,
});
let delta = 0;
let full = 0;
let kinds = { full: 0, delta: 0 };
const times = [];
// A deterministic mix of recipients and message sizes.
let seed = 7;
const next = (n) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};
try {
  for (let t = 0; t < TURNS; t++) {
    const to = next(3) === 0 ? undefined : MEMBERS[next(MEMBERS.length)].id;
    team.post({ from: 'lead', to, content: `Step ${t}: ${'please look at src/module.rs and report what changed; '.repeat(1 + next(6))}` });
    const member = MEMBERS[t % MEMBERS.length];
    const state = team.toJSON();
    const mine = state.members.find((m) => m.id === member.id);
    // What a full prompt for this member would be now.
    const whole = pkg.planTeamTurn({ teamTask: state.teamTask, transcript: state.transcript, member, fresh: true, message: `turn ${t}` });
    full += Buffer.byteLength(whole.output.prompt) + Buffer.byteLength(whole.output.systemFlag ?? '');
    const t0 = performance.now();
    const turn = await team.ask(member.id, { message: `turn ${t}` });
    times.push(performance.now() - t0);
    assert.equal(turn.success, true, JSON.stringify(turn.error));
    assert.equal(turn.context.kind, mine.mark === null ? 'full' : 'delta');
    kinds[turn.context.kind] += 1;
    delta += turn.context.bytes;
  }
} finally {
  await team.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

const sorted = [...times].sort((a, b) => a - b);
const median = sorted[sorted.length >> 1];
const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)];
const ratio = full / delta;
const scenario = `team ${MEMBERS.length} members × ${TURNS} turns`;
report({ family: 'team', scenario, impl: 'AgentTeam', deltaBytes: delta, fullBytes: full, kinds, medianMs: median, p99Ms: p99 });
report({
  family: 'team',
  scenario: `${scenario}: bytes`,
  target: {
    name: `${scenario} (stub agent): bytes sent, full prompts every turn / deltas`,
    measured: `${ratio.toFixed(1)}× (${full} vs ${delta} bytes; ${kinds.full} full, ${kinds.delta} delta)`,
    required: '≥ 10×',
    met: ratio >= 10,
  },
});
report({
  family: 'team',
  scenario: `${scenario}: time`,
  target: {
    name: `  time per turn (team.ask, stub agent)`,
    measured: `median ${median.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`,
    required: '—',
    met: null,
  },
});
