// The session stores through the package as apps call them: one suite of
// the store interface run on both openSessionStore (files in a folder) and
// memorySessionStore, then what only files have to show: a writer killed
// in the middle of appending, two processes opening one session, a stale
// lock taken over, the index of list(), and a watcher in another process.
// The records are the core's own: whole sessions recorded from the real
// agents' ACP transcripts (tests/fixtures/acp/) by the core's recorder.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');

const ROOT = path.join(__dirname, '..', '..');
const { __sessionRecordOfAcp } = require(path.join(ROOT, 'pkg', 'node', 'agent_context_node.js'));

/** A real session's record: `turns` turns of Claude's recorded tool transcript. */
function realRecord(turns, prompt = 'Read the notes') {
  const output = fs.readFileSync(path.join(ROOT, 'tests/fixtures/acp/claude/0.101.0/tool.jsonl'), 'utf8');
  return __sessionRecordOfAcp('claude-code', Array(turns).fill(output), prompt);
}

/** A record's header (its first line, parsed) and its entry lines, each with its `\n`. */
function split(record) {
  const lines = record.split('\n').filter(Boolean).map((l) => `${l}\n`);
  return { header: JSON.parse(lines[0]), lines: lines.slice(1) };
}

/** A 1.x header: a store keeps any record the core writes or wrote (1.x records are still read). */
function header(sessionId, agentType = 'claude-code') {
  return { format: 'agent-context/session-record', version: '1.0', sessionId, agentType, createdAt: 1_000 };
}

/** The entries of `lines` as a conversation's page names them: by its agent session. */
const named = (lines, sessionId, agentType = 'claude-code') => lines.map((l) => ({ sessionId, agentType, ...JSON.parse(l) }));

/** Entry lines in the record's format, from `seq` on (what a recorder writes). */
function lines(seq, entries) {
  return entries.map((e, i) => `${JSON.stringify({ seq: seq + i, at: 2_000 + seq + i, ...e })}\n`).join('');
}

const opened = (over = {}) => ({ kind: 'opened', agentType: 'claude-code', protocol: 'acp', cd: '/w/app', ...over });

function tmpDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-store-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const locked = (err) => err instanceof pkg.AgentContextError && err.code === 'SESSION_LOCKED';
const invalid = (pattern) => (err) => err instanceof pkg.AgentContextError && err.code === 'INVALID_INPUT' && pattern.test(err.message);

/** Collects what a watch hands over until `count` entries came (or 10 s passed). */
function collect(store, sessionId, after) {
  const got = [];
  let wake = () => {};
  const unwatch = store.watch(sessionId, { after }, (entry) => {
    got.push(entry);
    wake();
  });
  return {
    got,
    unwatch,
    async until(count) {
      const deadline = Date.now() + 10_000;
      while (got.length < count && Date.now() < deadline) {
        await new Promise((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
      return got;
    },
  };
}

for (const [name, make] of [
  ['openSessionStore', (t) => pkg.openSessionStore(tmpDir(t))],
  ['memorySessionStore', () => pkg.memorySessionStore()],
]) {
  test(`${name}: a session written, read back, listed and deleted`, async (t) => {
    const store = make(t);
    const record = split(realRecord(3));
    const writer = await store.open('s-1', { ...record.header, conversationId: 's-1' });
    // The entries of one moment go in one append.
    for (let i = 0; i < record.lines.length; i += 3) writer.append(record.lines.slice(i, i + 3).join(''));
    const all = await store.read('s-1');
    assert.equal(all.entries.length, record.lines.length);
    const live = all.entries.at(-1).sessionId; // as a turn's end names the agent session
    assert.deepEqual(all.entries, named(record.lines, live));
    assert.equal(all.cursor, all.entries.at(-1).seq);
    assert.deepEqual(all.entries.map((e) => e.kind).slice(0, 6), ['part', 'request', 'text', 'toolCall', 'toolCall', 'text']);
    // Pages through the cursor.
    const first = await store.read('s-1', { limit: 5 });
    const rest = await store.read('s-1', { after: first.cursor });
    assert.deepEqual([...first.entries, ...rest.entries], all.entries);
    assert.deepEqual(await store.read('s-1', { after: all.cursor }), { entries: [], cursor: all.cursor, skipped: 0 });
    // No record: no entries.
    assert.deepEqual(await store.read('nobody', { after: 3 }), { entries: [], cursor: 3, skipped: 0 });

    const [summary] = await store.list();
    assert.equal(summary.conversationId, 's-1');
    assert.equal(summary.sessionId, live);
    assert.equal(summary.agentType, 'claude-code');
    assert.equal(summary.protocol, 'acp');
    assert.equal(summary.title, 'Read the notes');
    assert.equal(summary.turns, 3);
    assert.equal(summary.status, 'closed');
    assert.equal(typeof summary.usage, 'object');
    assert.ok(summary.updatedAt >= summary.createdAt);
    await writer.close();
    await store.delete('s-1');
    assert.deepEqual(await store.list(), []);
    assert.deepEqual((await store.read('s-1')).entries, []);
    await store.delete('s-1'); // nothing there: no error
  });

  test(`${name}: list filters and orders, and says open, closed or interrupted`, async (t) => {
    const store = make(t);
    const a = await store.open('a', header('a'));
    a.append(lines(1, [opened({ cd: '/w/one' }), { kind: 'request', turn: 1, text: 'First\n  prompt' }]));
    const b = await store.open('b', header('b', 'opencode'));
    b.append(lines(1, [opened({ agentType: 'opencode', cd: '/w/two', teamId: 'team-1' }), { kind: 'request', turn: 1, text: 'Hi' }, { kind: 'turnEnd', turn: 1, durationMs: 5, usage: { inputTokens: 7 } }]));
    b.append(lines(4, [{ kind: 'closed' }]));
    // A turn running while its writer holds the record is open.
    let list = await store.list();
    assert.deepEqual(list.map((s) => [s.sessionId, s.status]), [['b', 'closed'], ['a', 'open']]);
    assert.equal(list[1].title, 'First prompt');
    assert.deepEqual(list[0].usage, { inputTokens: 7 });
    assert.equal(list[0].teamId, 'team-1');
    assert.deepEqual((await store.list({ agentType: 'opencode' })).map((s) => s.sessionId), ['b']);
    assert.deepEqual((await store.list({ cd: '/w/one' })).map((s) => s.sessionId), ['a']);
    assert.deepEqual((await store.list({ teamId: 'team-1', cd: '/w/one' })).map((s) => s.sessionId), []);
    // Its writer gone, the unfinished turn is interrupted.
    await a.close();
    await b.close();
    list = await store.list({ cd: '/w/one' });
    assert.equal(list[0].status, 'interrupted');
    await assert.rejects(store.list({ cd: 3 }), invalid(/^filter\.cd must be a string, got a number$/));
    await assert.rejects(store.list('x'), invalid(/^filter must be an object/));
  });

  test(`${name}: one writer at a time; a record goes on where it stopped`, async (t) => {
    const store = make(t);
    const w = await store.open('s', header('s'));
    w.append(lines(1, [opened(), { kind: 'request', turn: 1, text: 'one' }]));
    await assert.rejects(store.open('s', header('s')), (err) => locked(err) && /"s" is being written by another writer of this process/.test(err.message));
    await assert.rejects(store.delete('s'), locked);
    await w.close();
    assert.throws(() => w.append(lines(3, [{ kind: 'closed' }])), invalid(/writer of session "s" is closed/));
    await w.close(); // twice: nothing more
    const again = await store.open('s', header('s'));
    again.append(lines(3, [{ kind: 'interrupted', turn: 1 }, { kind: 'resumed', agentSessionId: 's' }]));
    await again.close();
    const { entries } = await store.read('s');
    assert.deepEqual(entries.map((e) => e.seq), [1, 2, 3, 4]);
    // One header, however often it was opened.
    const summary = (await store.list())[0];
    assert.equal(summary.status, 'open');
  });

  test(`${name}: bad arguments are INVALID_INPUT naming the field`, async (t) => {
    const store = make(t);
    await assert.rejects(store.open('', header('')), invalid(/^sessionId must be a non-empty string/));
    await assert.rejects(store.open('s', { ...header('s'), format: 'x' }), invalid(/^header\.format must be 'agent-context\/session-record'/));
    await assert.rejects(store.open('s', header('t')), invalid(/^header\.conversationId must be the record's id, "s", got "t"$/));
    await assert.rejects(store.read(42), invalid(/^sessionId must be/));
    await assert.rejects(store.read('s', { after: -1 }), invalid(/^options\.after must be a whole number >= 0, got -1$/));
    await assert.rejects(store.read('s', { limit: 1.5 }), invalid(/^options\.limit must be a whole number >= 0, got 1\.5$/));
    assert.throws(() => store.watch('s', {}, 'nope'), invalid(/^onEntry must be a function, got a string$/));
    assert.throws(() => store.watch('s', { after: 'x' }, () => {}), invalid(/^options\.after must be a whole number/));
    const w = await store.open('s', header('s'));
    assert.throws(() => w.append('{"seq":1'), invalid(/whole lines: the bytes must end with a newline/));
    assert.throws(() => w.append(7), invalid(/append takes a string or a Uint8Array, got a number/));
    w.append(''); // nothing: no error
    w.append(Buffer.from(lines(1, [opened()])));
    await w.close();
    assert.equal((await store.read('s')).entries.length, 1);
  });

  test(`${name}: a watcher from a cursor gets every entry after it, in order, as it comes`, async (t) => {
    const store = make(t);
    const w = await store.open('s', header('s'));
    w.append(lines(1, [opened(), { kind: 'request', turn: 1, text: 'go' }, { kind: 'text', turn: 1, text: 'a' }]));
    const fromTwo = collect(store, 's', 2);
    const fromZero = collect(store, 's', 0);
    assert.deepEqual((await fromTwo.until(1)).map((e) => e.seq), [3]);
    for (let seq = 4; seq <= 40; seq += 2) {
      w.append(lines(seq, [{ kind: 'text', turn: 1, text: `t${seq}` }, { kind: 'text', turn: 1, text: `t${seq + 1}` }]));
      if (seq % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.deepEqual((await fromTwo.until(39)).map((e) => e.seq), Array.from({ length: 39 }, (_, i) => i + 3));
    assert.deepEqual((await fromZero.until(41)).map((e) => e.seq), Array.from({ length: 41 }, (_, i) => i + 1));
    fromTwo.unwatch();
    w.append(lines(42, [{ kind: 'closed' }]));
    await fromZero.until(42);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(fromTwo.got.length, 39, 'nothing after unwatch');
    assert.equal(fromZero.got.at(-1).kind, 'closed');
    fromZero.unwatch();
    await w.close();
    // A watcher of a session not written yet waits for it.
    const later = collect(store, 'later', 0);
    const lw = await store.open('later', header('later'));
    lw.append(lines(1, [opened()]));
    assert.deepEqual((await later.until(1)).map((e) => e.kind), ['opened']);
    later.unwatch();
    await lw.close();
  });
}

/** Runs `script` (CommonJS, the package required as `pkg`) in a new Node process; kills it by its pid after 30 s. */
function child(script, { onLine } = {}) {
  const proc = spawn(process.execPath, ['-e', `const pkg = require('agent-context');\n${script}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => {
    out += d;
    let nl;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      if (onLine) onLine(line);
    }
  });
  proc.stderr.on('data', (d) => {
    err += d;
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
  const exited = new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr: err });
    });
  });
  return { proc, exited };
}

function waitFor(check, ms = 15_000) {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() > deadline) return reject(new Error('timed out'));
      setTimeout(tick, 10);
    };
    tick();
  });
}

test('openSessionStore: a writer SIGKILLed while appending leaves every earlier entry readable', async (t) => {
  const dir = tmpDir(t);
  const file = path.join(dir, 's.jsonl');
  // Lines of 64 KiB and more, one write each, as fast as it can: the kill
  // lands between writes or inside one.
  const { proc, exited } = child(`
    const store = pkg.openSessionStore(${JSON.stringify(dir)});
    store.open('s', ${JSON.stringify(header('s'))}).then((w) => {
      w.append(${JSON.stringify(lines(1, [opened(), { kind: 'request', turn: 1, text: 'long one' }]))});
      const big = 'x'.repeat(64 * 1024);
      for (let seq = 3; ; seq++) w.append(JSON.stringify({ seq, at: seq, kind: 'text', turn: 1, text: big + seq }) + '\\n');
    });
  `);
  t.after(() => proc.kill('SIGKILL'));
  await waitFor(() => fs.existsSync(file) && fs.statSync(file).size > 4 * 1024 * 1024);
  proc.kill('SIGKILL');
  const { signal } = await exited;
  assert.equal(signal, 'SIGKILL');
  const bytes = fs.readFileSync(file);
  const whole = bytes.toString('utf8').split('\n').length - 2; // entry lines ended by \n
  const store = pkg.openSessionStore(dir);
  const { entries, cursor } = await store.read('s');
  assert.ok(entries.length >= 60, `${entries.length} entries`);
  assert.equal(entries.length, whole);
  assert.deepEqual(entries.map((e) => e.seq), Array.from({ length: entries.length }, (_, i) => i + 1));
  assert.equal(entries.at(-1).text, `${'x'.repeat(64 * 1024)}${cursor}`);
  // The writer is gone: its turn is interrupted, and its lock is stale.
  assert.equal((await store.list())[0].status, 'interrupted');
  assert.ok(fs.existsSync(path.join(dir, 's.lock')));
  // A torn last line (made sure of here) is ended before the next writer appends.
  fs.appendFileSync(file, '{"seq":999999,"at":1,"kind":"text","text":"tor');
  const w = await store.open('s', header('s'));
  w.append(lines(cursor + 1, [{ kind: 'interrupted', turn: 1 }]));
  await w.close();
  const after = await store.read('s', { after: cursor });
  assert.deepEqual(after.entries.map((e) => [e.seq, e.kind]), [[cursor + 1, 'interrupted']]);
  assert.equal((await store.list())[0].status, 'open');
  assert.ok(!fs.existsSync(path.join(dir, 's.lock')), 'close() removes the lock');
});

test('openSessionStore: a second process opening a session being written is refused; once it is gone, it opens', async (t) => {
  const dir = tmpDir(t);
  let ready = false;
  const { proc, exited } = child(
    `
    const store = pkg.openSessionStore(${JSON.stringify(dir)});
    store.open('s', ${JSON.stringify(header('s'))}).then((w) => {
      w.append(${JSON.stringify(lines(1, [opened()]))});
      console.log('open');
      process.stdin.resume();
      setTimeout(() => w.close().then(() => console.log('closed')), 60_000);
    });
  `,
    { onLine: (line) => (ready = ready || line === 'open') },
  );
  t.after(() => proc.kill('SIGKILL'));
  await waitFor(() => ready);
  const store = pkg.openSessionStore(dir);
  await assert.rejects(store.open('s', header('s')), (err) => locked(err) && err.message.includes(`process ${proc.pid}`) && err.sessionId === 's');
  await assert.rejects(store.delete('s'), locked);
  assert.equal((await store.list())[0].status, 'open');
  // Another session of the same folder is no trouble.
  await (await store.open('other', header('other'))).close();
  proc.kill('SIGKILL');
  await exited;
  const w = await store.open('s', header('s'));
  w.append(lines(2, [{ kind: 'closed' }]));
  await w.close();
  assert.deepEqual((await store.read('s')).entries.map((e) => e.kind), ['opened', 'closed']);
});

test('openSessionStore: a stale lock (its process gone) is taken over; a live one is not', async (t) => {
  const dir = tmpDir(t);
  const store = pkg.openSessionStore(dir);
  const gone = child('');
  await gone.exited;
  const lock = path.join(dir, 's.lock');
  fs.writeFileSync(lock, JSON.stringify({ pid: gone.proc.pid, host: os.hostname(), token: 'old', since: 1 }));
  const w = await store.open('s', header('s'));
  assert.equal(JSON.parse(fs.readFileSync(lock, 'utf8')).pid, process.pid);
  await w.close();
  assert.ok(!fs.existsSync(lock));
  // A torn lock (not JSON) is stale too.
  fs.writeFileSync(lock, '{"pid":');
  await (await store.open('s', header('s'))).close();
  // A lock of this process left by an earlier process with the same pid (not
  // one of this store's writers) is stale.
  fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), token: 'from-before' }));
  await (await store.open('s', header('s'))).close();
  // A live process's lock, or one of another host, is not taken over.
  fs.writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: os.hostname(), token: 'x' }));
  await assert.rejects(store.open('s', header('s')), (err) => locked(err) && err.message.includes(`process ${process.ppid}`));
  fs.writeFileSync(lock, JSON.stringify({ pid: gone.proc.pid, host: 'another-host.example', token: 'x' }));
  await assert.rejects(store.open('s', header('s')), locked);
  fs.rmSync(lock);
  // No temporary file left behind.
  assert.deepEqual(fs.readdirSync(dir).sort(), ['s.jsonl']);
});

test('openSessionStore: list() reads only the records that changed, through its index', async (t) => {
  const dir = tmpDir(t);
  const store = pkg.openSessionStore(dir);
  for (const id of ['a', 'b', 'weird id/ü.x']) {
    const w = await store.open(id, header(id));
    w.append(lines(1, [opened(), { kind: 'request', turn: 1, text: `hello ${id}` }, { kind: 'turnEnd', turn: 1, durationMs: 1 }]));
    await w.close();
  }
  assert.deepEqual(fs.readdirSync(dir).sort(), ['a.jsonl', 'b.jsonl', 'weird%20id%2F%C3%BC%2Ex.jsonl']);
  const list = await store.list();
  assert.deepEqual(list.map((s) => s.sessionId).sort(), ['a', 'b', 'weird id/ü.x']);
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8'));
  assert.deepEqual(Object.keys(index.records).sort(), ['a', 'b', 'weird%20id%2F%C3%BC%2Ex']);
  // A summary in the index is used while its record is unchanged …
  index.records.a.summary.title = 'from the index';
  fs.writeFileSync(path.join(dir, 'index.json'), JSON.stringify(index));
  assert.equal((await store.list()).find((s) => s.sessionId === 'a').title, 'from the index');
  // … and read again once it changed.
  const w = await store.open('a', header('a'));
  w.append(lines(4, [{ kind: 'request', turn: 2, text: 'more' }]));
  await w.close();
  const a = (await store.list()).find((s) => s.sessionId === 'a');
  assert.deepEqual([a.title, a.turns, a.status], ['hello a', 2, 'interrupted']);
  // A torn index is rebuilt; a deleted record leaves it.
  fs.writeFileSync(path.join(dir, 'index.json'), '{"version":1,"rec');
  await store.delete('b');
  assert.deepEqual((await store.list()).map((s) => s.sessionId).sort(), ['a', 'weird id/ü.x']);
  assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')).records).sort(), ['a', 'weird%20id%2F%C3%BC%2Ex']);
  // Garbage appended to a record changes nothing read, and is counted.
  const before = await store.read('a');
  fs.appendFileSync(path.join(dir, 'a.jsonl'), 'garbage\n{"seq":2,"at":1,"kind":"text","text":"again"}\n[1]\n\u0000\u0001');
  const after = await store.read('a');
  assert.deepEqual([after.entries, after.cursor], [before.entries, before.cursor]);
  assert.deepEqual([before.skipped, after.skipped], [0, 3]);
  // A record of a newer major version is left out of list(); read() says why.
  fs.writeFileSync(path.join(dir, 'new.jsonl'), `${JSON.stringify({ ...header('new'), version: '3.0' })}\n${lines(1, [opened()])}`);
  assert.deepEqual((await store.list()).map((s) => s.sessionId).sort(), ['a', 'weird id/ü.x']);
  await assert.rejects(store.read('new'), invalid(/version "3\.0"; this library reads versions up to 2\.x/));
  // A file of garbage is no conversation: not listed.
  fs.writeFileSync(path.join(dir, 'junk.jsonl'), 'not a record\n{"a":1}\n');
  assert.deepEqual((await store.list()).map((s) => s.sessionId).sort(), ['a', 'weird id/ü.x']);
  assert.throws(() => pkg.openSessionStore(path.join(dir, 'a.jsonl')), invalid(/^dir (cannot be used|is not a folder)/));
  assert.throws(() => pkg.openSessionStore(''), invalid(/^dir must be a folder's path/));
});

test('openSessionStore: a second observer in another process follows the record as it is written', async (t) => {
  const dir = tmpDir(t);
  const store = pkg.openSessionStore(dir);
  const w = await store.open('s', header('s'));
  w.append(lines(1, [opened()]));
  const seen = [];
  const { proc, exited } = child(
    `
    const store = pkg.openSessionStore(${JSON.stringify(dir)});
    const unwatch = store.watch('s', { after: 0 }, (e) => {
      console.log(JSON.stringify([e.seq, e.kind]));
      if (e.kind === 'closed') { unwatch(); }
    });
    setTimeout(() => {}, 20_000);
  `,
    { onLine: (line) => seen.push(JSON.parse(line)) },
  );
  t.after(() => proc.kill('SIGKILL'));
  await waitFor(() => seen.length === 1);
  for (let seq = 2; seq <= 20; seq++) {
    w.append(lines(seq, [{ kind: seq === 20 ? 'closed' : 'restarted' }]));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await waitFor(() => seen.length === 20);
  assert.deepEqual(seen.map(([seq]) => seq), Array.from({ length: 20 }, (_, i) => i + 1));
  assert.deepEqual(seen.at(-1), [20, 'closed']);
  proc.kill('SIGKILL');
  await exited;
  await w.close();
});

test('readSessionRecord and summarizeSessionRecord read a real session, from bytes or text', () => {
  const record = realRecord(2, 'Please   read\nthe notes');
  const fromText = pkg.readSessionRecord(record);
  const fromBytes = pkg.readSessionRecord(Buffer.from(record));
  assert.deepEqual(fromText, fromBytes);
  assert.deepEqual(fromText.entries, split(record).lines.map((l) => JSON.parse(l)));
  const summary = pkg.summarizeSessionRecord(record);
  assert.equal(summary.title, 'Please read the notes');
  assert.equal(summary.turns, 2);
  assert.equal(summary.status, 'closed');
  assert.equal(summary.conversationId, 'bench-conversation');
  // The live end: the part's agent session as the last turn's end naming one names it.
  assert.equal(summary.sessionId, fromText.entries.findLast((e) => e.kind === 'turnEnd' && e.agentSessionId).agentSessionId);
  assert.deepEqual(summary.parts.map((p) => [p.agentType, p.reason, p.fromTurn]), [['claude-code', 'opened', 1]]);
  // A torn write and garbage change nothing.
  assert.deepEqual(pkg.readSessionRecord(`${record.slice(0, -1)}`).entries.length, fromText.entries.length - 1);
  // Garbage and a seq written again are counted as skipped; a torn last line is not read yet.
  assert.deepEqual(pkg.readSessionRecord(`${record}not json\n{"seq":1,"at":1,"kind":"x"}\n{"seq":`), { ...fromText, skipped: 2 });
  // A kind of a newer minor version is kept as it is.
  const newer = `${record}${JSON.stringify({ seq: fromText.cursor + 1, at: 5, kind: 'hologram', depth: [1, 2] })}\n`;
  assert.deepEqual(pkg.readSessionRecord(newer, { after: fromText.cursor }).entries, [{ seq: fromText.cursor + 1, at: 5, kind: 'hologram', depth: [1, 2] }]);
  assert.throws(() => pkg.readSessionRecord(5), invalid(/^record must be a string or a Uint8Array, got a number$/));
  assert.throws(() => pkg.readSessionRecord('', []), invalid(/^options must be an object, got an array$/));
  assert.throws(() => pkg.summarizeSessionRecord('', { writing: 'yes' }), invalid(/^options\.writing must be a boolean/));
});

test('a record on its way to a store whose append takes time (a database): lines added meanwhile go in the next append, none lost, in order', async () => {
  const { RecordWriter } = require(path.join(ROOT, 'pkg', 'node', 'record-writer.cjs'));
  const memory = pkg.memorySessionStore();
  const batches = [];
  // The memory store behind an append that resolves 5 ms later, as a database's does.
  const slow = {
    ...memory,
    async open(id, h) {
      const w = await memory.open(id, h);
      return {
        sessionId: id,
        async append(bytes) {
          batches.push(bytes.split('\n').length - 1);
          await new Promise((resolve) => setTimeout(resolve, 5));
          w.append(bytes);
        },
        close: () => w.close(),
      };
    },
  };
  const record = new RecordWriter({ store: slow, id: 's', header: header('s') });
  for (let seq = 1; seq <= 30; seq++) {
    record.add(lines(seq, [seq === 1 ? opened() : { kind: 'restarted' }]));
    if (seq % 7 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await record.close();
  assert.equal(record.unwritten, 0);
  assert.deepEqual((await memory.read('s')).entries.map((e) => e.seq), Array.from({ length: 30 }, (_, i) => i + 1));
  assert.ok(batches.length > 1 && batches.length < 30, `batches of ${batches.join(', ')} lines`);
});
