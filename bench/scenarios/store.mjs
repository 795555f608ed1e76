// Family: the conversation stores across processes. A watcher's lag: a
// writer here appends entries one at a time (each says when, on this
// machine's clock, it was handed to the store), and a watcher in another
// Node process (`store.watch`) prints how long after that each reached its
// callback: with the file store (a folder) and with the PostgreSQL store
// (LISTEN/NOTIFY, on a PostgreSQL started here on 127.0.0.1 by
// tests/postgres/server.cjs: Debian's postgresql, which scripts/setup.sh
// --postgres installs). Bars: 100 ms at the median, 250 ms at p95, on
// loopback, with either store.
// A recorded turn's host CPU: one session on the STUB ACP agent
// (bench/stub-acp-agent.cjs, 100 text chunks a turn: our process layer
// only), its turns one after another, with no store, the file store and the
// PostgreSQL store, in turn, for a few rounds; this process's CPU time
// (user + system, every thread) per turn, the median of the rounds. The
// database server's own CPU is not counted. Shown, not a bar: a stub turn
// is short, so this is each store's fixed cost per turn (the bar on what
// recording into the file store adds is the acp-parse family's, on a turn
// of 20 000 update lines).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { report, smoke } from '../measure.mjs';

const require = createRequire(import.meta.url);
const pkg = require('agent-context');
const { startPostgres } = require('../../tests/postgres/server.cjs');
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRIES = smoke ? 10 : 200;
const GAP_MS = 20;
const STUB = fileURLToPath(new URL('../stub-acp-agent.cjs', import.meta.url));
const TURNS = smoke ? 5 : 100;
const ROUNDS = smoke ? 1 : 5;

/** Epoch milliseconds with sub-millisecond precision (the same clock in both processes). */
const now = () => performance.timeOrigin + performance.now();

/** A watcher of conversation `id` in another process, on the store `open` makes there: its lags (ms), once it saw `count` entries. */
function watcher(open, id, count) {
  const script = `
    const pkg = require('agent-context');
    const now = () => performance.timeOrigin + performance.now();
    const store = ${open};
    const lags = [];
    const alive = setInterval(() => {}, 1000);
    const unwatch = store.watch(${JSON.stringify(id)}, {}, (e) => {
      if (e.kind === 'part') return console.log('ready');
      lags.push(now() - e.sent);
      if (lags.length === ${count}) { unwatch(); clearInterval(alive); console.log(JSON.stringify(lags)); store.close?.(); }
    });`;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const ready = new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.startsWith('ready\n')) resolve();
    });
    child.on('exit', () => reject(new Error(`the watcher exited before it was ready: ${out}`)));
  });
  const lags = new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`the watcher exited ${code}: ${out}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)));
    });
  });
  ready.catch(() => {});
  return { ready, lags };
}

async function lagOf(name, store, open) {
  const id = `bench-${name}-${process.pid}`;
  const w = await store.open(id, { format: 'agent-context/session-record', version: '2.0', conversationId: id, createdAt: Date.now() });
  await w.append(`${JSON.stringify({ seq: 1, at: Date.now(), kind: 'part', agentType: 'bench', protocol: 'acp', reason: 'opened', fromTurn: 1 })}\n`);
  const watching = watcher(open, id, ENTRIES);
  await watching.ready;
  for (let seq = 2; seq <= ENTRIES + 1; seq++) {
    await new Promise((r) => setTimeout(r, GAP_MS));
    const line = `${JSON.stringify({ seq, at: Date.now(), kind: 'text', turn: 1, text: `entry ${seq}`, sent: now() })}\n`;
    await w.append(line);
  }
  const lags = (await watching.lags).sort((a, b) => a - b);
  await w.close();
  await store.delete(id);
  assert.equal(lags.length, ENTRIES);
  const at = (q) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))];
  const median = at(0.5);
  const p95 = at(0.95);
  report({ family: 'store', scenario: `watcher lag, ${name}`, impl: name, entries: ENTRIES, medianMs: median, p95Ms: p95 });
  report({
    family: 'store',
    scenario: `watcher lag, ${name}: median`,
    target: { name: `a watcher in another process: each new entry's lag, ${name} (${ENTRIES} entries ${GAP_MS} ms apart), median`, measured: `${median.toFixed(2)} ms`, required: '≤ 100 ms', met: median <= 100 },
  });
  report({
    family: 'store',
    scenario: `watcher lag, ${name}: p95`,
    target: { name: `  same, p95`, measured: `${p95.toFixed(2)} ms (max ${lags.at(-1).toFixed(2)} ms)`, required: '≤ 250 ms', met: p95 <= 250 },
  });
}

/** This process's CPU time per turn (ns) of `TURNS` turns of one session on the stub, recorded in `store` (none: unrecorded). */
async function turnCpu(store, cd) {
  const agent = { id: 'stub', name: 'Stub', command: process.execPath, args: [STUB], env: { STUB_CHUNKS: '100' }, protocol: 'acp' };
  const session = await pkg.openAgentSession(agent, { cd, ...(store ? { store } : {}) });
  try {
    for (let i = 0; i < 3; i++) await session.prompt(`warm-up ${i}`);
    await session.flush();
    const before = process.cpuUsage();
    for (let i = 0; i < TURNS; i++) assert.equal((await session.prompt(`turn ${i}`)).success, true);
    await session.flush();
    const spent = process.cpuUsage(before);
    return ((spent.user + spent.system) * 1000) / TURNS;
  } finally {
    await session.close();
  }
}

async function recordedTurns(stores, cd) {
  const samples = Object.fromEntries(Object.keys(stores).map((k) => [k, []]));
  const names = Object.keys(stores);
  for (let round = 0; round < ROUNDS; round++) {
    // Each round in another order: none goes first every time.
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      samples[name].push(await turnCpu(stores[name], cd));
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const base = median(samples.unrecorded);
  const us = (ns) => `${(ns / 1000).toFixed(0)} µs`;
  for (const name of names) {
    const m = median(samples[name]);
    report({ family: 'store', scenario: `recorded turn, ${name}`, impl: name, turns: TURNS, rounds: ROUNDS, medianNs: m, samplesNs: samples[name] });
    if (name === 'unrecorded') continue;
    const ratio = m / base;
    report({
      family: 'store',
      scenario: `recorded turn, ${name}: ratio`,
      target: {
        name: `a turn recorded with the ${name} (stub ACP agent, 100 chunks a turn): this process's CPU / the unrecorded turn's`,
        measured: `${ratio.toFixed(2)}× (${us(m)} vs ${us(base)} a turn, +${us(m - base)})`,
        required: 'info',
        met: null,
      },
    });
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-bench-store-'));
const server = await startPostgres();
try {
  await lagOf('file store', pkg.openSessionStore(dir), `pkg.openSessionStore(${JSON.stringify(dir)})`);
  const pg = pkg.openPostgresSessionStore({ connectionString: server.url });
  try {
    await lagOf('PostgreSQL store', pg, `pkg.openPostgresSessionStore({ connectionString: ${JSON.stringify(server.url)} })`);
    const cd = path.join(dir, 'work');
    fs.mkdirSync(cd);
    await recordedTurns({ unrecorded: null, 'file store': pkg.openSessionStore(path.join(dir, 'turns')), 'PostgreSQL store': pg }, cd);
  } finally {
    await pg.close();
  }
} finally {
  server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
