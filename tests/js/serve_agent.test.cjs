// The door: serveAgent serving an ACP agent over Streamable HTTP and
// WebSocket on one URL, and every refusal of its security model beside a
// positive control that succeeds: the bearer token (401 without it or with
// a wrong one, never from the URL), a foreign Origin or Host (403), an
// over-size message (413; a WebSocket closed 1009), too many connections
// (503), an idle connection closed (HTTP: no traffic; WebSocket: no pong),
// a WebSocket without the token or from a foreign origin that never opens,
// a client's stdio MCP servers (refused unless allowClientMcp), a cwd
// outside the server's folder (its links resolved). The agent behind it is
// the scripted stdio agent of tests/acp/client_agent.mjs (a peer for our
// server, never a stand-in for a real agent's output); the clients are the
// ACP SDK's own, `ws`, and raw http requests. Everything listens on
// 127.0.0.1 and is stopped by the test.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');

const AGENT = path.join(__dirname, '..', 'acp', 'client_agent.mjs');
const TIMEOUT_MS = 60_000;
const TOKEN = 'test-token_0123456789.abcdefXYZ~';
const SECRET = 'env-secret-value-4f1d9c';

async function setUp(t, more = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'serve-agent-')));
  fs.mkdirSync(path.join(dir, 'work'));
  const log = path.join(dir, 'agent.jsonl');
  const lines = [];
  const server = await pkg.serveAgent({
    agent: { command: process.execPath, args: [AGENT], env: { ...process.env, CLIENT_AGENT_LOG: log, MY_API_KEY: SECRET } },
    cd: path.join(dir, 'work'),
    listen: { port: 0 },
    token: TOKEN,
    logger: { info: (m) => lines.push(m), warn: (m) => lines.push(m) },
    ...more,
  });
  t.after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const url = new URL(server.url);
  return { dir, cd: path.join(dir, 'work'), log, lines, server, url, port: Number(url.port) };
}

/** A raw request: resolves `{ status, headers, body }`. */
function request(ctx, { method = 'POST', headers = {}, body, target = ctx.url.pathname } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: ctx.port, method, path: target, headers: { host: `127.0.0.1:${ctx.port}`, ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body !== undefined) req.end(typeof body === 'string' ? body : JSON.stringify(body));
    else req.end();
  });
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } };
const auth = (token = TOKEN) => ({ authorization: `Bearer ${token}` });
const json = { 'content-type': 'application/json' };

/** A raw initialize with `headers`: its response. */
const initialize = (ctx, headers = auth(), more = {}) => request(ctx, { headers: { ...json, ...headers }, body: INITIALIZE, ...more });

/** The ACP SDK's client over `stream`: `{ request(method, params), close() }`. */
async function sdkClient(stream) {
  const acp = await import('@agentclientprotocol/sdk');
  const updates = [];
  const client = acp.client({ name: 'door-test' }).onNotification('session/update', ({ params }) => {
    updates.push(params);
  });
  let ctx;
  let release;
  const done = new Promise((resolve) => {
    release = resolve;
  });
  const ready = new Promise((resolve, reject) => {
    // Ends (or fails, when the server closes the connection) once the test lets go.
    Promise.resolve(
      client.connectWith(stream, async (c) => {
        ctx = c;
        resolve();
        await done;
      }),
    ).catch(reject);
  });
  await ready;
  return { request: (method, params) => ctx.request(method, params), updates, close: release };
}

async function httpClient(ctx, headers = auth()) {
  const { createHttpStream } = await import('@agentclientprotocol/sdk/experimental/http-client');
  return sdkClient(createHttpStream(ctx.server.url, { headers }));
}

async function wsClient(ctx, options = {}) {
  const { createWebSocketStream } = await import('@agentclientprotocol/sdk/experimental/ws-client');
  const { WebSocket } = await import('ws');
  return sdkClient(createWebSocketStream(ctx.server.url.replace(/^http/, 'ws'), { WebSocket, headers: auth(), ...options }));
}

/** Opens a `ws` socket to the server; resolves `{ ws, opened, status, protocol }` once it opened or was refused. */
async function openSocket(ctx, { protocols, headers = {}, ...options } = {}) {
  const { WebSocket } = await import('ws');
  const ws = new WebSocket(`ws://127.0.0.1:${ctx.port}${ctx.url.pathname}`, protocols, { headers, ...options });
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ ws, opened: true, protocol: ws.protocol }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ ws, opened: false, status: res.statusCode, challenge: res.headers['www-authenticate'] });
      res.resume();
    });
    ws.once('error', () => resolve({ ws, opened: false }));
  });
}

/** Resolves once `ws` closes: its close code. */
const closedCode = (ws) => new Promise((resolve) => ws.once('close', (code) => resolve(code)));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid, ms = 10_000) {
  for (let waited = 0; alive(pid) && waited < ms; waited += 50) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

/** The agent's process id, from the session ids the scripted agent makes. */
const pidOf = (sessionId) => Number(/client-session-(\d+)-/.exec(sessionId)[1]);

test('the bearer token: 200 with it, 401 without it, with a wrong one, or in the URL', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t);
  assert.equal(ctx.url.hostname, '127.0.0.1', 'listens on 127.0.0.1 unless told');
  const ok = await initialize(ctx);
  assert.equal(ok.status, 200, ok.body);
  assert.equal(JSON.parse(ok.body).result.protocolVersion, 1);
  assert.ok(ok.headers['acp-connection-id']);
  for (const headers of [{}, auth(`${TOKEN}x`), auth(TOKEN.slice(0, -1)), { authorization: `Basic ${TOKEN}` }]) {
    const refused = await initialize(ctx, headers);
    assert.equal(refused.status, 401, JSON.stringify(headers));
    assert.equal(refused.headers['www-authenticate'], 'Bearer');
    assert.equal(refused.headers['access-control-allow-origin'], undefined, 'no CORS');
  }
  const inUrl = await initialize(ctx, {}, { target: `${ctx.url.pathname}?token=${TOKEN}` });
  assert.equal(inUrl.status, 401, 'never a token in a URL');
  // The path, after the token.
  assert.equal((await initialize(ctx, auth(), { target: '/elsewhere' })).status, 404);
  // Nothing of the token in a reply or the log.
  for (const line of ctx.lines) assert.ok(!line.includes(TOKEN), line);
  assert.ok(ctx.lines.some((l) => /refused a HTTP request .*401/.test(l)), ctx.lines.join('\n'));
});

test('a request from a foreign Origin or for a foreign Host is refused; a listed one is not', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t, { origins: ['http://localhost:5173'], allowedHosts: ['agents.internal'] });
  assert.equal((await initialize(ctx, { ...auth(), origin: 'http://localhost:5173' })).status, 200);
  for (const origin of ['http://evil.example', 'null', 'http://localhost:5174']) {
    const refused = await initialize(ctx, { ...auth(), origin });
    assert.equal(refused.status, 403, origin);
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
  }
  // An OPTIONS preflight from a foreign page learns nothing either.
  assert.equal((await request(ctx, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } })).status, 403);
  for (const host of [`localhost:${ctx.port}`, `[::1]:${ctx.port}`, 'agents.internal']) {
    assert.equal((await initialize(ctx, { ...auth(), host })).status, 200, host);
  }
  for (const host of [`evil.example:${ctx.port}`, 'rebound.attacker.test', `127.0.0.1:${ctx.port + 1}`]) {
    assert.equal((await initialize(ctx, { ...auth(), host })).status, 403, host);
  }
});

test('a message over the limit is refused (413; a WebSocket is closed 1009); one under it passes', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t, { limits: { maxMessageBytes: 4096 } });
  const padded = (n) => JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, _meta: { pad: 'x'.repeat(n) } } });
  assert.equal((await request(ctx, { headers: { ...json, ...auth() }, body: padded(3000) })).status, 200);
  assert.equal((await request(ctx, { headers: { ...json, ...auth() }, body: padded(5000) })).status, 413);
  const small = await openSocket(ctx, { headers: auth() });
  assert.ok(small.opened);
  const answered = new Promise((resolve) => small.ws.once('message', (m) => resolve(JSON.parse(m))));
  small.ws.send(padded(3000));
  assert.equal((await answered).id, 1, 'a message under the bound is answered');
  const big = await openSocket(ctx, { headers: auth() });
  const code = closedCode(big.ws);
  big.ws.send(padded(5000));
  assert.equal(await code, 1009);
  small.ws.close();
});

test('connections past the limit are refused (503) until one closes', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t, { limits: { maxConnections: 1 } });
  const first = await initialize(ctx);
  assert.equal(first.status, 200);
  const id = first.headers['acp-connection-id'];
  assert.equal((await initialize(ctx)).status, 503);
  const socket = await openSocket(ctx, { headers: auth() });
  assert.equal(socket.opened, false);
  assert.equal(socket.status, 503);
  // A request on the open connection still passes.
  const note = { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'none' } };
  assert.equal((await request(ctx, { headers: { ...json, ...auth(), 'acp-connection-id': id, 'acp-session-id': 'none' }, body: note })).status, 202);
  assert.equal((await request(ctx, { method: 'DELETE', headers: { ...auth(), 'acp-connection-id': id } })).status, 202);
  let again;
  for (let i = 0; i < 100; i += 1) {
    again = await initialize(ctx);
    if (again.status === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(again.status, 200, 'room again once the first closed');
});

test('an idle connection is closed: HTTP without traffic, a WebSocket without a pong; a live one stays', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t, { limits: { idleTimeout: 0.4 } });
  // HTTP: used within the bound, it stays; left alone, it goes, with its agent.
  const client = await httpClient(ctx);
  await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await client.request('session/new', { cwd: ctx.cd, mcpServers: [] });
  for (let i = 0; i < 4; i += 1) {
    await new Promise((r) => setTimeout(r, 150));
    const turn = await client.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    assert.equal(turn.stopReason, 'end_turn', 'still open after more than the bound in all');
  }
  assert.ok(await gone(pidOf(sessionId)), 'closed once idle, and its agent with it');
  await assert.rejects(client.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'late' }] }));
  client.close();
  // WebSocket: a client that answers pings stays; one that does not is closed.
  const live = await openSocket(ctx, { headers: auth() });
  const mute = await openSocket(ctx, { headers: auth(), autoPong: false });
  assert.ok(live.opened && mute.opened);
  const muteClosed = closedCode(mute.ws);
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal(live.ws.readyState, 1, 'a client that answers pings is kept');
  assert.equal(await muteClosed, 1006, 'terminated');
  live.ws.close();
});

test('a WebSocket opens with the token (header, or subprotocol beside acp); without it or from a foreign origin it never opens', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t, { origins: ['http://localhost:5173'] });
  const browser = await openSocket(ctx, { protocols: ['acp', `bearer.${TOKEN}`], origin: 'http://localhost:5173' });
  assert.equal(browser.opened, true);
  assert.equal(browser.protocol, 'acp', 'acp selected, never the token');
  browser.ws.close();
  const none = await openSocket(ctx, { protocols: ['acp'] });
  assert.deepEqual([none.opened, none.status, none.challenge], [false, 401, 'Bearer']);
  const wrong = await openSocket(ctx, { protocols: ['acp', `bearer.${TOKEN}x`] });
  assert.deepEqual([wrong.opened, wrong.status], [false, 401]);
  const foreign = await openSocket(ctx, { protocols: ['acp', `bearer.${TOKEN}`], origin: 'http://evil.example' });
  assert.deepEqual([foreign.opened, foreign.status], [false, 403]);
  const noAcp = await openSocket(ctx, { protocols: [`bearer.${TOKEN}`] });
  assert.deepEqual([noAcp.opened, noAcp.status], [false, 400]);
  // The SDK's own clients, both transports, a whole turn each.
  for (const open of [wsClient, httpClient]) {
    const client = await open(ctx);
    const init = await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(init.protocolVersion, 1);
    const { sessionId } = await client.request('session/new', { cwd: ctx.cd, mcpServers: [] });
    const turn = await client.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    assert.equal(turn.stopReason, 'end_turn');
    assert.ok(client.updates.some((u) => u.update?.content?.text === 'Hello from turn 1'));
    client.close();
  }
});

test("a client's stdio MCP servers are refused unless allowed; a cwd outside the server's folder is refused", { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t);
  const client = await wsClient(ctx);
  await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const stdio = { name: 'probe', command: '/bin/sh', args: ['-c', 'touch /tmp/should-not-run'], env: [] };
  const web = { type: 'http', name: 'web', url: 'http://127.0.0.1:9/mcp', headers: [] };
  await assert.rejects(client.request('session/new', { cwd: ctx.cd, mcpServers: [web, stdio] }), (err) => err.code === -32602 && /mcpServers\[1\] \("probe"\) is an MCP server over stdio/.test(err.message));
  const ok = await client.request('session/new', { cwd: ctx.cd, mcpServers: [web] });
  assert.ok(ok.sessionId, 'an http MCP server passes');
  // The cwd: inside passes; outside, or a link inside that leads out, is refused.
  fs.mkdirSync(path.join(ctx.cd, 'app'));
  fs.symlinkSync(os.tmpdir(), path.join(ctx.cd, 'out'));
  assert.ok((await client.request('session/new', { cwd: path.join(ctx.cd, 'app'), mcpServers: [] })).sessionId);
  for (const cwd of [os.tmpdir(), path.join(ctx.cd, 'out'), path.join(ctx.cd, '..')]) {
    await assert.rejects(client.request('session/new', { cwd, mcpServers: [] }), (err) => err.code === -32602 && /params\.cwd must lie inside the folder this server works in/.test(err.message), cwd);
  }
  await assert.rejects(client.request('session/load', { sessionId: ok.sessionId, cwd: os.tmpdir(), mcpServers: [] }), (err) => err.code === -32602);
  const sent = fs.readFileSync(ctx.log, 'utf8');
  assert.ok(!sent.includes('should-not-run') && !sent.includes(os.tmpdir() + '"'), 'no refused request reached the agent');
  client.close();

  const allowing = await setUp(t, { allowClientMcp: true });
  const other = await httpClient(allowing);
  await other.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await other.request('session/new', { cwd: allowing.cd, mcpServers: [stdio] });
  assert.ok(sessionId, 'allowed with allowClientMcp');
  other.close();
});

test('the token: generated (32 random bytes, base64url) when not given; a given one is checked and never shown', { timeout: TIMEOUT_MS }, async (t) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'serve-agent-')));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const agent = { command: process.execPath, args: [AGENT] };
  const a = await pkg.serveAgent({ agent, cd: dir, listen: { port: 0 } });
  const b = await pkg.serveAgent({ agent, cd: dir, listen: { port: 0 } });
  try {
    assert.match(a.token, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a.token, b.token);
    assert.ok(!a.url.includes(a.token));
  } finally {
    await a.close();
    await b.close();
  }
  const secret = 'too short!';
  await assert.rejects(pkg.serveAgent({ agent, cd: dir, token: secret }), (err) => err.code === 'INVALID_INPUT' && /options\.token must be at least 16 characters/.test(err.message) && !err.message.includes(secret));
  await assert.rejects(pkg.serveAgent({ agent, cd: path.join(dir, 'missing') }), (err) => err.code === 'INVALID_INPUT' && /options\.cd does not exist/.test(err.message));
  await assert.rejects(pkg.serveAgent({ agent: { args: [] }, cd: dir }), (err) => err.code === 'INVALID_INPUT' && /options\.agent\.command/.test(err.message));
  await assert.rejects(pkg.serveAgent({ agent, cd: dir, origins: ['http://x/path'] }), (err) => err.code === 'INVALID_INPUT' && /options\.origins\[0\]/.test(err.message));
});

test('close() stops the server and every agent it started', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t);
  const client = await wsClient(ctx);
  await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await client.request('session/new', { cwd: ctx.cd, mcpServers: [] });
  assert.ok(alive(pidOf(sessionId)));
  await ctx.server.close();
  assert.ok(await gone(pidOf(sessionId), 3000), 'its agent is gone when close() resolves');
  await assert.rejects(initialize(ctx), (err) => err.code === 'ECONNREFUSED');
  client.close();
  // Nothing of the environment the agent ran with reached the client or the log.
  for (const line of ctx.lines) assert.ok(!line.includes(SECRET) && !line.includes(TOKEN), line);
});
