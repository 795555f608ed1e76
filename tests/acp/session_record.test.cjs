// The session record through the package, on the scripted ACP agent
// (tests/acp/client_agent.mjs, given as an AgentDefinition: a peer for our
// host, never a stand-in for a real agent's output): every session
// recorded, read back, watched; restored in a new process and rebuilt for
// an agent that cannot resume; a host killed in the middle of a turn; one
// writer at a time; fork at a turn; handoff and failover to another agent.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');

const AGENT = path.join(__dirname, 'client_agent.mjs');
const PKG = path.dirname(require.resolve('agent-context/package.json'));
const TEST_TIMEOUT_MS = 60_000;

function setUp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-record-'));
  const log = path.join(dir, 'agent.log');
  const def = (id, env = {}) => ({ id, name: `Scripted ${id}`, command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: log, ...env }, protocol: 'acp' });
  const prompts = () =>
    fs.existsSync(log)
      ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.method === 'session/prompt').map((e) => e.params.prompt.map((b) => b.text ?? '').join(''))
      : [];
  return { dir, storeDir: path.join(dir, 'sessions'), def, prompts, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
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

test('a session is recorded as it goes: history, watch, the store, never a secret', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const store = pkg.openSessionStore(t.storeDir);
    const session = await pkg.openAgentSession(t.def('agent-a'), { cd: t.dir, store, env: { API_TOKEN: 'tok-9f8e7d6c5b4a' } });
    const watched = [];
    const unwatch = session.watch({}, (e) => watched.push(`${e.seq}:${e.kind}`));
    assert.equal((await session.prompt('Remember tok-9f8e7d6c5b4a')).success, true);
    assert.equal((await session.prompt('PLAN the work')).success, true);
    const { entries, cursor } = session.history();
    assert.deepEqual(entries.map((e) => e.kind), ['opened', 'request', 'text', 'turnEnd', 'request', 'plan', 'text', 'turnEnd']);
    assert.equal(cursor, 8);
    assert.equal(entries[0].agentSessionId, session.sessionId);
    assert.equal(entries[1].text, 'Remember [redacted]');
    assert.equal(entries[5].entries.length, 3);
    assert.deepEqual(session.history({ after: 6 }).entries.map((e) => e.kind), ['text', 'turnEnd']);
    // While it is open, its record is held: another writer is refused.
    const header = { format: 'agent-context/session-record', version: '1.0', sessionId: session.sessionId, agentType: 'agent-a', createdAt: 1 };
    await assert.rejects(store.open(session.sessionId, header), (err) => err.code === 'SESSION_LOCKED');
    await session.close();
    unwatch();
    assert.deepEqual(watched, entries.map((e) => `${e.seq}:${e.kind}`).concat(['9:closed']));
    const [summary] = await store.list();
    assert.equal(summary.sessionId, session.sessionId);
    assert.equal(summary.status, 'closed');
    assert.equal(summary.turns, 2);
    assert.equal(summary.title, 'Remember [redacted]');
    const file = fs.readdirSync(t.storeDir).find((n) => n.endsWith('.jsonl'));
    const text = fs.readFileSync(path.join(t.storeDir, file), 'utf8');
    assert.doesNotMatch(text, /tok-9f8e7d6c5b4a/);
    assert.equal(JSON.parse(text.split('\n')[0]).format, 'agent-context/session-record');
    assert.deepEqual((await store.read(session.sessionId)).entries, session.history().entries);
  } finally {
    t.done();
  }
});

test('restored in a new process: an agent that cannot load is session_not_found, or rebuilt from the record with rebuild: true', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const def = t.def('agent-a');
    const { out } = await inOtherProcess(`
      const pkg = require('agent-context');
      (async () => {
        const s = await pkg.openAgentSession(${JSON.stringify(def)}, { cd: ${JSON.stringify(t.dir)}, store: pkg.openSessionStore(${JSON.stringify(t.storeDir)}) });
        await s.prompt('The launch code is 4217.');
        await s.prompt('And the door is blue.');
        console.log('id=' + s.sessionId);
        await s.close();
      })();`);
    const oldId = /id=(\S+)/.exec(out)[1];
    const store = pkg.openSessionStore(t.storeDir);
    // The scripted agent does not load sessions: without rebuild, as before.
    await assert.rejects(pkg.openAgentSession(def, { cd: t.dir, store, sessionId: oldId }), (err) => err.kind === 'session_not_found');
    const session = await pkg.openAgentSession(def, { cd: t.dir, store, sessionId: oldId, rebuild: true });
    try {
      assert.notEqual(session.sessionId, oldId);
      assert.equal(session.rebuiltFrom, oldId);
      const turn = await session.prompt('What was the code?');
      assert.equal(turn.success, true);
      assert.equal(turn.context.kind, 'full');
      assert.equal(turn.context.carried, 4);
      const sent = t.prompts().at(-1);
      for (const said of ['The launch code is 4217.', 'And the door is blue.', 'Hello from turn 2', 'What was the code?']) assert.ok(sent.includes(said), `${said} in ${sent}`);
      const mine = session.history().entries;
      assert.deepEqual(mine.slice(0, 3).map((e) => e.kind), ['opened', 'link', 'request']);
      assert.deepEqual([mine[1].relation, mine[1].sessionId], ['rebuiltFrom', oldId]);
      assert.equal(mine[2].text, 'What was the code?', 'the record keeps the user\'s words, not the carried prompt');
    } finally {
      await session.close();
    }
    const old = (await store.read(oldId)).entries;
    assert.deepEqual([old.at(-1).kind, old.at(-1).relation, old.at(-1).sessionId], ['link', 'rebuiltTo', session.sessionId]);
    const summaries = await store.list();
    assert.equal(summaries.find((s) => s.sessionId === session.sessionId).linkedFrom.sessionId, oldId);
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
        s.prompt('HANG here', { onEvent: (e) => e.type === 'text' && console.log('id=' + s.sessionId) });
      })();`,
      { until: /id=\S+\n/ },
    );
    const id = /id=(\S+)/.exec(out)[1];
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const store = pkg.openSessionStore(t.storeDir);
    const [summary] = await store.list();
    assert.equal(summary.sessionId, id);
    assert.equal(summary.status, 'interrupted');
    // The running turn's text is held until its next entry (text is coalesced): its request is there.
    assert.deepEqual((await store.read(id)).entries.map((e) => e.kind), ['opened', 'request', 'text', 'turnEnd', 'request']);
    // Its next writer marks the turn that never ended, then goes on.
    const session = await pkg.openAgentSession(def, { cd: t.dir, store, sessionId: id, rebuild: true });
    await session.close();
    const after = (await store.read(id)).entries.map((e) => e.kind);
    assert.deepEqual(after.slice(5), ['interrupted', 'link']);
  } finally {
    t.done();
  }
});

test('fork at a turn, and handoff to another agent, carry the conversation and link both records', { timeout: TEST_TIMEOUT_MS }, async () => {
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
    assert.equal(fork.forkedFrom, session.sessionId);
    await fork.close();
    await assert.rejects(session.fork({ atTurn: 3 }), (err) => err.code === 'INVALID_INPUT' && /atTurn/.test(err.message));
    const next = await session.handoff(t.def('agent-b'));
    assert.equal(next.agentType, 'agent-b');
    assert.equal(session.handedOffTo, next);
    assert.equal((await next.prompt('four')).context.carried, 4);
    assert.ok(t.prompts().at(-1).includes('two: pears'));
    await next.close();
    await session.close();
    const links = (id) => store.read(id).then((r) => r.entries.filter((e) => e.kind === 'link').map((e) => `${e.relation}:${e.sessionId}`));
    assert.deepEqual(await links(session.sessionId), [`forkedTo:${fork.sessionId}`, `handedOffTo:${next.sessionId}`]);
    assert.deepEqual(await links(next.sessionId), [`handedOffFrom:${session.sessionId}`]);
    assert.deepEqual(await links(fork.sessionId), [`forkedFrom:${session.sessionId}`]);
  } finally {
    t.done();
  }
});

test('failover: a turn over its quota runs again on the next agent of fallback, which the session goes on with', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const events = [];
    const session = await pkg.openAgentSession(t.def('agent-a', { CLIENT_AGENT_OVER_QUOTA: '1' }), {
      cd: t.dir,
      maxRetries: 0,
      fallback: [{ agent: t.def('agent-b') }],
    });
    const first = session.sessionId;
    const turn = await session.prompt('hello', { onEvent: (e) => e.type === 'handoff' && events.push(e) });
    assert.equal(turn.success, true, JSON.stringify(turn.error));
    assert.deepEqual(turn.handedOffTo, { agentType: 'agent-b', sessionId: session.sessionId });
    assert.equal(events.length, 1);
    assert.equal(events[0].reason, 'quota_exceeded');
    assert.equal(events[0].from.sessionId, first);
    assert.equal(session.agentType, 'agent-b');
    assert.equal((await session.prompt('again')).success, true);
    assert.deepEqual(session.history().entries.filter((e) => e.kind === 'link').map((e) => e.relation), ['handedOffFrom']);
    await session.close();
    // An attachment that is not an image is the turn's invalid_params: refused, never handed off.
    fs.writeFileSync(path.join(t.dir, 'notes.txt'), 'plain text');
    const refusing = await pkg.openAgentSession(t.def('agent-a', { CLIENT_AGENT_OVER_QUOTA: '1' }), { cd: t.dir, maxRetries: 0, fallback: [t.def('agent-b')] });
    const seen = [];
    const refused = await refusing.prompt('look', { attachments: [{ type: 'image', path: 'notes.txt' }], onEvent: (e) => seen.push(e.type) });
    assert.equal(refused.error.kind, 'invalid_params', JSON.stringify(refused.error));
    assert.equal(refused.handedOffTo, undefined);
    assert.ok(!seen.includes('handoff'));
    assert.equal(refusing.agentType, 'agent-a');
    await refusing.close();
    // Bad input is never handed off.
    await assert.rejects(pkg.openAgentSession(t.def('agent-a'), { cd: t.dir, fallback: 'agent-b' }), (err) => err.code === 'INVALID_INPUT');
  } finally {
    t.done();
  }
});

test('runAgent with a store records its run as a session turn', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const store = pkg.memorySessionStore();
    const run = await pkg.runAgent(t.def('agent-a'), { contextMessages: [], currentMessage: 'one question' }, { cd: t.dir, store, env: { LONG_SECRET: 'secret-value-0042' } });
    assert.equal(run.success, true, JSON.stringify(run.error));
    const [summary] = await store.list();
    assert.deepEqual([summary.sessionId, summary.turns, summary.status, summary.title], [run.sessionId, 1, 'closed', 'one question']);
    assert.deepEqual((await store.read(run.sessionId)).entries.map((e) => e.kind), ['opened', 'request', 'text', 'turnEnd', 'closed']);
    await assert.rejects(pkg.runAgent(t.def('agent-a'), 'x', { cd: t.dir, store: {} }), (err) => err.code === 'INVALID_INPUT' && /options\.store/.test(err.message));
  } finally {
    t.done();
  }
});
