// Family: served conversations.
// (1) The bar: a turn of Claude Code over ACP (its adapter, offline against
// the live tests' mock API on 127.0.0.1, which answers at once) in-process
// (openAgentSession's prompt) against the same turn served by
// serveConversations over WebSocket on loopback to the ACP SDK's client
// (session/prompt sent to its response), alternating, medians of the same
// run; both recorded to a store in memory. Skipped, with the reason, when
// the adapter is not installed (bash scripts/setup.sh --agents).
// (2) What serving adds, on the STUB ACP agent (bench/stub-acp-agent.cjs:
// our process layer only, no agent's behaviour, its turn answered at once,
// so that nothing but what serving adds is timed): the same two turns, in
// ms; beside them, the floor: the same client and server (the package's
// own, the SDK's transport) with an agent in the server's process that
// answers at once (no agent process, no conversation): what the WebSocket
// round trip alone costs.
// (3) CONVERSATIONS conversations on one server, each with a client
// that prompts and WATCHERS clients that loaded it, every conversation's
// turns at once: each watcher must have been sent every update of its
// conversation once (its seqs 1..last, no gap, none twice).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { report, smoke } from '../measure.mjs';
import { acpOptions, adapterMissing, harness, mockRound } from '../real-agents.mjs';

const require = createRequire(import.meta.url);
const pkg = require('agent-context');
const STUB = fileURLToPath(new URL('../stub-acp-agent.cjs', import.meta.url));
const TURNS = smoke ? 5 : 200;
// Claude Code's turns, each way (the first ones warm up and are not counted).
const REAL_TURNS = smoke ? 2 : 80;
const REAL_WARM = smoke ? 0 : 5;
const CONVERSATIONS = smoke ? 3 : 50;
const WATCHERS = 4;
const ROUNDS_EACH = smoke ? 1 : 3;
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-bench-serve-')));
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const options = { cd: dir, command: STUB, env: { ...process.env }, timeout: 60, maxDuration: 120, maxRetries: 0 };
const prompt = (text) => [{ type: 'text', text }];

const [acp, wsClient, ws] = await Promise.all([import('@agentclientprotocol/sdk/unstable'), import('@agentclientprotocol/sdk/experimental/ws-client'), import('ws')]);
const WebSocket = ws.WebSocket ?? ws.default;

/** The SDK's client over WebSocket: `{ agent, seqs(id), close() }`. */
async function client(server) {
  const updates = new Map();
  const stream = wsClient.createWebSocketStream(server.url.replace(/^http/, 'ws'), { WebSocket, headers: { Authorization: `Bearer ${server.token}` } });
  const connection = acp
    .client({ name: 'bench' })
    .onNotification('session/update', ({ params }) => {
      if (!updates.has(params.sessionId)) updates.set(params.sessionId, []);
      updates.get(params.sessionId).push(params._meta?.['agent-context']?.seq);
    })
    .connect(stream);
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { agent: connection.agent, seqs: (id) => updates.get(id) ?? [], close: () => connection.close() };
}

/** The SDK's agent app answering each prompt at once with one text update: the transport's floor. */
function instantAgent() {
  const app = () =>
    acp
      .agent({ name: 'instant' })
      .onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: {} }))
      .onRequest('session/new', () => ({ sessionId: 'instant' }))
      .onRequest('session/prompt', async ({ params, client }) => {
        await client.notify('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } } });
        return { stopReason: 'end_turn' };
      });
  return { connect: (stream, options) => app().connect(stream, options) };
}

/** Median of a prompt answered at once behind the package's server (its gate, the SDK's transport), over WebSocket. */
async function floorTime() {
  const { serveAgent } = pkg;
  const server = await serveAgent({ cd: dir, agent: instantAgent(), listen: { port: 0 } });
  const c = await client(server);
  const times = [];
  try {
    const { sessionId } = await c.agent.request('session/new', { cwd: dir, mcpServers: [] });
    for (let t = 0; t < TURNS; t++) {
      const t0 = performance.now();
      await c.agent.request('session/prompt', { sessionId, prompt: prompt(`Turn ${t}: what next?`) });
      times.push(performance.now() - t0);
    }
  } finally {
    c.close();
    await server.close();
  }
  return median(times.slice(Math.min(10, times.length >> 1)));
}

/**
 * Medians of `turns` turns in-process and served over WebSocket, the first
 * `warm` of each left out: `agent`, `options` (each turn's success checked).
 */
async function turnTimes(agent, options, turns, warm) {
  const inProcess = [];
  const served = [];
  // Both recorded, to a store in memory: a served conversation always is.
  const session = await pkg.openAgentSession(agent, { ...options, store: pkg.memorySessionStore() });
  let server;
  let c;
  try {
    server = await pkg.serveConversations({ agent, store: pkg.memorySessionStore(), sessionOptions: options, listen: { port: 0 } });
    c = await client(server);
    const { sessionId } = await c.agent.request('session/new', { cwd: options.cd, mcpServers: [] });
    // Alternating, so that both see the same machine load.
    for (let t = 0; t < turns; t++) {
      let t0 = performance.now();
      const turn = await session.prompt(`Turn ${t}: what next?`);
      inProcess.push(performance.now() - t0);
      if (!turn.success) throw new Error(JSON.stringify(turn.error));
      t0 = performance.now();
      const answer = await c.agent.request('session/prompt', { sessionId, prompt: prompt(`Turn ${t}: what next?`) });
      served.push(performance.now() - t0);
      if (answer.stopReason !== 'end_turn') throw new Error(JSON.stringify(answer));
    }
  } finally {
    c?.close();
    await server?.close();
    await session.close();
  }
  return { inProcess: median(inProcess.slice(warm)), served: median(served.slice(warm)), turns: turns - warm };
}

/** (1): Claude Code's turns, or `{ missing }`. */
async function claudeTurnTimes() {
  const missing = adapterMissing('claude');
  if (missing) return { missing };
  // Under target/, as the other benchmarks of real agents.
  // Each turn is a call of the model and its side calls (a few): the mock answers them all.
  const round = await mockRound('claude', path.join(harness.ROOT, 'target', 'bench-serve'), { maxRequests: 1000 });
  try {
    return await turnTimes('claude-code', { ...acpOptions('claude', round), timeout: 60, maxDuration: 120, maxRetries: 0 }, REAL_TURNS, REAL_WARM);
  } finally {
    round.end();
  }
}

async function watchers() {
  const server = await pkg.serveConversations({ agent: 'claude-code', sessionOptions: options, listen: { port: 0 }, limits: { maxConnections: CONVERSATIONS * (WATCHERS + 1) + 8 } });
  const clients = [];
  let lost = 0;
  let doubled = 0;
  let updates = 0;
  try {
    const rooms = [];
    for (let n = 0; n < CONVERSATIONS; n++) {
      const prompter = await client(server);
      clients.push(prompter);
      const { sessionId } = await prompter.agent.request('session/new', { cwd: dir, mcpServers: [] });
      const watching = [];
      for (let w = 0; w < WATCHERS; w++) {
        const watcher = await client(server);
        clients.push(watcher);
        await watcher.agent.request('session/load', { sessionId, cwd: dir, mcpServers: [] });
        watching.push(watcher);
      }
      rooms.push({ prompter, sessionId, watching });
    }
    let last = new Map();
    for (let round = 0; round < ROUNDS_EACH; round++) {
      const answers = await Promise.all(rooms.map((r) => r.prompter.agent.request('session/prompt', { sessionId: r.sessionId, prompt: prompt(`Round ${round}`) })));
      rooms.forEach((r, i) => last.set(r.sessionId, answers[i]._meta['agent-context'].seq));
    }
    // Every update reaches a watcher before the prompter's response, on another connection: give them a moment.
    await new Promise((r) => setTimeout(r, 500));
    for (const r of rooms) {
      const end = last.get(r.sessionId);
      for (const w of r.watching) {
        const seqs = w.seqs(r.sessionId);
        const seen = new Set(seqs);
        doubled += seqs.length - seen.size;
        for (let s = 1; s <= end; s++) if (!seen.has(s)) lost += 1;
        updates += seqs.length;
      }
    }
  } finally {
    for (const c of clients) c.close();
    await server.close();
  }
  return { lost, doubled, updates };
}

try {
  const real = await claudeTurnTimes();
  const realName = 'a turn of Claude Code over ACP (offline, the mock API answering at once) served over WebSocket on loopback / the same turn in-process';
  if (real.missing) {
    report({ family: 'serve', scenario: realName, target: { name: realName, measured: `skipped: ${real.missing}`, required: '≤ 1.2×', met: null } });
  } else {
    const ratio = real.served / real.inProcess;
    report({
      family: 'serve',
      scenario: realName,
      target: {
        name: realName,
        measured: `${ratio.toFixed(2)}× (served ${real.served.toFixed(1)} ms, in-process ${real.inProcess.toFixed(1)} ms, medians of ${real.turns})`,
        required: '≤ 1.2×',
        met: smoke ? null : ratio <= 1.2,
      },
    });
  }
  const t = await turnTimes('claude-code', options, TURNS, Math.min(10, TURNS >> 1));
  const floor = await floorTime();
  report({
    family: 'serve',
    scenario: 'what serving adds to a turn: the stub agent answering at once, and the floor',
    target: {
      name: 'what serving adds to a turn (stub agent answering at once): served − in-process; the WebSocket round trip alone (the SDK client and server, an agent in the server process answering at once)',
      measured: `+${(t.served - t.inProcess).toFixed(2)} ms (served ${t.served.toFixed(2)} ms, in-process ${t.inProcess.toFixed(2)} ms, medians of ${t.turns}); floor ${floor.toFixed(2)} ms`,
      required: 'info',
      met: null,
    },
  });
  const w = await watchers();
  report({
    family: 'serve',
    scenario: `${CONVERSATIONS} conversations with ${WATCHERS} watchers each on one server`,
    target: {
      name: `${CONVERSATIONS} conversations × ${WATCHERS} watchers on one server, ${ROUNDS_EACH} turns each at once: updates lost and doubled`,
      measured: `${w.lost} lost, ${w.doubled} doubled (${w.updates} updates sent)`,
      required: '0 lost, 0 doubled',
      met: w.lost === 0 && w.doubled === 0,
    },
  });
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
