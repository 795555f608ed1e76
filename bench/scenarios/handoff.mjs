// Family: a conversation handed to the next agent of `fallback` when a turn
// ends over quota, on the STUB ACP agent (bench/stub-acp-agent.cjs: our
// process layer only, no agent's behaviour), for two pairs of agent types
// (the stub started as each): a session of TURNS turns (a 2 KB prompt and
// the stub's answer each), then the stub over its quota: what the handoff
// sends (the carried prompt's bytes, assembled in the next agent's layout
// within its budget) and the time from the failed turn's end (its last
// event) to the fallback's first event. Info rows.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { report, smoke } from '../measure.mjs';

const pkg = createRequire(import.meta.url)('agent-context');
const STUB = fileURLToPath(new URL('../stub-acp-agent.cjs', import.meta.url));
const TURNS = smoke ? 3 : 20;
const ROUNDS = smoke ? 1 : 5;
const PAIRS = [
  ['claude-code', 'openai-codex'],
  ['openai-codex', 'google-gemini'],
];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-bench-handoff-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function once(from, to, round) {
  const quota = path.join(dir, `quota-${from}-${round}`);
  const options = (env) => ({ cd: dir, command: STUB, env: { ...process.env, ...env }, timeout: 60, maxDuration: 120, maxRetries: 0 });
  const session = await pkg.openAgentSession(from, { ...options({ STUB_QUOTA_FILE: quota }), fallback: [{ agent: to, options: options({}) }] });
  try {
    for (let t = 0; t < TURNS; t++) {
      const turn = await session.prompt(`Turn ${t}: ${'the requirements say '.repeat(100)}`);
      if (!turn.success) throw new Error(JSON.stringify(turn.error));
    }
    fs.writeFileSync(quota, '');
    let lastBefore = null;
    let handedAt = null;
    let firstAfter = null;
    const turn = await session.prompt('What did we agree?', {
      onEvent: (event) => {
        const now = performance.now();
        if (event.type === 'handoff') handedAt = now;
        else if (handedAt === null) lastBefore = now;
        else if (firstAfter === null) firstAfter = now;
      },
    });
    if (!turn.success || !turn.handedOffTo) throw new Error(`not handed off: ${JSON.stringify(turn.error)}`);
    return { bytes: turn.context.report.bytesAfter, carried: turn.context.carried, ms: firstAfter - lastBefore };
  } finally {
    await session.close();
  }
}

try {
  for (const [from, to] of PAIRS) {
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) runs.push(await once(from, to, round));
    const scenario = `handoff ${from} → ${to} after ${TURNS} turns (stub agent)`;
    report({
      family: 'handoff',
      scenario,
      target: {
        name: `${scenario}: the carried prompt, and the failed turn's last event to the fallback's first`,
        measured: `${runs[0].bytes} bytes (${runs[0].carried} messages), ${median(runs.map((r) => r.ms)).toFixed(1)} ms (median of ${ROUNDS})`,
        required: 'info',
        met: null,
      },
    });
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
