// The conversation and its record through the package, on the scripted ACP
// agent (tests/acp/client_agent.mjs, given as an AgentDefinition: a peer
// for our host, never a stand-in for a real agent's output): a
// conversation recorded, read back, watched; restored in a new process and
// rebuilt for an agent that cannot resume; a host killed in the middle of a
// turn; one writer at a time; fork at a turn; handoff and failover to
// another agent, all one conversation; a failed attempt never a reply; a
// store that stops taking writes.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const pkg = require('agent-context');

const AGENT = path.join(__dirname, 'client_agent.mjs');
const PKG = path.dirname(require.resolve('agent-context/package.json'));
const TEST_TIMEOUT_MS = 60_000;

function setUp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-record-'));
  const log = path.join(dir, 'agent.log');
  const def = (id, env = {}) => ({ id, name: `Scripted ${id}`, command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: log, ...env }, protocol: 'acp' });
  const sent = () =>
    fs.existsSync(log)
      ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.method === 'session/prompt').map((e) => ({ sessionId: e.params.sessionId, text: e.params.prompt.map((b) => b.text ?? '').join('') }))
      : [];
  const prompts = () => sent().map((p) => p.text);
  return { dir, storeDir: path.join(dir, 'sessions'), def, prompts, sent, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `script` in a new Node process with the package; resolves its stdout lines (or, with `until`, once one matches). */
function inOtherProcess(script, { until } = {}) {
  const child = spawn(process.execPath, ['-e', script], { cwd: PKG, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the other process did not finish: ${out}`));
    }, 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (until && until.test(out)) {
        clearTimeout(timer);
        resolve({ child, out });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (until) return reject(new Error(`exited ${code} before ${until}: ${out}`));
      if (code !== 0) return reject(new Error(`exited ${code}: ${out}`));
      resolve({ out });
    });
  });
}

const kinds = (entries) => entries.map((e) => e.kind);

test('a conversation is recorded as it goes: history, watch, the store, never a secret', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const store = pkg.openSessionStore(t.storeDir);
    const session = await pkg.openAgentSession(t.def('agent-a'), { cd: t.dir, store, env: { API_TOKEN: 'tok-9f8e7d6c5b4a' } });
    const watched = [];
    const unwatch = session.watch({}, (e) => watched.push(`${e.seq}:${e.kind}`));
    assert.equal((await session.prompt('Remember tok-9f8e7d6c5b4a')).recorded, true);
    assert.equal((await session.prompt('PLAN the work')).success, true);
    const { entries, cursor } = session.history();
    assert.deepEqual(kinds(entries), ['part', 'request', 'text', 'turnEnd', 'request', 'plan', 'text', 'turnEnd']);
    assert.equal(cursor, 8);
    assert.deepEqual([entries[0].sessionId, entries[0].reason, entries[0].fromTurn], [session.sessionId, 'opened', 1]);
    // Every entry names its agent session.
    assert.ok(entries.every((e) => e.sessionId === session.sessionId && e.agentType === 'agent-a'), JSON.stringify(entries));
    assert.equal(entries[1].text, 'Remember [redacted]');
    assert.equal(entries[5].entries.length, 3);
    assert.deepEqual(kinds(session.history({ after: 6 }).entries), ['text', 'turnEnd']);
    // While it is open, its record is held: another writer is refused.
    const header = { format: 'agent-context/session-record', version: '2.0', conversationId: session.conversationId, createdAt: 1 };
    await assert.rejects(store.open(session.conversationId, header), (err) => err.code === 'SESSION_LOCKED');
    await session.close();
    unwatch();
    assert.deepEqual(watched, entries.map((e) => `${e.seq}:${e.kind}`).concat(['9:closed']));
    const [summary] = await store.listConversations();
    assert.deepEqual([summary.conversationId, summary.live.sessionId, summary.live.agentType], [session.conversationId, session.sessionId, 'agent-a']);
    assert.deepEqual([summary.status, summary.turns, summary.title, summary.parts.length], ['closed', 2, 'Remember [redacted]', 1]);
    const file = fs.readdirSync(t.storeDir).find((n) => n.endsWith('.jsonl'));
    const text = fs.readFileSync(path.join(t.storeDir, file), 'utf8');
    assert.doesNotMatch(text, /tok-9f8e7d6c5b4a/);
    assert.deepEqual(JSON.parse(text.split('\n')[0]), { format: 'agent-context/session-record', version: '2.0', conversationId: session.conversationId, createdAt: JSON.parse(text.split('\n')[0]).createdAt });
    const read = await store.readConversation(session.conversationId);
    assert.deepEqual(read.entries, session.history().entries);
    assert.equal(read.skipped, 0);
  } finally {
    t.done();
  }
});

test('restored in a new process: the conversation goes on, or is rebuilt for an agent that cannot resume, one conversation', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const def = t.def('agent-a');
    const { out } = await inOtherProcess(`
      const pkg = require('agent-context');
      (async () => {
        const s = await pkg.openAgentSession(${JSON.stringify(def)}, { cd: ${JSON.stringify(t.dir)}, store: pkg.openSessionStore(${JSON.stringify(t.storeDir)}) });
        await s.prompt('The launch code is 4217.');
        await s.prompt('And the door is blue.');
        console.log('id=' + s.sessionId + ' conversation=' + s.conversationId);
        await s.close();
      })();`);
    const [, oldId, conversationId] = /id=(\S+) conversation=(\S+)/.exec(out);
    const store = pkg.openSessionStore(t.storeDir);
    // The scripted agent does not load sessions: without rebuild, as before.
    await assert.rejects(pkg.openAgentSession(def, { cd: t.dir, store, sessionId: oldId }), (err) => err.kind === 'session_not_found');
    const session = await pkg.openAgentSession(def, { cd: t.dir, store, sessionId: oldId, rebuild: true });
    try {
      assert.notEqual(session.sessionId, oldId);
      assert.equal(session.conversationId, conversationId);
      const turn = await session.prompt('What was the code?');
      assert.equal(turn.success, true);
      assert.deepEqual([turn.context.kind, turn.context.carried], ['full', 4]);
      const sent = t.prompts().at(-1);
      for (const said of ['The launch code is 4217.', 'And the door is blue.', 'Hello from turn 2', 'What was the code?']) assert.ok(sent.includes(said), `${said} in ${sent}`);
      assert.equal(sent.split('What was the code?').length, 2, 'the question carried once');
      // One conversation: the old agent session's turns, then the rebuilt one's, numbered on.
      const { entries } = session.history();
      const parts = entries.filter((e) => e.kind === 'part');
      assert.deepEqual(parts.map((p) => [p.reason, p.fromTurn, p.sessionId]), [['opened', 1, oldId], ['rebuild', 3, session.sessionId]]);
      assert.deepEqual(entries.filter((e) => e.kind === 'request').map((e) => [e.turn, e.text, e.sessionId]), [[1, 'The launch code is 4217.', oldId], [2, 'And the door is blue.', oldId], [3, 'What was the code?', session.sessionId]]);
    } finally {
      await session.close();
    }
    const [summary] = await store.listConversations();
    assert.deepEqual([summary.conversationId, summary.turns, summary.live.sessionId, summary.parts.map((p) => p.reason)], [conversationId, 3, session.sessionId, ['opened', 'rebuild']]);
    // The old agent session is no longer where the conversation goes on.
    await assert.rejects(pkg.openAgentSession(def, { cd: t.dir, store, sessionId: oldId, rebuild: true }), (err) => err.code === 'SESSION_MOVED' && err.details.sessionId === session.sessionId && err.details.conversationId === conversationId);
  } finally {
    t.done();
  }
});

test('a host killed in the middle of a turn leaves every entry readable and the turn interrupted', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const def = t.def('agent-a');
    const { child, out } = await inOtherProcess(
      `
      const pkg = require('agent-context');
      (async () => {
        const s = await pkg.openAgentSession(${JSON.stringify(def)}, { cd: ${JSON.stringify(t.dir)}, store: pkg.openSessionStore(${JSON.stringify(t.storeDir)}) });
        await s.prompt('first');
        s.prompt('HANG here', { onEvent: (e) => e.type === 'text' && console.log('id=' + s.conversationId) });
      })();`,
      { until: /id=\S+\n/ },
    );
    const id = /id=(\S+)/.exec(out)[1];
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const store = pkg.openSessionStore(t.storeDir);
    const [summary] = await store.listConversations();
    assert.deepEqual([summary.conversationId, summary.status], [id, 'interrupted']);
    // The running turn's text is held until its next entry (text is coalesced): its request is there.
    assert.deepEqual(kinds((await store.read(id)).entries), ['part', 'request', 'text', 'turnEnd', 'request']);
    // Its next writer marks the turn that never ended, then goes on.
    const session = await pkg.openConversation(store, id, { agent: def, cd: t.dir, rebuild: true });
    await session.close();
    assert.deepEqual(kinds((await store.read(id)).entries).slice(5), ['interrupted', 'part', 'closed']);
  } finally {
    t.done();
  }
});

test('fork at a turn is a conversation of its own; handoff moves the conversation, the old session refuses', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const store = pkg.memorySessionStore();
    const session = await pkg.openAgentSession(t.def('agent-a'), { cd: t.dir, store });
    await session.prompt('one: apples');
    await session.prompt('two: pears');
    const fork = await session.fork({ atTurn: 1 });
    const forked = await fork.prompt('three');
    assert.equal(forked.context.carried, 2);
    const sent = t.prompts().at(-1);
    assert.ok(sent.includes('one: apples') && !sent.includes('two: pears'), sent);
    assert.deepEqual(fork.forkedFrom, { conversationId: session.conversationId, sessionId: session.sessionId, atTurn: 1 });
    assert.notEqual(fork.conversationId, session.conversationId);
    // Its history: the parent's turn 1, then its own.
    assert.deepEqual(fork.history().entries.filter((e) => e.kind === 'request').map((e) => [e.turn, e.text]), [[1, 'one: apples'], [2, 'three']]);
    await fork.close();
    const listed = (await store.listConversations()).find((c) => c.conversationId === fork.conversationId);
    assert.deepEqual(listed.forkedFrom, { conversationId: session.conversationId, atTurn: 1, sessionId: session.sessionId });
    await assert.rejects(session.fork({ atTurn: 3 }), (err) => err.code === 'INVALID_INPUT' && /atTurn/.test(err.message));
    // A fork on another agent keeps both.
    const other = await session.fork({ agent: t.def('agent-b') });
    assert.equal(other.agentType, 'agent-b');
    assert.equal((await other.prompt('a second opinion')).context.carried, 4);
    assert.equal((await session.prompt('still here')).success, true);
    await other.close();
    // Handoff moves the conversation: the new session is its live end.
    const own = session.sessionId;
    const next = await session.handoff(t.def('agent-b'));
    assert.deepEqual([next.agentType, next.conversationId], ['agent-b', session.conversationId]);
    assert.deepEqual(session.handedOffTo, { agentType: 'agent-b', sessionId: next.sessionId });
    // The session handed off is still the one it was: its agent, its agent session.
    assert.notEqual(next.sessionId, own);
    assert.deepEqual([session.agentType, session.sessionId], ['agent-a', own]);
    const before = t.sent().length;
    const four = await next.prompt('four');
    assert.equal(four.context.carried, 6);
    assert.ok(t.prompts().at(-1).includes('two: pears'));
    await assert.rejects(session.prompt('five'), (err) => err.code === 'SESSION_MOVED' && err.details.sessionId === next.sessionId);
    await assert.rejects(session.setMode('x'), (err) => err.code === 'SESSION_MOVED');
    assert.deepEqual(t.sent().slice(before).map((p) => p.sessionId), [next.sessionId], 'nothing more went to the old agent');
    const turns = next.history().entries.filter((e) => e.kind === 'request').map((e) => `${e.turn}:${e.agentType}`);
    assert.deepEqual(turns, ['1:agent-a', '2:agent-a', '3:agent-a', '4:agent-b']);
    assert.deepEqual(session.history().entries, next.history().entries, 'the old object still reads the conversation');
    await next.close();
    const all = await store.listConversations();
    assert.equal(all.length, 3);
    const main = all.find((c) => c.conversationId === session.conversationId);
    assert.deepEqual(main.parts.map((p) => [p.agentType, p.reason, p.fromTurn]), [['agent-a', 'opened', 1], ['agent-b', 'handoff', 4]]);
  } finally {
    t.done();
  }
});

test('failover: the same conversation goes on with the next agent; the failed attempt is no reply, the question carried once', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const store = pkg.memorySessionStore();
    const events = [];
    const session = await pkg.openAgentSession(t.def('agent-a', { CLIENT_AGENT_OVER_QUOTA: 'tool' }), {
      cd: t.dir,
      maxRetries: 0,
      store,
      fallback: [{ agent: t.def('agent-b') }],
    });
    const first = session.sessionId;
    const turn = await session.prompt('hello there', { onEvent: (e) => events.push(e) });
    assert.equal(turn.success, true, JSON.stringify(turn.error));
    assert.deepEqual(turn.handedOffTo, { agentType: 'agent-b', sessionId: session.sessionId });
    assert.equal(turn.reply.text, 'Hello from turn 1');
    // Live: the failed attempt's text named by its attempt, then discarded, then the handoff, then the next attempt.
    const seen = events.filter((e) => ['text', 'discard', 'handoff'].includes(e.type)).map((e) => (e.type === 'text' ? `text:${e.attempt}` : e.type === 'discard' ? `discard:${e.attempt}` : `handoff:${e.reason}`));
    assert.deepEqual([...new Set(seen)], ['text:1', 'discard:1', 'handoff:quota_exceeded', 'text:2']);
    assert.equal(events.find((e) => e.type === 'handoff').from.sessionId, first);
    assert.equal(session.agentType, 'agent-b');
    // What agent-b was sent: the question once, no error text, no text of the failed attempt.
    const toB = t.sent().filter((p) => p.sessionId === session.sessionId).at(-1).text;
    assert.equal(toB.split('hello there').length, 2, toB);
    assert.doesNotMatch(toB, /Let me look|The notes say|429/);
    assert.equal((await session.prompt('again')).success, true);
    // The record: one request and one turnEnd for the turn, the failed attempt's text in its attemptEnd only.
    const { entries } = session.history();
    assert.deepEqual(kinds(entries), ['part', 'request', 'toolCall', 'toolCall', 'attemptEnd', 'part', 'text', 'turnEnd', 'request', 'text', 'turnEnd']);
    const end = entries.find((e) => e.kind === 'attemptEnd');
    assert.deepEqual([end.turn, end.attempt, end.error.kind, end.text], [1, 1, 'quota_exceeded', 'Let me look.\n\nThe notes say']);
    assert.deepEqual(entries.filter((e) => e.kind === 'part').map((p) => [p.agentType, p.reason, p.fromTurn, p.fallbackIndex]), [['agent-a', 'opened', 1, 0], ['agent-b', 'failover', 1, 1]]);
    assert.ok(!entries.some((e) => e.kind === 'text' && /Let me look|429/.test(e.text)));
    assert.deepEqual(entries.filter((e) => e.kind === 'request').map((e) => `${e.turn}:${e.agentType}`), ['1:agent-a', '2:agent-b']);
    const conversationId = session.conversationId;
    await session.close();
    // Reopened: the old agent-a session id is refused, naming the live end; the conversation goes on with agent-b.
    await assert.rejects(pkg.openAgentSession(t.def('agent-a'), { cd: t.dir, store, sessionId: first }), (err) => err.code === 'SESSION_MOVED' && err.details.agentType === 'agent-b' && err.details.conversationId === conversationId);
    const again = await pkg.openConversation(store, conversationId, { agent: t.def('agent-a', { CLIENT_AGENT_OVER_QUOTA: 'tool' }), cd: t.dir, rebuild: true, fallback: [{ agent: t.def('agent-b') }] });
    assert.equal(again.agentType, 'agent-b');
    assert.equal((await again.prompt('and now?')).context.carried, 4);
    await again.close();
    // Bad input is never handed off.
    fs.writeFileSync(path.join(t.dir, 'notes.txt'), 'plain text');
    const refusing = await pkg.openAgentSession(t.def('agent-a', { CLIENT_AGENT_OVER_QUOTA: '1' }), { cd: t.dir, maxRetries: 0, fallback: [t.def('agent-b')] });
    const refusedEvents = [];
    const refused = await refusing.prompt('look', { attachments: [{ type: 'image', path: 'notes.txt' }], onEvent: (e) => refusedEvents.push(e.type) });
    assert.equal(refused.error.kind, 'invalid_params', JSON.stringify(refused.error));
    assert.equal(refused.handedOffTo, undefined);
    assert.ok(!refusedEvents.includes('handoff'));
    assert.equal(refusing.agentType, 'agent-a');
    await refusing.close();
    await assert.rejects(pkg.openAgentSession(t.def('agent-a'), { cd: t.dir, fallback: 'agent-b' }), (err) => err.code === 'INVALID_INPUT');
  } finally {
    t.done();
  }
});

test('a failed attempt with no fallback ends the turn: its text is in attemptEnd, never in the reply', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const session = await pkg.openAgentSession(t.def('agent-a', { CLIENT_AGENT_OVER_QUOTA: 'text' }), { cd: t.dir, maxRetries: 0, store: pkg.memorySessionStore() });
    const events = [];
    const turn = await session.prompt('hello', { onEvent: (e) => events.push(e) });
    assert.deepEqual([turn.success, turn.error.kind, turn.reply.text], [false, 'quota_exceeded', '']);
    assert.deepEqual(events.filter((e) => e.type === 'discard'), [{ type: 'discard', attempt: 1 }]);
    const { entries } = session.history();
    assert.deepEqual(kinds(entries), ['part', 'request', 'attemptEnd', 'turnEnd']);
    assert.equal(entries[2].text, 'API Error: Request rejected (429) · rate limited');
    await session.close();
  } finally {
    t.done();
  }
});

test('an open-time fallback never starts the first agent\'s command: the fallback opens with its own', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const session = await pkg.openAgentSession(t.def('agent-a'), { cd: t.dir, command: path.join(t.dir, 'nonexistent', 'agent'), fallback: [t.def('agent-b')], store: pkg.memorySessionStore() });
    assert.equal(session.agentType, 'agent-b');
    assert.equal((await session.prompt('hi')).success, true);
    const part = session.history().entries[0];
    assert.deepEqual([part.kind, part.agentType, part.fallbackIndex], ['part', 'agent-b', 1]);
    await session.close();
  } finally {
    t.done();
  }
});

test('a store that stops taking writes: recordError, recorded: false, every entry written once when it takes them again', { timeout: TEST_TIMEOUT_MS }, async () => {
  assert.equal(process.getuid(), 0, 'chattr +i on the store needs root');
  const t = setUp();
  try {
    const store = pkg.openSessionStore(t.storeDir);
    const session = await pkg.openAgentSession(t.def('agent-a'), { cd: t.dir, store });
    assert.equal((await session.prompt('one')).recorded, true);
    execFileSync('chattr', ['-R', '+i', t.storeDir]);
    let events = [];
    try {
      const two = await session.prompt('two', { onEvent: (e) => events.push(e) });
      assert.deepEqual([two.success, two.recorded], [true, false]);
      assert.equal(events.filter((e) => e.type === 'recordError').length, 1);
      assert.equal(events.find((e) => e.type === 'recordError').error.code, 'EPERM');
      const three = await session.prompt('three');
      assert.equal(three.recorded, false);
      assert.ok(session.unwritten > 0);
      await assert.rejects(session.flush(), (err) => err.code === 'EPERM');
    } finally {
      execFileSync('chattr', ['-R', '-i', t.storeDir]);
    }
    await session.flush();
    assert.equal(session.unwritten, 0);
    events = [];
    assert.equal((await session.prompt('four', { onEvent: (e) => events.push(e) })).recorded, true);
    await session.close();
    const { entries, skipped } = await store.read(session.conversationId);
    assert.equal(skipped, 0);
    assert.deepEqual(entries.filter((e) => e.kind === 'request').map((e) => e.text), ['one', 'two', 'three', 'four']);
    assert.deepEqual(entries.map((e) => e.seq), entries.map((_, i) => i + 1), 'every entry once, in order');
    assert.equal(entries.at(-1).kind, 'closed');
    // A garbage line is counted; a file of garbage is not a conversation.
    const file = path.join(t.storeDir, fs.readdirSync(t.storeDir).find((n) => n.endsWith('.jsonl')));
    fs.appendFileSync(file, 'not json at all\n');
    assert.equal((await store.readConversation(session.conversationId)).skipped, 1);
    fs.writeFileSync(path.join(t.storeDir, 'junk.jsonl'), 'garbage\nmore garbage\n');
    assert.deepEqual((await store.listConversations()).map((c) => c.conversationId), [session.conversationId]);
    assert.deepEqual((await store.list()).map((c) => c.conversationId), [session.conversationId]);
  } finally {
    t.done();
  }
});

test('runAgent with a store records its run as a conversation of one turn', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const store = pkg.memorySessionStore();
    const run = await pkg.runAgent(t.def('agent-a'), { contextMessages: [], currentMessage: 'one question' }, { cd: t.dir, store, env: { LONG_SECRET: 'secret-value-0042' } });
    assert.equal(run.success, true, JSON.stringify(run.error));
    const [summary] = await store.listConversations();
    assert.deepEqual([summary.live.sessionId, summary.turns, summary.status, summary.title], [run.sessionId, 1, 'closed', 'one question']);
    assert.deepEqual(kinds((await store.read(summary.conversationId)).entries), ['part', 'request', 'text', 'turnEnd', 'closed']);
    await assert.rejects(pkg.runAgent(t.def('agent-a'), 'x', { cd: t.dir, store: {} }), (err) => err.code === 'INVALID_INPUT' && /options\.store/.test(err.message));
  } finally {
    t.done();
  }
});
