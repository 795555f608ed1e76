// This package's conversations served to ACP clients no one here wrote
// (the ACP SDK's own client app), against a scripted agent of our own
// (tests/acp/client_agent.mjs, on the SDK's agent side, given as an agent
// definition): `agent-context acp` on stdio (initialize, new, prompt, list,
// a new process loading the conversation of an agent that cannot load its
// own sessions, closing stdin), `serveConversations` over Streamable HTTP
// and WebSocket (the door's refusals — token, Origin, Host, message size,
// idle time — next to their positive controls), `agent-context serve`,
// several clients on one conversation (every update live, once, with one
// `seq`; a client back `after` its last seq misses nothing and sees
// nothing twice; a running turn's text on load), failover with the new
// agent's state and a notice, and the agent's requests going to the client
// that prompted. The real agents are in serve_conversations_live.test.cjs.
'use strict';
const { after, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');
const { overNetwork, startAcp, noneLeft, until } = require('./served_clients.cjs');

const AGENT = path.join(__dirname, 'client_agent.mjs');
const TIMEOUT_MS = 90_000;

/** Every folder a test made, removed once the file's tests are done. */
const made = [];
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'served-')));
  made.push(dir);
  const home = path.join(dir, 'home');
  const work = path.join(dir, 'work');
  fs.mkdirSync(home);
  fs.mkdirSync(work);
  const log = path.join(dir, 'sent.jsonl');
  const definition = (env = {}) => ({ id: 'client-agent', name: 'Client features agent', command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: log, ...env }, protocol: 'acp' });
  return { dir, home, work, log, definition, store: path.join(dir, 'store'), env: { ...process.env, HOME: home } };
}

const logged = (ctx, method) =>
  fs.existsSync(ctx.log)
    ? fs.readFileSync(ctx.log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((m) => m.method === method)
    : [];
const prompt = (text) => [{ type: 'text', text }];
const own = (update) => update._meta['agent-context'];

test('agent-context acp on stdio: initialize, new, a prompt, the list; a new process loads the conversation its agent cannot load, and the next prompt carries it', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const args = ['--agent', JSON.stringify(ctx.definition()), '--store', ctx.store, '--cd', ctx.dir];
  const first = startAcp(args, ctx.env);
  const a = await first.client({ caps: { session: { notices: {} } } });
  assert.equal(a.init.agentCapabilities.loadSession, true);
  assert.deepEqual(a.init.agentCapabilities.sessionCapabilities, { list: {}, resume: {}, close: {}, fork: {} });
  assert.equal(a.init.agentInfo.name, 'agent-context');
  const { sessionId, _meta } = await a.agent.request('session/new', { cwd: ctx.work, mcpServers: [] });
  assert.match(sessionId, /^[0-9a-f-]{36}$/, 'the served session id is the conversation id');
  assert.equal(_meta['agent-context'].agentType, 'client-agent');
  const agentSession = _meta['agent-context'].sessionId;
  const answer = await a.agent.request('session/prompt', { sessionId, prompt: prompt('Remember the word kestrel.') });
  assert.equal(answer.stopReason, 'end_turn');
  assert.equal(a.text(sessionId), 'Hello from turn 1');
  assert.deepEqual(a.of(sessionId).map((u) => [own(u).turn, own(u).sessionId]), [[1, agentSession]]);
  assert.equal(answer._meta['agent-context'].seq, a.seqs(sessionId).at(-1));
  const listed = await a.agent.request('session/list', {});
  assert.deepEqual(listed.sessions.map((s) => [s.sessionId, s.cwd, s.title]), [[sessionId, ctx.work, 'Remember the word kestrel.']]);
  assert.equal(listed.sessions[0]._meta['agent-context'].turns, 1);
  // Closing its stdin ends it and its agent.
  first.child.stdin.end();
  assert.deepEqual(await first.exited, { code: 0, signal: null, stderr: first.stderr() });
  assert.deepEqual(await noneLeft(ctx.home), []);

  const second = startAcp(args, ctx.env);
  const b = await second.client();
  const loaded = await b.agent.request('session/load', { sessionId, cwd: ctx.work, mcpServers: [] });
  assert.equal(loaded._meta['agent-context'].turn, 1);
  assert.deepEqual(
    b.of(sessionId).map((u) => [u.update.sessionUpdate, u.update.content?.text]),
    [['user_message_chunk', 'Remember the word kestrel.'], ['agent_message_chunk', 'Hello from turn 1']],
    'the recorded conversation, replayed',
  );
  const next = await b.agent.request('session/prompt', { sessionId, prompt: prompt('What was the word?') });
  assert.equal(next.stopReason, 'end_turn');
  const sent = logged(ctx, 'session/prompt').at(-1).params.prompt.map((p) => p.text).join('');
  assert.ok(sent.includes('kestrel') && sent.includes('What was the word?'), `the agent, which cannot load, got the conversation: ${sent}`);
  assert.equal(next._meta['agent-context'].turn, 2);
  // An id the store does not have.
  await assert.rejects(b.agent.request('session/load', { sessionId: 'no-such-conversation', cwd: ctx.work, mcpServers: [] }), (err) => err.code === -32002);
  // A cwd outside --cd is refused before anything opens.
  await assert.rejects(b.agent.request('session/new', { cwd: os.tmpdir(), mcpServers: [] }), (err) => err.code === -32602);
  second.child.stdin.end();
  assert.equal((await second.exited).code, 0);
  assert.deepEqual(await noneLeft(ctx.home), []);
});

/** `serveConversations` on a free port with the scripted agent (and `more`), closed after `body`. */
async function serving(ctx, more, body) {
  const server = await pkg.serveConversations({
    agent: ctx.definition(),
    store: pkg.openSessionStore(ctx.store),
    sessionOptions: { cd: ctx.dir, timeout: 20, maxRetries: 0 },
    listen: { port: 0 },
    ...more,
  });
  const clients = [];
  try {
    await body(server, async (scheme, options) => {
      const client = await overNetwork(server.url.replace(/^http/, scheme), server.token, options);
      clients.push(client);
      return client;
    });
  } finally {
    for (const c of clients) c.close();
    await server.close();
  }
}

for (const scheme of ['http', 'ws']) {
  test(`serveConversations over ${scheme === 'ws' ? 'WebSocket' : 'Streamable HTTP'}: the SDK's client gets the reply`, { timeout: TIMEOUT_MS }, async () => {
    const ctx = setUp();
    await serving(ctx, {}, async (_server, connect) => {
      const c = await connect(scheme);
      const { sessionId } = await c.agent.request('session/new', { cwd: ctx.work, mcpServers: [] });
      // Beside that positive control: a client's MCP server over stdio (a command run on the server), and a cwd outside the server's folder, are refused.
      const stdio = { name: 'probe', command: process.execPath, args: ['-e', ''], env: [] };
      await assert.rejects(c.agent.request('session/new', { cwd: ctx.work, mcpServers: [stdio] }), (err) => err.code === -32602 && /MCP server over stdio/.test(err.message));
      await assert.rejects(c.agent.request('session/new', { cwd: os.tmpdir(), mcpServers: [] }), (err) => err.code === -32602 && /must lie inside/.test(err.message));
      for (const n of [1, 2]) {
        const r = await c.agent.request('session/prompt', { sessionId, prompt: prompt(`Question ${n}`) });
        assert.equal(r.stopReason, 'end_turn');
      }
      assert.equal(c.text(sessionId), 'Hello from turn 1Hello from turn 2');
      // Each prompt is an update too (seq 1 and 3), sent to the other clients, never back to its own.
      assert.deepEqual(c.seqs(sessionId), [2, 4]);
    });
  });
}

test('the door: raw requests need the token, a listed Origin and the server’s Host; a WebSocket without them never opens', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  await serving(ctx, { origins: ['http://localhost:5173'] }, async (server) => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    const post = (headers) => fetch(server.url, { method: 'POST', body: init, headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } });
    const bearer = { Authorization: `Bearer ${server.token}` };
    const ok = await post(bearer);
    assert.equal(ok.status, 200, 'the positive control');
    assert.match(await ok.text(), /"agent-context"/);
    assert.equal((await post({})).status, 401);
    assert.equal((await post({ Authorization: `Bearer ${server.token.slice(0, -1)}x` })).status, 401);
    assert.equal((await post({ ...bearer, Origin: 'http://localhost:5173' })).status, 200, 'a listed origin');
    assert.equal((await post({ ...bearer, Origin: 'http://evil.example' })).status, 403);
    const http = require('node:http');
    const withHost = (host) =>
      new Promise((resolve, reject) => {
        const req = http.request(server.url, { method: 'POST', headers: { ...bearer, Host: host, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
        req.end(init);
      });
    assert.equal(await withHost(new URL(server.url).host), 200);
    assert.equal(await withHost(`attacker.example:${new URL(server.url).port}`), 403);
    const { WebSocket } = require('ws');
    const ws = server.url.replace(/^http/, 'ws');
    const opens = (protocols, headers) =>
      new Promise((resolve) => {
        const socket = new WebSocket(ws, protocols, { headers });
        socket.once('open', () => {
          socket.close();
          resolve('open');
        });
        socket.once('unexpected-response', (_req, res) => resolve(res.statusCode));
        socket.once('error', () => resolve('error'));
      });
    assert.equal(await opens(['acp', `bearer.${server.token}`]), 'open', 'a browser-like client with the token');
    assert.equal(await opens(['acp', `bearer.${server.token}`], { Origin: 'http://localhost:5173' }), 'open');
    assert.equal(await opens(['acp']), 401);
    assert.equal(await opens(['acp', 'bearer.wrongwrongwrongwrong']), 401);
    assert.equal(await opens(['acp', `bearer.${server.token}`], { Origin: 'http://evil.example' }), 403);
  });
});

test('two clients on one conversation: the second sees the first’s turn live, once, with the same seqs; a client back after its last seq misses nothing', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  await serving(ctx, {}, async (_server, connect) => {
    const a = await connect('http', { caps: { session: { notices: {} } } });
    const b = await connect('ws', { caps: { session: { notices: {} } } });
    const { sessionId } = await a.agent.request('session/new', { cwd: ctx.work, mcpServers: [] });
    await a.agent.request('session/prompt', { sessionId, prompt: prompt('One') });
    const loaded = await b.agent.request('session/load', { sessionId, cwd: ctx.work, mcpServers: [] });
    const epoch = loaded._meta['agent-context'].epoch;
    assert.deepEqual(b.of(sessionId).map((u) => u.update.sessionUpdate), ['user_message_chunk', 'agent_message_chunk'], 'the load replays the turn');
    assert.deepEqual(b.seqs(sessionId), [1, 2]);
    await a.agent.request('session/prompt', { sessionId, prompt: prompt('PLAN two') });
    await until(() => b.text(sessionId).includes('Planned.'), 5_000, "B to see A's turn");
    assert.deepEqual(
      b.of(sessionId).slice(2).map((u) => [own(u).seq, u.update.sessionUpdate]),
      [[3, 'user_message_chunk'], [4, 'plan'], [5, 'agent_message_chunk']],
      'the second client sees the prompt, the plan and the text live',
    );
    // A (the prompter) was not sent its own prompt back.
    assert.deepEqual(a.of(sessionId).map((u) => [own(u).seq, u.update.sessionUpdate]), [[2, 'agent_message_chunk'], [4, 'plan'], [5, 'agent_message_chunk']]);
    // A third client, back after seq 4 of this epoch: seq 5 only.
    const c = await connect('ws');
    const back = await c.agent.request('session/resume', { sessionId, cwd: ctx.work, mcpServers: [], _meta: { 'agent-context': { after: 4, epoch } } });
    assert.equal(back._meta['agent-context'].seq, 5);
    assert.deepEqual(c.seqs(sessionId), [5]);
    // A resume without `after` replays nothing; a load with an old epoch replays all, said by `reset`.
    const d = await connect('http');
    await d.agent.request('session/resume', { sessionId, cwd: ctx.work, mcpServers: [] });
    assert.deepEqual(d.seqs(sessionId), []);
    const e = await connect('http');
    const reset = await e.agent.request('session/load', { sessionId, cwd: ctx.work, mcpServers: [], _meta: { 'agent-context': { after: 3, epoch: 'another' } } });
    assert.equal(reset._meta['agent-context'].reset, true);
    assert.deepEqual(e.seqs(sessionId), [1, 2, 3, 4, 5]);
    // Each client's updates: in order, none twice.
    for (const client of [a, b, c, d, e]) {
      const seqs = client.seqs(sessionId);
      assert.deepEqual(seqs, [...new Set(seqs)].sort((x, y) => x - y));
    }
  });
});

test('a running turn: a client that loads it gets its text so far, then the rest live; cancel ends it', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  await serving(ctx, {}, async (_server, connect) => {
    const a = await connect('ws');
    const b = await connect('ws');
    const { sessionId } = await a.agent.request('session/new', { cwd: ctx.work, mcpServers: [] });
    const hanging = a.agent.request('session/prompt', { sessionId, prompt: prompt('HANG until cancelled') });
    await until(() => a.text(sessionId) === 'Working on it', 10_000, 'the turn to start answering');
    await b.agent.request('session/load', { sessionId, cwd: ctx.work, mcpServers: [] });
    assert.equal(b.text(sessionId), 'Working on it', 'streamed text replayed from memory');
    // A prompt of B's waits for A's turn; A cancels its own turn.
    const queued = b.agent.request('session/prompt', { sessionId, prompt: prompt('After the hang') });
    await a.agent.notify('session/cancel', { sessionId });
    assert.equal((await hanging).stopReason, 'cancelled');
    assert.equal((await queued).stopReason, 'end_turn');
    await until(() => a.text(sessionId).endsWith('Hello from turn 2'), 5_000, 'A to see B’s turn');
  });
});

test('failover: a turn over quota goes on with the fallback; the clients get its state and a notice, never the failed text as reply', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const over = { ...ctx.definition({ CLIENT_AGENT_OVER_QUOTA: 'text' }), id: 'quota-agent' };
  await serving(ctx, { agent: over, fallback: [ctx.definition({ CLIENT_AGENT_PLAIN: '1' })] }, async (_server, connect) => {
    const a = await connect('ws', { caps: { session: { notices: {} } } });
    const plain = await connect('http');
    const { sessionId } = await a.agent.request('session/new', { cwd: ctx.work, mcpServers: [] });
    await plain.agent.request('session/load', { sessionId, cwd: ctx.work, mcpServers: [] });
    const r = await a.agent.request('session/prompt', { sessionId, prompt: prompt('Hi there') });
    assert.equal(r.stopReason, 'end_turn');
    assert.equal(r._meta['agent-context'].handedOffTo.agentType, 'client-agent');
    const kinds = a.of(sessionId).map((u) => [u.update.sessionUpdate, u.update.title ?? u.update.content?.text ?? null, own(u).agentType]);
    assert.deepEqual(kinds, [
      ['agent_message_chunk', 'API Error: Request rejected (429) · rate limited', 'quota-agent'],
      ['notice', 'Attempt 1 failed: the text it streamed is not part of the reply', 'quota-agent'],
      ['notice', 'The conversation went on with client-agent', 'quota-agent'],
      ['config_option_update', null, 'client-agent'],
      ['available_commands_update', null, 'client-agent'],
      ['agent_message_chunk', 'Hello from turn 1', 'client-agent'],
    ]);
    // A client that takes no notices is sent the state and the text, no notice.
    await until(() => plain.text(sessionId).endsWith('Hello from turn 1'), 5_000, 'the plain client');
    assert.ok(!plain.of(sessionId).some((u) => u.update.sessionUpdate === 'notice'));
    assert.equal(plain.of(sessionId).filter((u) => u.update.sessionUpdate === 'available_commands_update').length, 1);
  });
});

test('modes, options, a fork and close, served: each reaches the agent, a mode it does not offer is refused, a closed conversation takes no prompt', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  await serving(ctx, { agent: ctx.definition({ CLIENT_AGENT_MODES: '1' }) }, async (_server, connect) => {
    const a = await connect('ws');
    const opened = await a.agent.request('session/new', { cwd: ctx.work, mcpServers: [] });
    const { sessionId } = opened;
    assert.deepEqual(opened.modes, { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] });
    assert.equal(opened.configOptions[0].id, 'fast');
    await a.agent.request('session/prompt', { sessionId, prompt: prompt('One') });

    // A mode: set on the agent's own session, and what a client loading it next is told.
    assert.deepEqual(await a.agent.request('session/set_mode', { sessionId, modeId: 'code' }), {});
    const setModes = logged(ctx, 'session/set_mode');
    assert.deepEqual(setModes.map((m) => m.params.modeId), ['code']);
    assert.notEqual(setModes[0].params.sessionId, sessionId, "the agent's own session id, not the conversation's");
    await assert.rejects(a.agent.request('session/set_mode', { sessionId, modeId: 'nope' }), (err) => /offers no mode "nope"/.test(err.message));
    assert.equal(logged(ctx, 'session/set_mode').length, 1, 'a mode it does not offer never reaches the agent');
    const b = await connect('http');
    const loaded = await b.agent.request('session/load', { sessionId, cwd: ctx.work, mcpServers: [] });
    assert.equal(loaded.modes.currentModeId, 'code');

    // An option: set, and the agent's options after it answered.
    const set = await a.agent.request('session/set_config_option', { sessionId, configId: 'fast', type: 'boolean', value: true });
    assert.deepEqual(set.configOptions.map((o) => [o.id, o.currentValue]), [['fast', true]], "the agent's options as it answered");
    assert.deepEqual(logged(ctx, 'session/set_config_option').map((m) => [m.params.configId, m.params.value]), [['fast', true]]);

    // A fork: a new conversation the forking client holds, with the turn so far; the first goes on apart.
    const fork = await a.agent.request('session/fork', { sessionId, cwd: ctx.work, mcpServers: [] });
    assert.notEqual(fork.sessionId, sessionId);
    assert.equal(logged(ctx, 'session/fork').length, 1, "the agent's own fork");
    const forked = await a.agent.request('session/prompt', { sessionId: fork.sessionId, prompt: prompt('Two on the fork') });
    assert.equal(forked.stopReason, 'end_turn');
    assert.equal(a.text(fork.sessionId), 'Hello from turn 2');
    const listed = await b.agent.request('session/list', {});
    assert.deepEqual(new Set(listed.sessions.map((x) => x.sessionId)), new Set([sessionId, fork.sessionId]));

    // Close: the fork's agent session closed once nobody holds it; a prompt after it is refused.
    assert.deepEqual(await a.agent.request('session/close', { sessionId: fork.sessionId }), {});
    await until(() => logged(ctx, 'session/close').length === 1, 5_000, "the fork's agent session closed");
    await assert.rejects(a.agent.request('session/prompt', { sessionId: fork.sessionId, prompt: prompt('Three') }), (err) => err.code === -32002);
    // The first conversation, still held by both, goes on.
    const three = await b.agent.request('session/prompt', { sessionId, prompt: prompt('Three') });
    assert.equal(three.stopReason, 'end_turn');
    assert.ok(b.text(sessionId).endsWith('Hello from turn 2'));
  });
});

test("the agent's elicitation goes to the client that prompted, and its answer back", { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  await serving(ctx, {}, async (_server, connect) => {
    const asked = [];
    const a = await connect('ws', { caps: { elicitation: { form: {} } }, handlers: { elicitation: (params) => (asked.push(params), { action: 'accept', content: { db: 'sqlite' } }) } });
    const b = await connect('ws', { caps: { elicitation: { form: {} } }, handlers: { elicitation: () => assert.fail('B did not prompt') } });
    const { sessionId } = await a.agent.request('session/new', { cwd: ctx.work, mcpServers: [] });
    await b.agent.request('session/load', { sessionId, cwd: ctx.work, mcpServers: [] });
    await a.agent.request('session/prompt', { sessionId, prompt: prompt('ASK me') });
    assert.equal(asked.length, 1);
    assert.equal(asked[0].sessionId, sessionId, 'the request names the conversation');
    assert.equal(a.text(sessionId), 'You chose sqlite.');
    // A client that takes no elicitation: declined for it.
    const c = await connect('http');
    await c.agent.request('session/load', { sessionId, cwd: ctx.work, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId, prompt: prompt('ASK again') });
    assert.ok(c.text(sessionId).endsWith('Elicitation: decline'));
  });
});

test('limits: a message over the bound is refused (413) and one under it answered; a WebSocket that answers no ping is closed, one that does is kept', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  await serving(ctx, { limits: { maxMessageBytes: 4096, idleTimeout: 0.4 } }, async (server) => {
    const padded = (n) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {}, _meta: { pad: 'x'.repeat(n) } } });
    const post = (body) => fetch(server.url, { method: 'POST', body, headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } });
    assert.equal((await post(padded(3000))).status, 200, 'the positive control');
    assert.equal((await post(padded(5000))).status, 413);
    const { WebSocket } = require('ws');
    const socket = (autoPong) =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(server.url.replace(/^http/, 'ws'), ['acp', `bearer.${server.token}`], { autoPong });
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    const live = await socket(true);
    const mute = await socket(false);
    const muteClosed = new Promise((resolve) => mute.once('close', (code) => resolve(code)));
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(live.readyState, WebSocket.OPEN, 'a client that answers pings is kept');
    assert.equal(await muteClosed, 1006, 'one that does not is terminated');
    live.close();
  });
});

test('agent-context serve: listens on 127.0.0.1, prints its URL and the token it made once; the token opens it, nothing else does; SIGTERM ends it and its agents', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const { spawn } = require('node:child_process');
  const { BIN } = require('./served_clients.cjs');
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--agent', JSON.stringify(ctx.definition()), '--store', ctx.store, '--cd', ctx.dir], { env: ctx.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    await until(() => /token: \S+\n/.test(out), 20_000, 'the URL and the token');
    const url = /agent-context serve: (http:\S+)/.exec(out)[1];
    const token = /token: (\S+)/.exec(out)[1];
    assert.equal(new URL(url).hostname, '127.0.0.1');
    assert.match(token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
    assert.equal(out.split(token).length, 2, 'the token is printed once');
    const c = await overNetwork(url.replace(/^http/, 'ws'), token);
    const { sessionId } = await c.agent.request('session/new', { cwd: ctx.work, mcpServers: [] });
    assert.equal((await c.agent.request('session/prompt', { sessionId, prompt: prompt('Hi') })).stopReason, 'end_turn');
    assert.equal(c.text(sessionId), 'Hello from turn 1');
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    const post = (headers) => fetch(url, { method: 'POST', body: init, headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } });
    assert.equal((await post({ Authorization: `Bearer ${token}` })).status, 200);
    assert.equal((await post({})).status, 401);
    c.close();
  } finally {
    child.kill('SIGTERM');
  }
  assert.deepEqual(await exited, { code: 0, signal: null });
  assert.deepEqual(await noneLeft(ctx.home), []);
});

test('openAgentSession joins a served conversation over a transport: its turns are the conversation’s, and another client sees them', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  await serving(ctx, {}, async (server, connect) => {
    const watcher = await connect('http');
    for (const scheme of ['ws', 'http']) {
      const session = await pkg.openAgentSession({ id: 'agent-context', name: 'agent-context' }, {
        cd: ctx.work,
        timeout: 20,
        transport: { url: server.url.replace(/^http/, scheme), headers: { Authorization: `Bearer ${server.token}` } },
      });
      try {
        const conversationId = session.sessionId;
        await watcher.agent.request('session/load', { sessionId: conversationId, cwd: ctx.work, mcpServers: [] });
        const turn = await session.prompt('Hi over the door');
        assert.equal(turn.success, true, JSON.stringify(turn.error));
        assert.equal(turn.reply.text, 'Hello from turn 1');
        await until(() => watcher.text(conversationId).endsWith('Hello from turn 1'), 5_000, 'the watcher to see the turn');
        assert.equal(watcher.text(conversationId, 'user_message_chunk'), 'Hi over the door');
      } finally {
        await session.close();
      }
    }
  });
});
