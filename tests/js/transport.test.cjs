// Joining an ACP agent served elsewhere (`transport`), against the scripted
// stdio agent of tests/acp/client_agent.mjs (a peer for our client, never a
// stand-in for a real agent's output) behind two servers: the ACP SDK's own
// (tests/acp/sdk_acp_server.mjs) and this package's serveAgent. Turns over
// Streamable HTTP and WebSocket, files and terminals not offered unless
// clientFs, a killed server a crash (process_error, transport_lost) and the
// next prompt connecting again — to an agent that cannot reopen the session,
// session_not_found, never a silent new one —, what cannot go with a
// transport refused, naming the field. (The same with a real agent, whose
// session goes on after a restart: tests/acp/transport_live.test.cjs.)
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');
const { startSdkServer } = require('../acp/served.cjs');

const AGENT = path.join(__dirname, '..', 'acp', 'client_agent.mjs');
const TIMEOUT_MS = 60_000;
const SCRIPTED = { id: 'scripted', name: 'Scripted agent' };

async function setUp(t) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'transport-')));
  const log = path.join(dir, 'agent.jsonl');
  const env = { ...process.env, CLIENT_AGENT_LOG: log };
  const servers = [];
  const sessions = [];
  t.after(async () => {
    for (const s of sessions) await s.close().catch(() => {});
    for (const s of servers) await s.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const ctx = {
    dir,
    log,
    sessions,
    start: async (port = 0) => {
      const server = await startSdkServer([process.execPath, AGENT], env, port);
      servers.push(server);
      return server;
    },
    open: async (options) => {
      const session = await pkg.openAgentSession(SCRIPTED, { cd: dir, timeout: 20, maxRetries: 0, ...options });
      sessions.push(session);
      return session;
    },
    logged: (method) =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
            .filter((m) => m.method === method)
        : [],
  };
  return ctx;
}

test('turns over Streamable HTTP and over WebSocket through the SDK\'s own server; files and terminals not offered', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t);
  const server = await ctx.start();
  for (const scheme of ['http', 'ws']) {
    const session = await ctx.open({ transport: { url: server.url(scheme) } });
    assert.ok(session.sessionId);
    for (const n of [1, 2]) {
      const turn = await session.prompt(`Hello ${n}`);
      assert.equal(turn.success, true, JSON.stringify(turn.error));
      assert.equal(turn.reply.text, `Hello from turn ${n}`);
      assert.equal(turn.stopReason, 'end_turn');
    }
    await session.close();
  }
  const inits = ctx.logged('initialize');
  assert.equal(inits.length, 2);
  for (const init of inits) {
    assert.deepEqual(init.params.clientCapabilities.fs, { readTextFile: false, writeTextFile: false });
    assert.equal(init.params.clientCapabilities.terminal, false);
  }
  // Offered with clientFs (cd is then this machine's folder).
  const session = await ctx.open({ transport: { url: server.url('ws') }, clientFs: true, terminals: true });
  await session.close();
  const last = ctx.logged('initialize').at(-1);
  assert.deepEqual(last.params.clientCapabilities.fs, { readTextFile: true, writeTextFile: true });
  assert.equal(last.params.clientCapabilities.terminal, true);
});

test('runAgent and openAgent over a transport: the same reply model', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t);
  const server = await ctx.start();
  const proc = await pkg.openAgent(SCRIPTED, { cd: ctx.dir, timeout: 20, transport: { url: server.url('http') } });
  try {
    const [a, b] = [await proc.newSession(), await proc.newSession()];
    assert.notEqual(a.sessionId, b.sessionId);
    assert.equal((await a.prompt('One')).reply.text, 'Hello from turn 1');
    assert.equal((await b.prompt('Two')).reply.text, 'Hello from turn 1');
    assert.equal(ctx.logged('initialize').length, 1, 'one connection holds both sessions');
  } finally {
    await proc.close();
  }
  const run = await pkg.runAgent(SCRIPTED, { prompt: 'Hi' }, { cd: ctx.dir, timeout: 20, transport: { url: server.url('ws') } });
  assert.equal(run.success, true, JSON.stringify(run.error));
  assert.equal(run.reply.text, 'Hello from turn 1');
  // A built-in agent type goes over ACP with a transport, whatever its default.
  const refused = await pkg.runAgent('claude-code', { prompt: 'Hi' }, { cd: ctx.dir, protocol: 'cli', transport: { url: server.url('http') } });
  assert.equal(refused.error.kind, 'invalid_params');
  assert.match(refused.error.message, /options\.protocol must be 'acp' with options\.transport/);
});

test('a killed server is a crash (process_error, transport_lost); the next prompt connects again and never opens a silent new session', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t);
  const server = await ctx.start();
  const session = await ctx.open({ transport: { url: server.url('http') } });
  const first = await session.prompt('First');
  assert.equal(first.success, true, JSON.stringify(first.error));
  const running = session.prompt('HANG until the server dies');
  for (let i = 0; i < 200 && ctx.logged('session/prompt').length < 2; i += 1) await new Promise((r) => setTimeout(r, 25));
  await server.kill();
  const crashed = await running;
  assert.equal(crashed.success, false);
  assert.equal(crashed.error.kind, 'process_error', JSON.stringify(crashed.error));
  assert.match(crashed.error.message, new RegExp(`^Scripted agent stopped: transport_lost: http://127\\.0\\.0\\.1:${server.port}/: `));
  // Started again on the same URL: the next prompt connects again; this
  // agent cannot load its sessions, so the session is not found.
  await ctx.start(server.port);
  const next = await session.prompt('Second');
  assert.equal(next.success, false);
  assert.equal(next.error.kind, 'session_not_found', JSON.stringify(next.error));
  assert.equal(ctx.logged('initialize').length, 2, 'connected again');
  assert.equal(ctx.logged('session/new').length, 1, 'no silent new session');
});

test('a server that cannot be reached, or that refuses the token, fails the open with what happened', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t);
  const server = await ctx.start();
  await server.kill();
  await assert.rejects(ctx.open({ transport: { url: server.url('ws') } }), (err) => {
    assert.equal(err.code, 'AGENT_ERROR');
    assert.equal(err.kind, 'process_error');
    assert.match(err.message, /transport_lost: ws:\/\/127\.0\.0\.1:\d+\/: could not connect: ECONNREFUSED/);
    return true;
  });
  // This package's own door, with its token: a positive control, then a wrong token.
  const door = await pkg.serveAgent({ agent: { command: process.execPath, args: [AGENT], env: { ...process.env, CLIENT_AGENT_LOG: ctx.log } }, cd: ctx.dir, listen: { port: 0 } });
  t.after(() => door.close());
  for (const scheme of ['http', 'ws']) {
    const url = door.url.replace(/^http/, scheme);
    const session = await ctx.open({ transport: { url, headers: { Authorization: `Bearer ${door.token}` } } });
    const turn = await session.prompt('Through the door');
    assert.equal(turn.reply.text, 'Hello from turn 1', JSON.stringify(turn.error));
    await session.close();
    await assert.rejects(ctx.open({ transport: { url, headers: { Authorization: `Bearer ${door.token}x` } } }), (err) => {
      assert.equal(err.kind, 'process_error');
      assert.match(err.message, /could not connect: .*401/);
      assert.ok(!err.message.includes(door.token), 'the token is in no message');
      return true;
    });
  }
});

test('what starts an agent here cannot go with a transport: INVALID_INPUT naming the field', { timeout: TIMEOUT_MS }, async (t) => {
  const ctx = await setUp(t);
  const transport = { url: 'ws://127.0.0.1:9/acp' };
  const cases = [
    [SCRIPTED, { command: '/bin/agent' }, /^options\.command cannot be used with options\.transport/],
    [SCRIPTED, { env: { A: 'b' } }, /^options\.env cannot be used with options\.transport/],
    [SCRIPTED, { host: { ssh: { host: 'build-1' } } }, /^options\.host cannot be used with options\.transport/],
    ['claude-code', { endpoint: { baseUrl: 'http://127.0.0.1:9', apiKey: 'k', model: 'm' } }, /^options\.endpoint cannot be used with options\.transport/],
    ['claude-code', { model: 'opus' }, /^options\.model cannot be used with options\.transport/],
    [{ id: 'x', command: 'agent' }, {}, /^agentType\.command cannot be used with options\.transport/],
    [SCRIPTED, { terminals: true }, /^options\.terminals: /],
    [SCRIPTED, { transport: { url: 'http://127.0.0.1:9/acp?token=abc' } }, /^options\.transport\.url must be an http, https, ws or wss URL/],
  ];
  for (const [agent, options, message] of cases) {
    await assert.rejects(pkg.openAgentSession(agent, { cd: ctx.dir, transport, ...options }), (err) => err.code === 'INVALID_INPUT' && message.test(err.message), JSON.stringify(options));
  }
  const run = await pkg.runAgent(SCRIPTED, { prompt: 'x' }, { cd: ctx.dir, transport, env: { A: 'b' } });
  assert.equal(run.error.kind, 'invalid_params');
  assert.match(run.error.message, /options\.env cannot be used with options\.transport/);
});

test('without the ACP SDK and ws installed: the package loads and runs, and joining or serving says what to install', { timeout: TIMEOUT_MS }, async (t) => {
  // The Node build copied outside the repository, where neither package can be found.
  const { execFileSync } = require('node:child_process');
  const moved = fs.mkdtempSync(path.join(os.tmpdir(), 'transport-moved-'));
  t.after(() => fs.rmSync(moved, { recursive: true, force: true }));
  const root = path.dirname(require.resolve('agent-context/package.json'));
  fs.cpSync(path.join(root, 'pkg', 'node'), path.join(moved, 'node'), { recursive: true });
  const script = `
    const pkg = require(${JSON.stringify(path.join(moved, 'node', 'agent_context.js'))});
    (async () => {
      const out = { assembled: pkg.assemble('claude-code', { contextMessages: [], currentMessage: 'hi' }).prompt.length > 0 };
      try { await pkg.openAgentSession({ id: 'scripted' }, { cd: ${JSON.stringify(moved)}, transport: { url: 'ws://127.0.0.1:9/acp' } }); }
      catch (err) { out.join = [err.code, err.kind, err.message]; }
      try { await pkg.serveAgent({ agent: { command: 'x' }, cd: ${JSON.stringify(moved)}, listen: { port: 0 } }); }
      catch (err) { out.serve = [err.code, err.message]; }
      process.stdout.write(JSON.stringify(out));
    })();`;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: moved, encoding: 'utf8', env: { ...process.env, AGENT_CONTEXT_WASM_DIR: path.join(root, 'pkg', 'web') } }));
  assert.equal(out.assembled, true);
  assert.deepEqual(out.join.slice(0, 2), ['AGENT_ERROR', 'spawn_failed']);
  assert.match(out.join[2], /options\.transport needs the packages @agentclientprotocol\/sdk .* npm install @agentclientprotocol\/sdk ws/);
  assert.equal(out.serve[0], 'INVALID_INPUT');
  assert.match(out.serve[1], /serving ACP needs the packages @agentclientprotocol\/sdk .* npm install @agentclientprotocol\/sdk ws/);
});
