// Family: the second turn on the real agents over ACP, a kept session
// against a one-shot resume, offline against the mock APIs on 127.0.0.1
// (the live tests' harness: tests/cli/harness.cjs and mock_server.cjs for
// Claude Code, Codex and Gemini CLI, tests/cli/openai_chat_agents.cjs and
// openai_chat_server.cjs for GitHub Copilot, opencode and Qwen Code).
//
// Each round, for each agent, in a fresh folder, HOME and mock:
// - kept: `openAgentSession`, a first prompt, then the second prompt, timed
//   from `session.prompt` to its result;
// - one-shot: `runAgent(type, …, { protocol: 'acp' })`, then the timed one:
//   `runAgent` with the first run's `sessionId` (a new process, its setup,
//   the session reopened, the prompt).
// The ratio is the median of the one-shot resumes over the median of the
// kept second turns. Before a figure counts, both second turns must have
// succeeded in the same session as the first. An agent that cannot resume
// one-shot (Gemini CLI: session_not_found) is reported as such. An agent
// that is not installed is skipped with the reason (scripts/setup.sh
// --agents installs them all).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { report, smoke } from '../measure.mjs';
import { acpOptions, adapterMissing, harness, mockRound } from '../real-agents.mjs';

const require = createRequire(import.meta.url);
const pkg = require('agent-context');
const chat = require('../../tests/cli/openai_chat_agents.cjs');

const ROUNDS = smoke ? 1 : 5;
// Under target/: codex-acp refuses a CODEX_HOME under /tmp.
const BASE = path.join(harness.ROOT, 'target', 'bench-turn-two');
const FIRST = 'First question: alpha-7731?';
const SECOND = 'Second question: beta-2294?';
// The turns' limits: generous, since a failure is reported, not waited out.
const LIMITS = { timeout: 60, maxDuration: 150, maxRetries: 0 };

/** Each agent: its type, whether it is installed (else why not), how a round is set up and ended, its options. */
const AGENTS = [
  ...['claude', 'codex', 'gemini'].map((cli) => ({
    cli,
    agentType: harness.CLIS[cli].agentType,
    bar: cli === 'claude' ? 5 : null,
    missing: adapterMissing(cli),
    setUp: () => mockRound(cli, BASE),
    end: (ctx) => ctx.end(),
    options: (ctx) => acpOptions(cli, ctx),
  })),
  ...['copilot', 'opencode', 'qwen'].map((cli) => ({
    cli,
    agentType: chat.AGENTS[cli].agentType,
    bar: cli === 'qwen' ? null : 5,
    missing: chat.available(cli) ? null : `not installed (bash scripts/setup.sh --agents): ${chat.executable(cli)}`,
    setUp: () => chat.freshRun(cli, 'plain', BASE),
    end: chat.endFreshRun,
    options: (ctx) => ({ cd: ctx.cwd, command: chat.executable(cli), env: ctx.env }),
  })),
];

const succeeded = (what, turn) => assert.equal(turn.success, true, `${what}: ${JSON.stringify(turn.error)}`);

/** The kept session's second turn, in ms. */
async function keptSecondTurn(agent, ctx) {
  const session = await pkg.openAgentSession(agent.agentType, { ...agent.options(ctx), ...LIMITS });
  try {
    const first = await session.prompt(FIRST);
    succeeded(`${agent.cli}, kept session, turn 1`, first);
    const t0 = performance.now();
    const second = await session.prompt(SECOND);
    const ms = performance.now() - t0;
    succeeded(`${agent.cli}, kept session, turn 2`, second);
    assert.equal(second.sessionId, first.sessionId, `${agent.cli}: the kept session's second turn is in its session`);
    return ms;
  } finally {
    await session.close();
  }
}

/** A one-shot run, then its session resumed by a second one: `{ ms }`, or `{ cannot }` (the run's error) when the agent cannot resume. */
async function oneShotResume(agent, ctx) {
  const options = { protocol: 'acp', ...agent.options(ctx), ...LIMITS };
  const first = await pkg.runAgent(agent.agentType, { prompt: FIRST }, options);
  succeeded(`${agent.cli}, one-shot`, first);
  assert.ok(first.sessionId, `${agent.cli}: the one-shot run named its session`);
  const t0 = performance.now();
  const second = await pkg.runAgent(agent.agentType, { prompt: SECOND }, { ...options, sessionId: first.sessionId });
  const ms = performance.now() - t0;
  if (!second.success && second.error.kind === 'session_not_found') return { cannot: second.error };
  succeeded(`${agent.cli}, one-shot resumed`, second);
  assert.equal(second.sessionId, first.sessionId, `${agent.cli}: the resumed run is in the first run's session`);
  return { ms };
}

const median = (samples) => [...samples].sort((a, b) => a - b)[samples.length >> 1];
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

// The smoke run (in `npm test`) keeps the code path working with one agent;
// the full run measures all six.
for (const agent of smoke ? AGENTS.filter((a) => a.cli === 'claude') : AGENTS) {
  const name = `turn 2 over ACP, ${agent.cli} (${agent.agentType}): one-shot resume / kept session`;
  const required = agent.bar ? `≥ ${agent.bar}×` : 'info';
  const row = (measured, met) => report({ family: 'turn-two', scenario: name, target: { name, measured, required, met } });
  if (agent.missing) {
    row(`skipped: ${agent.missing}`, null);
    continue;
  }
  process.stderr.write(`bench: turn-two ${agent.cli}…\n`);
  const kept = [];
  const resumed = [];
  let cannot = null;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const ctx = await agent.setUp();
      try {
        kept.push(await keptSecondTurn(agent, ctx));
        // Once the agent said it cannot resume, only its kept turns are timed.
        if (!cannot) {
          const one = await oneShotResume(agent, ctx);
          if (one.cannot) cannot = one.cannot;
          else resumed.push(one.ms);
        }
      } finally {
        agent.end(ctx);
      }
    }
  } catch (error) {
    // A failed run is a result of the full benchmark; the smoke run exists to catch it.
    if (smoke) throw error;
    row(`failed: ${error.message.split('\n')[0].slice(0, 300)}`, false);
    continue;
  }
  report({ family: 'turn-two', scenario: name, impl: 'kept session, turn 2', agent: agent.cli, samplesMs: kept, medianMs: median(kept) });
  if (cannot) {
    report({ family: 'turn-two', scenario: name, impl: 'one-shot resume', agent: agent.cli, error: cannot });
    row(`no one-shot resume (${cannot.kind}); kept session turn 2 ${fmt(median(kept))}`, null);
    continue;
  }
  report({ family: 'turn-two', scenario: name, impl: 'one-shot resume', agent: agent.cli, samplesMs: resumed, medianMs: median(resumed) });
  const ratio = median(resumed) / median(kept);
  row(`${ratio.toFixed(1)}× (resume ${fmt(median(resumed))}, kept ${fmt(median(kept))}, medians of ${kept.length})`, agent.bar ? ratio >= agent.bar : null);
}
