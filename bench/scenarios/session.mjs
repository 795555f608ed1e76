// Sessions kept open (openAgentSession) on a STUB ACP agent
// (bench/stub-acp-agent.cjs), which measures only our process layer: the
// session engine, its executor and the child processes. 50 sessions at
// once, 5 turns each one after another:
// - added latency per turn: the p99 of session.prompt's time against the
//   p99 of the same exchange with the same stub spoken to directly (a
//   minimal JSON-RPC client on its stdio, also 50 processes × 5 turns at
//   once, the prompts starting once all 50 are open as ours do, in the
//   same run): bar ≤ 20 ms;
// - after every close(): no stub process left (each stub writes its PID to
//   a folder) and this process's open descriptors (/proc/self/fd, Linux)
//   back to the count before the sessions opened.
// Prints one row per measure, each with the target bench/run.mjs shows.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { report, smoke } from '../measure.mjs';

const pkg = createRequire(import.meta.url)('agent-context');
const STUB = fileURLToPath(new URL('../stub-acp-agent.cjs', import.meta.url));
const SESSIONS = smoke ? 5 : 50;
const TURNS = smoke ? 2 : 5;
const ROUNDS = smoke ? 1 : 3; // each round: ours, then the direct client
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-bench-session-'));
const pids = path.join(dir, 'pids');
fs.mkdirSync(pids);
const cwd = path.join(dir, 'work');
fs.mkdirSync(cwd);
const env = { ...process.env, STUB_PID_DIR: pids };

const fds = () => (process.platform === 'linux' ? fs.readdirSync('/proc/self/fd').length : null);
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};
const p99 = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)];
};
const median = (samples) => [...samples].sort((a, b) => a - b)[samples.length >> 1];

/** Our path: SESSIONS sessions at once, TURNS turns each; the turns' times in ms. */
async function ours() {
  const sessions = await Promise.all(
    Array.from({ length: SESSIONS }, () => pkg.openAgentSession('google-gemini', { cd: cwd, command: STUB, env, timeout: 60, maxDuration: 120, maxRetries: 0 })),
  );
  const times = [];
  await Promise.all(
    sessions.map(async (session, s) => {
      for (let t = 0; t < TURNS; t++) {
        const t0 = performance.now();
        const turn = await session.prompt(`session ${s}, turn ${t}`);
        times.push(performance.now() - t0);
        assert.equal(turn.success, true, JSON.stringify(turn.error));
        assert.equal(turn.reply.text, 'ok');
      }
    }),
  );
  await Promise.all(sessions.map((session) => session.close()));
  return times;
}

/**
 * A minimal client on the stub's stdio: spawn, initialize, session/new,
 * then, once `ready()` resolves (every client's session is open, as with
 * ours), `turns` prompts; their round trips in ms.
 */
function direct(turns, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(STUB, [], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    const times = [];
    let id = 0;
    let sessionId;
    let t0;
    let pending = '';
    const send = (method, params) => {
      id += 1;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    };
    const prompt = () => {
      t0 = performance.now();
      send('session/prompt', { sessionId, prompt: [{ type: 'text', text: `turn ${times.length}` }] });
    };
    child.on('error', reject);
    child.on('exit', () => resolve(times));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (data) => {
      pending += data;
      let at;
      while ((at = pending.indexOf('\n')) >= 0) {
        const message = JSON.parse(pending.slice(0, at));
        pending = pending.slice(at + 1);
        if (message.id === undefined) continue; // the turn's session/update
        if (message.id === 1) send('session/new', { cwd, mcpServers: [] });
        else if (message.id === 2) {
          sessionId = message.result.sessionId;
          ready().then(prompt);
        } else {
          assert.equal(message.result.stopReason, 'end_turn');
          times.push(performance.now() - t0);
          if (times.length < turns) prompt();
          else child.stdin.end();
        }
      }
    });
    send('initialize', { protocolVersion: 1, clientCapabilities: {} });
  });
}

/** `clients` direct clients at once, each prompting once all are open. */
function directRound(clients, turns) {
  let open = 0;
  let go;
  const all = new Promise((resolve) => {
    go = resolve;
  });
  const ready = () => {
    open += 1;
    if (open === clients) go();
    return all;
  };
  return Promise.all(Array.from({ length: clients }, () => direct(turns, ready)));
}

// Warm up both paths (the module's compile, the first spawns).
await ours();
await directRound(2, 1);
for (const f of fs.readdirSync(pids)) fs.rmSync(path.join(pids, f));
// Settle what the warm-up left (exit handlers, closed pipes) before the baseline.
await new Promise((r) => setTimeout(r, 200));

const fdsBefore = fds();
const oursTimes = [];
const directTimes = [];
for (let round = 0; round < ROUNDS; round++) {
  oursTimes.push(...(await ours()));
  directTimes.push(...(await directRound(SESSIONS, TURNS)).flat());
}
assert.equal(oursTimes.length, ROUNDS * SESSIONS * TURNS);
assert.equal(directTimes.length, ROUNDS * SESSIONS * TURNS);
// The stubs our sessions started: ROUNDS × SESSIONS, plus the direct client's.
const stubPids = fs.readdirSync(pids).map(Number);
assert.equal(stubPids.length, 2 * ROUNDS * SESSIONS);
// close() resolved once each process was gone: nothing may still run now.
const left = stubPids.filter(alive);
// Pipes of exited children are closed on the next turns of the event loop.
let fdsAfter = fds();
for (let i = 0; i < 20 && fdsAfter !== fdsBefore; i++) {
  await new Promise((r) => setTimeout(r, 50));
  fdsAfter = fds();
}
fs.rmSync(dir, { recursive: true, force: true });

const ms = (n) => n.toFixed(2);
const added = p99(oursTimes) - p99(directTimes);
const scenario = `session: ${SESSIONS} sessions × ${TURNS} turns at once on a stub agent`;
report({ family: 'session', scenario, impl: 'openAgentSession', turns: oursTimes.length, p99Ms: p99(oursTimes), medianMs: median(oursTimes) });
report({ family: 'session', scenario, impl: 'direct stdio client', turns: directTimes.length, p99Ms: p99(directTimes), medianMs: median(directTimes) });
report({
  family: 'session',
  scenario: `${scenario}: added p99`,
  target: {
    name: `${SESSIONS} sessions × ${TURNS} turns at once (stub agent): p99 added per turn over a direct stdio client`,
    measured: `${ms(added)} ms (p99 ${ms(p99(oursTimes))} vs ${ms(p99(directTimes))} ms; medians ${ms(median(oursTimes))} vs ${ms(median(directTimes))} ms; ${oursTimes.length} turns each)`,
    required: '≤ 20 ms',
    met: added <= 20,
  },
});
report({
  family: 'session',
  scenario: `${scenario}: left running`,
  target: {
    name: `  after close(): stub processes left running`,
    measured: `${left.length} of ${stubPids.length}`,
    required: '0',
    met: left.length === 0,
  },
});
report({
  family: 'session',
  scenario: `${scenario}: descriptors`,
  target: {
    name: `  after close(): open descriptors against the baseline`,
    measured: fdsBefore === null ? 'not measured (no /proc/self/fd)' : `${fdsAfter} (before: ${fdsBefore})`,
    required: 'baseline',
    met: fdsBefore === null ? null : fdsAfter <= fdsBefore,
  },
});
