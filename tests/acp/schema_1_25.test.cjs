// ACP schema 1.25 against a scripted agent of our own
// (tests/acp/client_agent.mjs, on the official SDK's agent side, given as an
// AgentDefinition): what `initialize` advertises, the agent's compaction as
// events and record entries and what a handoff after it carries, notices
// (live, never recorded), requests the agent cancels ($/cancel_request),
// more folders (dirs → additionalDirectories), session/delete and logout,
// terminal logins and boolean config options.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');

const AGENT = path.join(__dirname, 'client_agent.mjs');
const TIMEOUT_MS = 60_000;

function setUp(env = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-1-25-')));
  const log = path.join(dir, 'sent.jsonl');
  const definition = { id: 'client-agent', name: 'Client features agent', command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: log, ...env }, protocol: 'acp' };
  return { dir, log, definition };
}

const logged = (ctx) =>
  fs.existsSync(ctx.log)
    ? fs.readFileSync(ctx.log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l))
    : [];
const entries = (ctx, method) => logged(ctx).filter((m) => m.method === method);
const options = (ctx, more = {}) => ({ cd: ctx.dir, timeout: 20, maxRetries: 0, ...more });
const cleanUp = (ctx) => fs.rmSync(ctx.dir, { recursive: true, force: true });

test('initialize advertises compaction, notices and boolean options; auth.terminal only with terminalAuth, its logins listed with their command', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  let agent;
  try {
    const run = await pkg.runAgent(ctx.definition, { prompt: 'Hi' }, options(ctx));
    assert.equal(run.success, true, JSON.stringify(run.error));
    const [caps] = entries(ctx, 'initialize').map((m) => m.params.clientCapabilities);
    assert.deepEqual(caps.session, { compaction: {}, notices: {}, configOptions: { boolean: {} } });
    assert.deepEqual(caps.auth, { terminal: false });
    agent = await pkg.openAgent(ctx.definition, options(ctx, { terminalAuth: true }));
    assert.deepEqual(entries(ctx, 'initialize')[1].params.clientCapabilities.auth, { terminal: true });
    const [login] = agent.authMethods;
    assert.equal(login.type, 'terminal');
    assert.deepEqual(login.terminal, { command: process.execPath, args: [AGENT, '--login'], env: { LOGIN_MODE: 'tui' } });
  } finally {
    await agent?.close();
    cleanUp(ctx);
  }
});

test("the agent's compaction is an event and two record entries; a handoff after it carries the summary and the later turns, not the earlier ones", { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const store = pkg.memorySessionStore();
  let session;
  let next;
  try {
    session = await pkg.openAgentSession(ctx.definition, options(ctx, { store }));
    assert.equal((await session.prompt('Remember MARIGOLD')).success, true);
    const events = [];
    const compact = await session.prompt('COMPACT', { onEvent: (e) => events.push(e) });
    assert.equal(compact.success, true, JSON.stringify(compact.error));
    const compactions = events.filter((e) => e.type === 'compaction');
    assert.deepEqual(compactions.at(-1), { type: 'compaction', id: 'compaction-2', status: 'completed', summary: 'In the earlier turns the user wrote 17 characters.' });
    assert.deepEqual(compact.reply.compactions, [{ id: 'compaction-2', status: 'completed', summary: 'In the earlier turns the user wrote 17 characters.' }]);
    assert.equal((await session.prompt('Note PEONY')).success, true);
    const recorded = session.history().entries.filter((e) => e.kind === 'compaction');
    assert.deepEqual(
      recorded.map(({ kind, turn, compactionId, status, summary }) => ({ kind, turn, compactionId, status, summary })),
      [
        { kind: 'compaction', turn: 2, compactionId: 'compaction-2', status: 'in_progress', summary: undefined },
        { kind: 'compaction', turn: 2, compactionId: 'compaction-2', status: 'completed', summary: 'In the earlier turns the user wrote 17 characters.' },
      ],
    );
    next = await session.handoff(ctx.definition);
    const first = await next.prompt('What next?');
    assert.equal(first.success, true, JSON.stringify(first.error));
    assert.deepEqual(first.context.compacted, { compactionId: 'compaction-2', replacedTurns: 1 });
    const carried = entries(ctx, 'session/prompt').filter((m) => m.params.sessionId === next.sessionId)[0].params.prompt[0].text;
    assert.match(carried, /In the earlier turns the user wrote 17 characters\./);
    assert.match(carried, /Note PEONY/);
    assert.match(carried, /What next\?/);
    assert.doesNotMatch(carried, /MARIGOLD/, 'the turn the summary replaced is not carried');
    assert.doesNotMatch(carried, /\bCOMPACT\b/, "the compact command's own turn is not carried");
  } finally {
    await next?.close();
    await session?.close();
    cleanUp(ctx);
  }
});

test('a handoff with no compaction carries every turn and says so', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  let session;
  let next;
  try {
    session = await pkg.openAgentSession(ctx.definition, options(ctx, { store: pkg.memorySessionStore() }));
    await session.prompt('Remember MARIGOLD');
    next = await session.handoff(ctx.definition);
    const first = await next.prompt('And?');
    assert.equal(first.context.from, 'all');
    assert.equal(first.context.compacted, undefined);
    const carried = entries(ctx, 'session/prompt').filter((m) => m.params.sessionId === next.sessionId)[0].params.prompt[0].text;
    assert.match(carried, /MARIGOLD/);
  } finally {
    await next?.close();
    await session?.close();
    cleanUp(ctx);
  }
});

test('a notice arrives as an event and is never recorded', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  let session;
  try {
    session = await pkg.openAgentSession(ctx.definition, options(ctx, { store: pkg.memorySessionStore() }));
    const events = [];
    const turn = await session.prompt('NOTICE me', { onEvent: (e) => events.push(e) });
    assert.equal(turn.success, true, JSON.stringify(turn.error));
    assert.deepEqual(events.filter((e) => e.type === 'notice'), [{ type: 'notice', severity: 'warning', title: 'Falling back to a smaller model', description: 'The large one is busy.' }]);
    assert.equal(turn.reply.text, 'Noted.');
    assert.doesNotMatch(JSON.stringify(session.history().entries), /smaller model/);
  } finally {
    await session?.close();
    cleanUp(ctx);
  }
});

/** Our answers to the agent's requests, as it read them (responses with a result or an error). */
const answersRead = (ctx) =>
  entries(ctx, 'raw')
    .map((m) => JSON.parse(m.params.line))
    .filter((m) => m.id !== undefined && m.method === undefined && (m.result?.outcome !== undefined || m.result?.action !== undefined || m.error !== undefined));

test("an agent's $/cancel_request for a pending permission aborts onPermission's signal and is answered cancelled at once, nothing later", { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  let aborted = null;
  let resolvedLate = false;
  try {
    const run = await pkg.runAgent(ctx.definition, { prompt: 'CANCELPERM please' }, options(ctx, {
      onPermission: (request) => {
        assert.ok(request.signal instanceof AbortSignal);
        assert.equal(Object.keys(request).includes('signal'), false, 'not among the agent params');
        request.signal.addEventListener('abort', () => (aborted = Date.now()));
        // The app answers only later: that answer goes nowhere.
        return new Promise((resolve) => setTimeout(() => {
          resolvedLate = true;
          resolve('allow');
        }, 1500));
      },
    }));
    assert.equal(run.success, true, JSON.stringify(run.error));
    assert.equal(run.reply.text, 'answered {"outcome":{"outcome":"cancelled"}}');
    const [cancelling] = entries(ctx, 'cancelling');
    const [answer] = entries(ctx, 'cancelled request answer');
    assert.ok(aborted !== null, "the app's signal was aborted");
    assert.ok(answer.params.at - cancelling.params.at < 2000, `answered ${answer.params.at - cancelling.params.at} ms after the cancel`);
    assert.ok(resolvedLate, 'the app answered later');
    const permissionAnswers = answersRead(ctx).filter((m) => m.result?.outcome !== undefined);
    assert.deepEqual(permissionAnswers.map((m) => m.result), [{ outcome: { outcome: 'cancelled' } }], 'one answer, none after it');
    assert.ok(entries(ctx, 'raw').some((m) => JSON.parse(m.params.line).method === undefined), 'the raw log holds what the agent read');
  } finally {
    cleanUp(ctx);
  }
});

test("an agent's $/cancel_request for a pending elicitation aborts onElicitation's signal; the agent gets -32800", { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  let aborted = false;
  try {
    const run = await pkg.runAgent(ctx.definition, { prompt: 'CANCELASK please' }, options(ctx, {
      onElicitation: (request) =>
        new Promise((resolve) => {
          request.signal.addEventListener('abort', () => {
            aborted = true;
            setTimeout(() => resolve({ action: 'accept', content: { db: 'late' } }), 200);
          });
        }),
    }));
    assert.equal(run.success, true, JSON.stringify(run.error));
    assert.ok(aborted);
    const [answer] = entries(ctx, 'cancelled request answer');
    assert.equal(answer.params.error.code, -32800);
    assert.equal(answersRead(ctx).filter((m) => m.error?.code === -32800).length, 1);
    assert.equal(answersRead(ctx).filter((m) => m.result?.action !== undefined).length, 0, 'no late answer');
  } finally {
    cleanUp(ctx);
  }
});

test('dirs reach session/new as additionalDirectories and their files are allowed; an agent that does not advertise them cannot be opened with them', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const a = path.join(ctx.dir, 'a');
  const b = path.join(ctx.dir, '..', path.basename(ctx.dir) + '-b');
  fs.mkdirSync(a);
  fs.mkdirSync(b);
  fs.writeFileSync(path.join(b, 'shared.txt'), 'from b');
  const outside = path.join(os.tmpdir(), `acp-1-25-outside-${process.pid}.txt`);
  fs.writeFileSync(outside, 'secret');
  let session;
  try {
    session = await pkg.openAgentSession(ctx.definition, options(ctx, { dirs: [a, b] }));
    const [opened] = entries(ctx, 'session/new');
    assert.deepEqual(opened.params.additionalDirectories, [a, fs.realpathSync(b)]);
    const read = await session.prompt(`READ ${path.join(b, 'shared.txt')}`);
    assert.equal(read.reply.text, 'file says: from b');
    const refused = await session.prompt(`READ ${outside}`);
    assert.match(refused.reply.text, /^refused: -32602 .*outside the working directory/);
    await session.close();
    session = undefined;
    const plain = setUp({ CLIENT_AGENT_PLAIN: '1' });
    try {
      await assert.rejects(pkg.openAgentSession(plain.definition, options(plain, { dirs: [a] })), (err) => {
        assert.equal(err.code, 'INVALID_INPUT');
        assert.match(err.message, /options\.dirs/);
        assert.match(err.message, /Client features agent/);
        return true;
      });
      assert.equal(entries(plain, 'session/new').length, 0, 'no session opened without them');
      await assert.rejects(pkg.openAgentSession(plain.definition, options(plain, { dirs: [path.join(ctx.dir, 'nope')] })), /options\.dirs\[0\] does not exist/);
      await assert.rejects(pkg.openAgentSession('claude-code', { cd: ctx.dir, protocol: 'cli', dirs: [a] }), /options\.dirs.*ACP only/);
    } finally {
      cleanUp(plain);
    }
  } finally {
    await session?.close();
    fs.rmSync(b, { recursive: true, force: true });
    fs.rmSync(outside, { force: true });
    cleanUp(ctx);
  }
});

test('deleteSession and logout send session/delete and logout where advertised, and refuse without sending where not', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const plain = setUp({ CLIENT_AGENT_PLAIN: '1' });
  let agent;
  let bare;
  try {
    agent = await pkg.openAgent(ctx.definition, options(ctx));
    const session = await agent.newSession();
    await agent.deleteSession(session.sessionId);
    assert.deepEqual(entries(ctx, 'session/delete').map((m) => m.params), [{ sessionId: session.sessionId }]);
    await agent.logout();
    assert.equal(entries(ctx, 'logout').length, 1);
    await assert.rejects(agent.deleteSession(''), (err) => err.code === 'INVALID_INPUT');
    bare = await pkg.openAgent(plain.definition, options(plain));
    await assert.rejects(bare.deleteSession('s1'), (err) => err.code === 'INVALID_INPUT' && /does not delete sessions.*sessionCapabilities\.delete/.test(err.message));
    await assert.rejects(bare.logout(), (err) => err.code === 'INVALID_INPUT' && /does not log out.*auth\.logout/.test(err.message));
    assert.equal(entries(plain, 'session/delete').length + entries(plain, 'logout').length, 0, 'nothing sent');
  } finally {
    await agent?.close();
    await bare?.close();
    cleanUp(ctx);
    cleanUp(plain);
  }
});

test('a boolean config option is set with its type', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  let session;
  try {
    session = await pkg.openAgentSession(ctx.definition, options(ctx));
    await session.setConfigOption('fast', true);
    assert.deepEqual(entries(ctx, 'session/set_config_option').map((m) => m.params), [{ sessionId: session.sessionId, configId: 'fast', type: 'boolean', value: true }]);
    assert.deepEqual(session.configOptions, [{ id: 'fast', name: 'fast', type: 'boolean', currentValue: true }]);
  } finally {
    await session?.close();
    cleanUp(ctx);
  }
});
