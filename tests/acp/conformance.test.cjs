// Our ACP client (the session engine) against the official SDK's agent side
// (tests/acp/conformance/sdk_agent.mjs), which parses and validates every
// message we send against the protocol's schema and answers as the
// protocol says: initialize, session/new, prompts and their updates, modes,
// a permission answered by optionId, the client's file read, cancel, close;
// and two sessions in one process (openAgent), session/list; ACP 1.25's
// additionalDirectories, session/delete, logout, a boolean config option,
// compaction and notice updates.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');
const { readJsonLines } = require('../cli/requests.cjs');
const { waitFor } = require('../cli/wait.cjs');

const AGENT = path.join(__dirname, 'conformance', 'sdk_agent.mjs');

function setUp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-conformance-')));
  const log = path.join(dir, 'sent.jsonl');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'ship on Friday');
  return { dir, log, env: { ...process.env, SDK_AGENT_LOG: log } };
}

/** What the agent logged, up to its last complete line (it appends while the test reads). */
const sent = (ctx) => readJsonLines(ctx.log);

test('the SDK agent accepts every message of a session and our client reads its answers', { timeout: 60_000 }, async () => {
  const ctx = setUp();
  const asked = [];
  const updates = [];
  let session;
  try {
    session = await pkg.openAgentSession('google-gemini', {
      cd: ctx.dir,
      command: AGENT,
      env: ctx.env,
      timeout: 20,
      maxRetries: 0,
      onUpdate: (u) => updates.push(u),
      onPermission: (request) => {
        asked.push(request);
        return 'yes-once';
      },
    });
    assert.match(session.sessionId, /^sdk-session-/);
    assert.deepEqual(session.modes.map((m) => m.id), ['ask', 'code']);
    assert.equal(session.mode, 'ask');
    const [init, opened] = sent(ctx);
    assert.equal(init.method, 'initialize');
    assert.equal(init.params.protocolVersion, 1);
    assert.equal(opened.method, 'session/new');
    assert.equal(opened.params.cwd, ctx.dir);
    assert.deepEqual(opened.params.mcpServers, []);

    const events = [];
    const one = await session.prompt('Hi', { onEvent: (e) => events.push(e) });
    assert.equal(one.success, true, JSON.stringify(one.error));
    assert.equal(one.reply.text, 'Hello from turn 1');
    assert.equal(one.reply.usage.totalTokens, 14);
    assert.equal(events.filter((e) => e.type === 'text').map((e) => e.text).join(''), 'Hello from turn 1');
    const two = await session.prompt([{ type: 'text', text: 'Again' }]);
    assert.equal(two.reply.text, 'Hello from turn 2');
    assert.equal(two.sessionId, session.sessionId);

    await session.setMode('code');
    assert.equal(session.mode, 'code');
    assert.deepEqual(sent(ctx).find((m) => m.method === 'session/set_mode').params, { sessionId: session.sessionId, modeId: 'code' });

    const tool = await session.prompt('TOOL please');
    assert.equal(tool.success, true, JSON.stringify(tool.error));
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0].options.map((o) => o.optionId), ['yes-once', 'no']);
    assert.deepEqual(sent(ctx).find((m) => m.method === 'permission answer').params, { outcome: { outcome: 'selected', optionId: 'yes-once' } });
    assert.equal(tool.reply.text, 'notes say: ship on Friday');
    assert.equal(tool.reply.toolUses[0].status, 'success');

    const waiting = session.prompt('WAIT for me');
    await waitFor(() => sent(ctx).some((m) => m.method === 'session/prompt' && m.params.prompt[0].text === 'WAIT for me'), 10_000, 'the waiting prompt to reach the agent', 20);
    await session.cancel();
    const cancelled = await waiting;
    assert.equal(cancelled.error.kind, 'aborted');
    assert.equal(cancelled.stopReason, 'cancelled');
    assert.ok(sent(ctx).some((m) => m.method === 'session/cancel' && m.params.sessionId === session.sessionId));

    await session.close();
    assert.ok(sent(ctx).some((m) => m.method === 'session/close'));
  } finally {
    await session?.close();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});

test('runAgent over ACP against the SDK agent: one turn, the session closed after it', { timeout: 60_000 }, async () => {
  const ctx = setUp();
  try {
    const run = await pkg.runAgent('google-gemini', { prompt: 'Hi', systemFlag: 'Be brief.' }, { protocol: 'acp', cd: ctx.dir, command: AGENT, env: ctx.env, timeout: 20, maxRetries: 0 });
    assert.equal(run.success, true, JSON.stringify(run.error));
    assert.equal(run.reply.text, 'Hello from turn 1');
    assert.equal(run.stopReason, undefined);
    const prompt = sent(ctx).find((m) => m.method === 'session/prompt');
    assert.equal(prompt.params.prompt[0].text, 'Be brief.\n\nHi', 'the instructions open the prompt of an agent without a system prompt');
    assert.ok(sent(ctx).some((m) => m.method === 'session/close'));
  } finally {
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});

test('two sessions in one process against the SDK agent: turns at once, each its own folder, list, one closed, then the process', { timeout: 60_000 }, async () => {
  const ctx = setUp();
  const other = path.join(ctx.dir, 'other');
  fs.mkdirSync(other);
  fs.writeFileSync(path.join(other, 'notes.txt'), 'ship on Monday');
  let agent;
  try {
    agent = await pkg.openAgent('google-gemini', { cd: ctx.dir, command: AGENT, env: ctx.env, timeout: 20, maxRetries: 0, onPermission: () => 'yes-once' });
    assert.equal(agent.capabilities.loadSession, true);
    assert.deepEqual(sent(ctx).map((m) => m.method), ['initialize'], 'no session before one is asked for');
    const a = await agent.newSession();
    const b = await agent.newSession({ cd: other });
    assert.notEqual(a.sessionId, b.sessionId);
    const opened = sent(ctx).filter((m) => m.method === 'session/new');
    assert.deepEqual(opened.map((m) => m.params.cwd), [ctx.dir, other]);
    // Turns at once: each session counts its own turns.
    const [a1, b1] = await Promise.all([a.prompt('Hi'), b.prompt('Hi')]);
    assert.equal(a1.reply.text, 'Hello from turn 1');
    assert.equal(b1.reply.text, 'Hello from turn 1');
    assert.equal(a1.sessionId, a.sessionId);
    assert.equal(b1.sessionId, b.sessionId);
    // B reads its own folder's file.
    const tool = await b.prompt('TOOL please');
    assert.equal(tool.reply.text, 'notes say: ship on Monday', JSON.stringify(tool.error));
    // A's turn cancelled while B's runs on.
    const waiting = a.prompt('WAIT for me');
    await waitFor(() => sent(ctx).some((m) => m.method === 'session/prompt' && m.params.prompt[0].text === 'WAIT for me'), 10_000, 'the waiting prompt to reach the agent', 20);
    const b2 = b.prompt('Again');
    await a.cancel();
    assert.equal((await waiting).error.kind, 'aborted');
    assert.equal((await b2).reply.text, 'Hello from turn 2');
    assert.deepEqual(sent(ctx).filter((m) => m.method === 'session/cancel').map((m) => m.params.sessionId), [a.sessionId]);
    const listed = await agent.listSessions({ cwd: other });
    assert.deepEqual(listed.sessions.map((s) => s.sessionId), [b.sessionId]);
    // One session closed; the other goes on in the same process.
    await a.close();
    assert.deepEqual(sent(ctx).filter((m) => m.method === 'session/close').map((m) => m.params.sessionId), [a.sessionId]);
    assert.equal((await b.prompt('Still there')).reply.text, 'Hello from turn 3');
    await agent.close();
    assert.deepEqual(sent(ctx).filter((m) => m.method === 'session/close').map((m) => m.params.sessionId), [a.sessionId, b.sessionId]);
    await assert.rejects(b.prompt('closed?'), (err) => err.code === 'INVALID_INPUT');
  } finally {
    await agent?.close();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});

test("ACP 1.25 against the SDK agent: additionalDirectories, a boolean option, compaction and notice updates, session/delete, logout", { timeout: 60_000 }, async () => {
  const ctx = setUp();
  const more = path.join(ctx.dir, 'more');
  fs.mkdirSync(more);
  let agent;
  try {
    agent = await pkg.openAgent('google-gemini', { cd: ctx.dir, command: AGENT, env: ctx.env, timeout: 20, maxRetries: 0, dirs: [more] });
    const session = await agent.newSession();
    assert.deepEqual(sent(ctx).find((m) => m.method === 'session/new').params.additionalDirectories, [more]);
    await session.setConfigOption('fast', true);
    assert.deepEqual(sent(ctx).find((m) => m.method === 'session/set_config_option').params, { sessionId: session.sessionId, configId: 'fast', type: 'boolean', value: true });
    const events = [];
    const turn = await session.prompt('COMPACT now', { onEvent: (e) => events.push(e) });
    assert.equal(turn.success, true, JSON.stringify(turn.error));
    assert.deepEqual(turn.reply.compactions, [{ id: 'k1', status: 'completed', summary: 'Summary so far.' }]);
    assert.deepEqual(events.filter((e) => e.type === 'notice'), [{ type: 'notice', severity: 'info', title: 'Context compacted' }]);
    const id = session.sessionId;
    await session.close();
    await agent.deleteSession(id);
    assert.deepEqual(sent(ctx).find((m) => m.method === 'session/delete').params, { sessionId: id });
    await agent.logout();
    assert.ok(sent(ctx).some((m) => m.method === 'logout'));
  } finally {
    await agent?.close();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});
