// Our ACP client (the session engine) against the official SDK's agent side
// (tests/acp/conformance/sdk_agent.mjs), which parses and validates every
// message we send against the protocol's schema and answers as the
// protocol says: initialize, session/new, prompts and their updates, modes,
// a permission answered by optionId, the client's file read, cancel, close.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');

const AGENT = path.join(__dirname, 'conformance', 'sdk_agent.mjs');

function setUp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-conformance-')));
  const log = path.join(dir, 'sent.jsonl');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'ship on Friday');
  return { dir, log, env: { ...process.env, SDK_AGENT_LOG: log } };
}

const sent = (ctx) =>
  fs.existsSync(ctx.log)
    ? fs.readFileSync(ctx.log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))
    : [];

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
    for (let i = 0; i < 100 && !sent(ctx).some((m) => m.method === 'session/prompt' && m.params.prompt[0].text === 'WAIT for me'); i += 1) {
      await new Promise((r) => setTimeout(r, 20));
    }
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
