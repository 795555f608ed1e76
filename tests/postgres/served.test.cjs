// `agent-context acp --store postgres://…` and `agent-context serve --store
// postgres://…` against a real PostgreSQL (./server.cjs, on 127.0.0.1):
// the command line's store is the database — a conversation served by one
// `acp` process is listed and read from the database, a second process
// loads it and goes on, and closing stdin ends each process (its pool of
// connections too); `serve` records there as well. The agent is the
// scripted ACP peer (tests/acp/client_agent.mjs), the client the ACP SDK's.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { postgresForTests } = require('./server.cjs');
const { startAcp, overNetwork, noneLeft, until, BIN } = require('../acp/served_clients.cjs');

const ROOT = path.join(__dirname, '..', '..');
const AGENT = path.join(ROOT, 'tests', 'acp', 'client_agent.mjs');
const { storeFromUrl } = require(path.join(ROOT, 'pkg', 'node', 'store-from-url.cjs'));
const TIMEOUT = { timeout: 120_000 };

const pg = postgresForTests('served');

/** A folder, a HOME, the agent's definition and a database of the test's own. */
function setUp() {
  const { name, url } = pg.database();
  const dir = path.join(pg.work, name);
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { recursive: true });
  const log = path.join(dir, 'sent.jsonl');
  const definition = { id: 'client-agent', name: 'Client features agent', command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: log }, protocol: 'acp' };
  const sent = () => fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((m) => m.method === 'session/prompt');
  return { dir, home, url, definition, sent, env: { ...process.env, HOME: home } };
}

const prompt = (text) => [{ type: 'text', text }];

test('agent-context acp --store postgres://: the conversation is in the database; another process loads it and goes on; stdin closed ends each', TIMEOUT, async () => {
  const ctx = setUp();
  const args = ['--agent', JSON.stringify(ctx.definition), '--store', ctx.url, '--cd', ctx.dir];
  const first = startAcp(args, ctx.env);
  const a = await first.client();
  const { sessionId } = await a.agent.request('session/new', { cwd: ctx.dir, mcpServers: [] });
  const answer = await a.agent.request('session/prompt', { sessionId, prompt: prompt('Remember the word kestrel.') });
  assert.equal(answer.stopReason, 'end_turn');
  assert.equal(a.text(sessionId), 'Hello from turn 1');
  first.child.stdin.end();
  assert.deepEqual(await first.exited, { code: 0, signal: null, stderr: first.stderr() }, 'it ends, its connections with it');

  // What the database holds, read by the package in this process.
  const store = storeFromUrl(ctx.url);
  try {
    const listed = await store.listConversations();
    assert.deepEqual(listed.map((c) => [c.conversationId, c.turns]), [[sessionId, 1]]);
    const { entries } = await store.readConversation(sessionId);
    assert.deepEqual(entries.filter((e) => e.kind === 'request').map((e) => e.text), ['Remember the word kestrel.']);
  } finally {
    await store.close?.();
  }

  const second = startAcp(args, ctx.env);
  const b = await second.client();
  await b.agent.request('session/load', { sessionId, cwd: ctx.dir, mcpServers: [] });
  assert.deepEqual(
    b.of(sessionId).map((u) => [u.update.sessionUpdate, u.update.content?.text]),
    [['user_message_chunk', 'Remember the word kestrel.'], ['agent_message_chunk', 'Hello from turn 1']],
    'replayed from the database',
  );
  const next = await b.agent.request('session/prompt', { sessionId, prompt: prompt('What was the word?') });
  assert.equal(next.stopReason, 'end_turn');
  const carried = ctx.sent().at(-1).params.prompt.map((p) => p.text).join('');
  assert.ok(carried.includes('kestrel') && carried.includes('What was the word?'), carried);
  second.child.stdin.end();
  assert.equal((await second.exited).code, 0, second.stderr());
  assert.deepEqual(await noneLeft(ctx.home), []);
});

test('agent-context serve --store postgres://: a turn over WebSocket is recorded in the database; SIGTERM ends it', TIMEOUT, async () => {
  const ctx = setUp();
  const serve = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--agent', JSON.stringify(ctx.definition), '--store', ctx.url, '--cd', ctx.dir], { env: ctx.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  serve.stdout.on('data', (d) => (out += d));
  serve.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => serve.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    await until(() => /token: \S+\n/.test(out), 20_000, 'the server');
    const url = /agent-context serve: (http:\S+)/.exec(out)[1].replace(/^http/, 'ws');
    const token = /token: (\S+)/.exec(out)[1];
    const client = await overNetwork(url, token);
    const { sessionId } = await client.agent.request('session/new', { cwd: ctx.dir, mcpServers: [] });
    const answer = await client.agent.request('session/prompt', { sessionId, prompt: prompt('Hello over the network.') });
    assert.equal(answer.stopReason, 'end_turn');
    assert.equal(client.text(sessionId), 'Hello from turn 1');
    await client.close();
    const store = storeFromUrl(ctx.url);
    try {
      assert.deepEqual((await store.listConversations()).map((c) => [c.conversationId, c.turns]), [[sessionId, 1]]);
    } finally {
      await store.close?.();
    }
  } finally {
    serve.kill('SIGTERM');
  }
  const ended = await exited;
  assert.ok(ended.code === 0 || ended.signal === 'SIGTERM', `${JSON.stringify(ended)}\n${out}`);
  assert.deepEqual(await noneLeft(ctx.home), []);
});
