// What the tests of served conversations share: the ACP SDK's own client
// (its client app, over stdio, Streamable HTTP or WebSocket — nothing of
// this package's), recording every `session/update` it is sent and
// answering the agent's requests as a test says; `agent-context acp`
// started on a pipe; and the processes a test's HOME still has.
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');
const { Readable, Writable } = require('node:stream');
const { processesWithHome } = require('../cli/processes.cjs');

const BIN = path.join(__dirname, '..', '..', 'bin', 'agent-context.js');

let sdk;
async function loadSdk() {
  sdk ??= Promise.all([
    import('@agentclientprotocol/sdk/unstable'),
    import('@agentclientprotocol/sdk/experimental/ws-client'),
    import('@agentclientprotocol/sdk/experimental/http-client'),
    import('ws'),
  ]).then(([acp, wsClient, httpClient, ws]) => ({ acp, wsClient, httpClient, WebSocket: ws.WebSocket ?? ws.default }));
  return sdk;
}

/**
 * The SDK's client on `stream`: `{ agent, updates, seqs(id), text(id),
 * close() }`. `updates`: every `session/update` params, in order.
 * `handlers`: `{ permission(params), elicitation(params), readTextFile(params) }`.
 * `caps`: the client capabilities it advertises.
 */
async function sdkClient(stream, { caps = {}, handlers = {} } = {}) {
  const { acp } = await loadSdk();
  const updates = [];
  const app = acp
    .client({ name: 'served-test-client' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', async ({ params }) => (handlers.permission ? handlers.permission(params) : { outcome: { outcome: 'cancelled' } }))
    .onRequest('elicitation/create', async ({ params }) => (handlers.elicitation ? handlers.elicitation(params) : { action: 'decline' }))
    .onRequest('fs/read_text_file', async ({ params }) => handlers.readTextFile(params))
    .onRequest('fs/write_text_file', async ({ params }) => handlers.writeTextFile(params));
  const connection = app.connect(stream);
  const agent = connection.agent;
  const init = await agent.request('initialize', { protocolVersion: 1, clientCapabilities: caps });
  const of = (id) => updates.filter((u) => u.sessionId === id);
  return {
    init,
    agent,
    updates,
    of,
    seqs: (id) => of(id).map((u) => u._meta['agent-context'].seq),
    text: (id, kind = 'agent_message_chunk') => of(id).filter((u) => u.update.sessionUpdate === kind).map((u) => u.update.content.text).join(''),
    close: () => connection.close(),
    closed: connection.closed,
  };
}

/** The SDK's client over Streamable HTTP (`http://…`) or WebSocket (`ws://…`) with the bearer token. */
async function overNetwork(url, token, options) {
  const { wsClient, httpClient, WebSocket } = await loadSdk();
  const headers = { Authorization: `Bearer ${token}` };
  const stream = url.startsWith('ws') ? wsClient.createWebSocketStream(url, { WebSocket, headers }) : httpClient.createHttpStream(url, { headers });
  return sdkClient(stream, options);
}

/** `agent-context acp ARGS` on a pipe, with `env`: `{ child, client(options), exited }`. */
function startAcp(args, env) {
  const child = spawn(process.execPath, [BIN, 'acp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr })));
  return {
    child,
    exited,
    stderr: () => stderr,
    client: async (options) => {
      const { acp } = await loadSdk();
      return sdkClient(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)), options);
    },
  };
}

/** Waits (at most `ms`) until no process with `home` runs; resolves those left. */
async function noneLeft(home, ms = 10_000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (processesWithHome(home).length === 0) return [];
  }
  return processesWithHome(home);
}

/** Waits (at most `ms`) until `check()` holds. */
async function until(check, ms = 10_000, what = 'the condition') {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    if (check()) return;
  }
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

module.exports = { loadSdk, sdkClient, overNetwork, startAcp, noneLeft, until, BIN };
