// openPostgresSessionStore against a real PostgreSQL (Debian's, started
// here on 127.0.0.1 by ./server.cjs, stopped at the end): conversations
// recorded by the package in other processes, on the scripted ACP agent
// (tests/acp/client_agent.mjs: a peer for our host, never a stand-in for a
// real agent's output) — a failover, a plan, a fork, a handoff, a team of
// two — read here as the file store reads the same turns;
// the same bytes, pages, summaries and conversations as the file store;
// one writer per conversation across processes (a second is refused, a
// SIGKILLed holder frees it at once and its turn reads interrupted); a
// watcher in another process through LISTEN/NOTIFY; a lost connection;
// the tables made once, a newer schema refused; `pg` missing; and SQL
// metacharacters in every id and filter.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');
const { postgresForTests } = require('./server.cjs');

const ROOT = path.join(__dirname, '..', '..');
const PKG_NODE = path.join(ROOT, 'pkg', 'node');
const AGENT = path.join(ROOT, 'tests', 'acp', 'client_agent.mjs');
const { storeFromUrl } = require(path.join(PKG_NODE, 'store-from-url.cjs'));
const TIMEOUT = { timeout: 120_000 };

const pg = postgresForTests('store');
/** A database of its own for a test (made from template0, UTF8): `{ name, url, sql(query) }`. */
const database = () => pg.database();

const locked = (err) => err instanceof pkg.AgentContextError && err.code === 'SESSION_LOCKED';
const invalid = (pattern) => (err) => err instanceof pkg.AgentContextError && err.code === 'INVALID_INPUT' && pattern.test(err.message);
const kinds = (entries) => entries.map((e) => e.kind);

/** The scripted agent as an AgentDefinition (`id` its agent type). */
function agent(id, env = {}) {
  return { id, name: `Scripted ${id}`, command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: path.join(pg.work, `${id}.log`), ...env }, protocol: 'acp' };
}

/**
 * Runs `body` (an async function's body: `pkg`, `store` — storeFromUrl of
 * `where` — and `say(line)` in scope) in a new Node process (SIGKILLed
 * after 60 s). `{ child, lines, line(re), done }`: its stdout lines so far;
 * `line(re)` resolves the first that matches; `done` resolves the lines
 * once it exits 0.
 */
function inOtherProcess(where, body) {
  const script = `
    const pkg = require('agent-context');
    const { storeFromUrl } = require(${JSON.stringify(path.join(PKG_NODE, 'store-from-url.cjs'))});
    const store = storeFromUrl(${JSON.stringify(where)});
    const say = (line) => process.stdout.write(line + '\\n');
    (async () => { ${body} })().catch((err) => { console.error(err); process.exit(3); });`;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = [];
  const waiting = [];
  let rest = '';
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  child.stdout.on('data', (d) => {
    rest += d;
    const parts = rest.split('\n');
    rest = parts.pop();
    for (const line of parts) {
      lines.push(line);
      for (const w of waiting.filter((x) => x.re.test(line))) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const done = new Promise((resolve, reject) => {
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      for (const w of waiting) w.reject(new Error(`exited ${code ?? signal} before ${w.re}: ${lines.join('\n')}`));
      if (code !== 0) reject(new Error(`exited ${code ?? signal}: ${lines.join('\n')}`));
      else resolve(lines);
    });
  });
  done.catch(() => {});
  const line = (re) => {
    const found = lines.find((l) => re.test(l));
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => waiting.push({ re, resolve, reject }));
  };
  return { child, lines, line, done };
}

/** The same turns, in a process of their own, recorded in the store `where` names: the conversations' ids. */
async function recordTurns(where, cd) {
  const a = agent('agent-a', { CLIENT_AGENT_OVER_QUOTA: 'tool' });
  const b = agent('agent-b');
  const lines = await inOtherProcess(
    where,
    `
    // A failover in the first turn, a plan in the second.
    const s = await pkg.openAgentSession(${JSON.stringify(a)}, { cd: ${JSON.stringify(cd)}, maxRetries: 0, store, fallback: [{ agent: ${JSON.stringify(b)} }] });
    await s.prompt('hello there');
    await s.prompt('PLAN the work');
    // A fork at turn 1, one turn of its own.
    const f = await s.fork({ atTurn: 1 });
    await f.prompt('and the fork?');
    await f.close();
    // A handoff: the conversation moves to agent-b's new session.
    const h = await s.handoff(${JSON.stringify(b)});
    await h.prompt('after the handoff');
    await h.close();
    // A team of two: its own record, and a conversation per member.
    const team = new pkg.AgentTeam({ teamTask: 'Ship the parser', cd: ${JSON.stringify(cd)}, store, maxRetries: 0, logger: () => {},
      members: [{ id: 'carol', definition: ${JSON.stringify(agent('agent-a'))} }, { id: 'max', definition: ${JSON.stringify(b)} }] });
    team.post({ from: 'kailai', to: 'carol', content: 'Write the parser' });
    await team.ask('carol');
    await team.ask('max', { message: 'Review it' });
    await team.close();
    say(JSON.stringify({ main: s.conversationId, fork: f.conversationId, team: team.teamId, carol: team.members.find((m) => m.id === 'carol').conversationId }));
    await store.close?.();`,
  ).done;
  return JSON.parse(lines.at(-1));
}

/** An entry (or summary) without what differs from one run to the next: ids, times and durations, at any depth. */
function shape(value) {
  if (Array.isArray(value)) return value.map(shape);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    if (['sessionId', 'agentSessionId', 'conversationId', 'teamId'].includes(k)) out[k] = typeof v === 'string' ? 'id' : v;
    else if (['at', 'durationMs', 'createdAt', 'updatedAt'].includes(k)) out[k] = typeof v === 'number' ? 0 : v;
    else out[k] = shape(v);
  }
  return out;
}

test('a conversation recorded by another process reads here with the same entries, in the same order, as the file store writes for the same turns', TIMEOUT, async () => {
  const db = database();
  const dir = path.join(pg.work, 'same-turns');
  const cd = fs.mkdtempSync(path.join(pg.work, 'cd-'));
  fs.writeFileSync(path.join(cd, 'notes.txt'), 'The launch code is 4217.');
  const inFiles = await recordTurns(dir, cd);
  const inPg = await recordTurns(db.url, cd);
  const files = pkg.openSessionStore(dir);
  const store = pkg.openPostgresSessionStore({ connectionString: db.url });
  try {
    for (const which of ['main', 'fork', 'team', 'carol']) {
      const want = await files.readConversation(inFiles[which]);
      const got = await store.readConversation(inPg[which]);
      assert.ok(want.entries.length >= 5, JSON.stringify(kinds(want.entries)));
      assert.deepEqual(kinds(got.entries), kinds(want.entries), which);
      assert.deepEqual(got.entries.map(shape), want.entries.map(shape), which);
      assert.deepEqual([got.cursor, got.skipped], [want.cursor, want.skipped]);
    }
    assert.deepEqual(kinds((await store.readConversation(inPg.main)).entries), [
      ...['part', 'request', 'toolCall', 'toolCall', 'attemptEnd', 'part', 'text', 'turnEnd'],
      // The handoff carries the conversation: the scripted agent plans again, as the word PLAN is in it.
      ...['request', 'plan', 'text', 'turnEnd', 'part', 'request', 'plan', 'text', 'turnEnd', 'closed'],
    ]);
    // The summaries the same but for ids and times.
    const order = (list) => shape(list).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    assert.deepEqual(order(await store.listConversations()), order(await files.listConversations()));
    assert.equal((await store.listConversations()).length, 4);
    // The team's: its own record under kind 'team', its members' conversations under its id.
    assert.deepEqual((await store.listConversations({ kind: 'team' })).map((c) => c.conversationId), [inPg.team]);
    assert.deepEqual((await store.listConversations({ teamId: inPg.team })).map((c) => c.memberId).sort(), ['carol', 'max']);
    assert.deepEqual((await store.list({ teamId: inPg.team })).map((c) => c.agentType).sort(), ['agent-a', 'agent-b', 'agent-team']);
  } finally {
    await store.close();
  }
});

/** Lines of a real 2.0 conversation (the file store's, recorded by the scripted agent), and its header. */
async function fileConversation(t) {
  const dir = path.join(pg.work, `conv-${t}`);
  const cd = fs.mkdtempSync(path.join(pg.work, 'cd-'));
  fs.writeFileSync(path.join(cd, 'notes.txt'), 'The launch code is 4217.');
  const ids = await recordTurns(dir, cd);
  return { dir, ids, files: pkg.openSessionStore(dir) };
}

test('the same bytes, pages, summaries and conversations as the file store, record by record', TIMEOUT, async () => {
  const db = database();
  const { ids, files, dir } = await fileConversation('bytes');
  // Beside them, a 1.x chain (read, never written, by this version): session old-a handed off to old-b, one conversation.
  const v1 = (id, entries) =>
    [{ format: 'agent-context/session-record', version: '1.1', sessionId: id, agentType: 'claude-code', createdAt: 1_000 }, ...entries.map((e, i) => ({ seq: i + 1, at: 2_000 + i, ...e }))].map((l) => `${JSON.stringify(l)}\n`).join('');
  const olds = {
    'old-a': v1('old-a', [
      { kind: 'opened', agentType: 'claude-code', protocol: 'acp', cd: '/w/app' },
      { kind: 'request', turn: 1, text: 'hello' },
      { kind: 'text', turn: 1, text: 'hi' },
      { kind: 'turnEnd', turn: 1, durationMs: 1, agentSessionId: 'old-a' },
      { kind: 'link', relation: 'handedOffTo', sessionId: 'old-b', agentType: 'openai-codex' },
      { kind: 'closed' },
    ]),
    'old-b': v1('old-b', [
      { kind: 'opened', agentType: 'openai-codex', protocol: 'cli', cd: '/w/app' },
      { kind: 'link', relation: 'handedOffFrom', sessionId: 'old-a', agentType: 'claude-code' },
      { kind: 'request', turn: 1, text: 'and now?' },
      { kind: 'text', turn: 1, text: 'done' },
      { kind: 'turnEnd', turn: 1, durationMs: 1, agentSessionId: 'old-b' },
    ]),
  };
  for (const [id, text] of Object.entries(olds)) fs.writeFileSync(path.join(dir, `${id}.jsonl`), text);
  const store = pkg.openPostgresSessionStore({ connectionString: db.url });
  try {
    // Each record copied line by line, in batches of 1 to 3 lines (as a writer appends the entries of one moment).
    const every = [...(await files.list()).map((r) => r.conversationId ?? r.sessionId)];
    assert.equal(every.length, 7); // main, fork, the team's, its two members', and the 1.x chain's two
    for (const id of every) {
      const text = (await files.bytes(id)).toString('utf8');
      const [head, ...lines] = text.split('\n').slice(0, -1).map((l) => `${l}\n`);
      const w = await store.open(id, JSON.parse(head));
      for (let i = 0, n = 1; i < lines.length; i += n, n = (n % 3) + 1) await w.append(lines.slice(i, i + n).join(''));
      await w.close();
      assert.equal((await store.bytes(id)).toString('utf8'), text, 'byte for byte');
      const whole = await files.read(id);
      assert.deepEqual(await store.read(id), whole);
      // Every cursor and page size the same.
      for (let after = 0; after <= whole.cursor + 1; after++) {
        for (const limit of [undefined, 1, 2, 3, 5]) {
          const options = limit === undefined ? { after } : { after, limit };
          assert.deepEqual(await store.readConversation(id, options), await files.readConversation(id, options), JSON.stringify(options));
        }
      }
    }
    const bySeq = (list) => list.sort((x, y) => (x.conversationId ?? x.sessionId).localeCompare(y.conversationId ?? y.sessionId));
    assert.equal((await store.listConversations()).length, 5);
    // The 1.x chain is one conversation, found by its live part's agent.
    assert.deepEqual((await store.listConversations({ agentType: 'openai-codex' })).map((c) => [c.conversationId, c.parts.length]), [['old-a', 2]]);
    assert.deepEqual(bySeq(await store.list()), bySeq(await files.list()));
    for (const filter of [{}, { agentType: 'agent-b' }, { agentType: 'agent-a' }, { agentType: 'agent-team' }, { agentType: 'openai-codex' }, { agentType: 'claude-code' }, { cd: '/w/app' }, { cd: (await files.list())[0].cd }, { kind: 'team' }, { kind: 'conversation' }, { teamId: ids.team }, { teamId: ids.team, memberId: 'max' }, { memberId: 'carol' }, { teamId: 'none' }, { memberId: 'none' }]) {
      assert.deepEqual(bySeq(await store.list(filter)), bySeq(await files.list(filter)), JSON.stringify(filter));
      assert.deepEqual(bySeq(await store.listConversations(filter)), bySeq(await files.listConversations(filter)), JSON.stringify(filter));
    }
    // No record reads as none; delete removes one, and a second delete is no error.
    assert.deepEqual(await store.read('nobody', { after: 3 }), await files.read('nobody', { after: 3 }));
    assert.equal((await store.bytes('nobody')).length, 0);
    await store.delete(ids.fork);
    assert.deepEqual((await store.read(ids.fork)).entries, []);
    assert.equal((await store.list()).length, every.length - 1);
    await store.delete(ids.fork);
    assert.equal(db.sql(`SELECT count(*) FROM agent_context_lines WHERE conversation_id = '${ids.fork}'`).trim(), '0');
  } finally {
    await store.close();
  }
});

const header = (id) => ({ format: 'agent-context/session-record', version: '2.0', conversationId: id, createdAt: 1_000 });
const part = (seq, over = {}) => `${JSON.stringify({ seq, at: 2_000 + seq, kind: 'part', agentType: 'agent-a', protocol: 'acp', reason: 'opened', fromTurn: 1, ...over })}\n`;
const entry = (seq, kind, over = {}) => `${JSON.stringify({ seq, at: 2_000 + seq, kind, ...over })}\n`;

test('one writer per conversation: a second writer is SESSION_LOCKED, here and in another process; the holder SIGKILLed mid-turn frees it at once and its turn reads interrupted', TIMEOUT, async () => {
  const db = database();
  const cd = fs.mkdtempSync(path.join(pg.work, 'cd-'));
  const def = agent('agent-a');
  const { child, line } = inOtherProcess(
    db.url,
    `
    const s = await pkg.openAgentSession(${JSON.stringify(def)}, { cd: ${JSON.stringify(cd)}, store });
    await s.prompt('first');
    s.prompt('HANG here', { onEvent: (e) => e.type === 'text' && say('id=' + s.conversationId) });`,
  );
  const id = (await line(/^id=/)).slice(3);
  const store = pkg.openPostgresSessionStore({ connectionString: db.url });
  const other = pkg.openPostgresSessionStore({ connectionString: db.url });
  try {
    // Held by the other process: refused, naming its connection; delete too.
    await assert.rejects(store.open(id, header(id)), (err) => locked(err) && err.sessionId === id && /agent-context .* pid \d+/.test(err.message));
    await assert.rejects(store.delete(id), locked);
    assert.equal((await store.listConversations())[0].status, 'open');
    // One writer here too: the same store, and another store of this process.
    const mine = await store.open('mine', header('mine'));
    await assert.rejects(store.open('mine', header('mine')), locked);
    await assert.rejects(other.open('mine', header('mine')), locked);
    await mine.append(part(1));
    await mine.close();
    await (await other.open('mine', header('mine'))).close();
    // A second writer's line is refused by the primary key, even without the lock.
    const row = db.sql(`SELECT max(seq) FROM agent_context_lines WHERE conversation_id = '${id}'`).trim();
    assert.throws(() => db.sql(`INSERT INTO agent_context_lines (conversation_id, seq, line_no, always, line) SELECT conversation_id, ${row}, 999, false, 'x' FROM agent_context_conversations WHERE conversation_id = '${id}'`), /duplicate key value violates unique constraint/);

    const killedAt = Date.now();
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // Its lock went with its connection: listed interrupted as soon as the server saw the socket close.
    for (;;) {
      const [summary] = await store.listConversations();
      if (summary.status === 'interrupted') break;
      assert.equal(summary.status, 'open');
      assert.ok(Date.now() - killedAt < 15_000, 'still open 15 s after its writer was killed');
      await new Promise((r) => setTimeout(r, 20));
    }
    console.log(`# listed interrupted ${Date.now() - killedAt} ms after its writer was SIGKILLed`);
    // A writer gets it (at once: the lock is free) ...
    const free = await store.open(id, header(id));
    const took = Date.now() - killedAt;
    assert.ok(took < 15_000, `${took} ms`);
    console.log(`# a writer had the conversation ${took} ms after its holder was SIGKILLed`);
    await free.close();
    // ... and the next session on it marks the turn that never ended, then goes on.
    const session = await pkg.openConversation(store, id, { agent: def, cd, rebuild: true });
    console.log(`# the next session was open on it ${Date.now() - killedAt} ms after (its agent started)`);
    await session.close();
    const { entries } = await store.readConversation(id);
    assert.deepEqual(kinds(entries), ['part', 'request', 'text', 'turnEnd', 'request', 'interrupted', 'part', 'closed']);
    assert.deepEqual([entries[5].turn, entries[4].turn], [2, 2]);
    assert.equal((await store.listConversations())[0].status, 'closed');
  } finally {
    child.kill('SIGKILL');
    await Promise.all([store.close(), other.close()]);
  }
});

test('a watcher in another process sees every entry, in order, as it is appended (LISTEN/NOTIFY, no polling)', TIMEOUT, async () => {
  const db = database();
  const store = pkg.openPostgresSessionStore({ connectionString: db.url });
  const watcher = inOtherProcess(
    db.url,
    `
    // A watch keeps no process alive (as the file store's): this one waits for it.
    const alive = setInterval(() => {}, 1000);
    const unwatch = store.watch('c', { after: 0 }, (e) => {
      say(JSON.stringify([e.seq, e.kind]));
      if (e.kind === 'closed') { unwatch(); clearInterval(alive); store.close(); }
    });`,
  );
  try {
    const w = await store.open('c', header('c'));
    await w.append(part(1));
    await watcher.line(/^\[1,"part"\]$/);
    // No polling: while nothing is appended, the watcher's connections run nothing.
    const name = `agent-context ${os.hostname()} pid ${watcher.child.pid}`.slice(0, 63);
    const activity = () => db.sql(`SELECT count(*), max(state_change) FROM pg_stat_activity WHERE application_name = '${name}'`).trim();
    const idle = activity();
    assert.match(idle, /^[12]\|/);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(activity(), idle);
    for (let seq = 2; seq <= 20; seq++) {
      await w.append(entry(seq, seq === 20 ? 'closed' : 'restarted'));
      await new Promise((r) => setTimeout(r, 10));
    }
    await w.close();
    const got = (await watcher.done).map((l) => JSON.parse(l));
    assert.deepEqual(got.map(([seq]) => seq), Array.from({ length: 20 }, (_, i) => i + 1));
    assert.deepEqual(got.at(-1), [20, 'closed']);
  } finally {
    watcher.child.kill('SIGKILL');
    await store.close();
  }
});

/** The backend pids of this database's connections running `query` like `pattern`. */
const backends = (db, pattern) =>
  db
    .sql(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '${pattern}'`)
    .split('\n')
    .filter(Boolean);

test('a connection the database ends: the watcher listens again and misses nothing; the writer takes its lock again, or is refused when another writer has it; idle ones ended end no process', TIMEOUT, async () => {
  const db = database();
  const store = pkg.openPostgresSessionStore({ connectionString: db.url });
  const other = pkg.openPostgresSessionStore({ connectionString: db.url });
  try {
    const w = await store.open('c', header('c'));
    await w.append(part(1));
    const got = [];
    const unwatch = other.watch('c', {}, (e) => got.push(e.seq));
    const until = async (n) => {
      const deadline = Date.now() + 10_000;
      while (got.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.equal(got.length, n, JSON.stringify(got));
    };
    await until(1);
    // The LISTEN connection ended by the server: the watcher listens again, then reads from its cursor.
    const listeners = backends(db, 'LISTEN %');
    assert.equal(listeners.length, 1);
    db.sql(`SELECT pg_terminate_backend(${listeners[0]})`);
    await w.append(entry(2, 'restarted'));
    await until(2);
    await w.append(entry(3, 'restarted'));
    await until(3);
    assert.deepEqual(got, [1, 2, 3]);
    unwatch();
    // The lock connection ended: the writer takes its lock again at its next append.
    const holders = () => db.sql("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted").split('\n').filter(Boolean);
    assert.equal(holders().length, 1);
    db.sql(`SELECT pg_terminate_backend(${holders()[0]})`);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(holders().length, 0);
    await w.append(entry(4, 'restarted'));
    assert.equal(holders().length, 1);
    // Ended again, and another writer takes the conversation meanwhile: this one is refused, and writes nothing.
    db.sql(`SELECT pg_terminate_backend(${holders()[0]})`);
    await new Promise((r) => setTimeout(r, 200));
    const next = await other.open('c', header('c'));
    await assert.rejects(w.append(entry(5, 'restarted')), locked);
    await next.append(entry(5, 'closed'));
    await next.close();
    await w.close();
    assert.deepEqual(kinds((await store.read('c')).entries), ['part', 'restarted', 'restarted', 'restarted', 'closed']);
    // Every connection of both stores ended while idle (as a database restart does): no process ends, the next calls open others.
    await store.list();
    await other.read('c');
    const ended = db.sql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE 'agent-context %'").trim();
    assert.ok(Number(ended) >= 2, ended);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await store.read('c')).entries.length, 5);
    const again = await other.open('c', header('c'));
    await again.append(entry(6, 'restarted'));
    await again.close();
    assert.equal((await other.listConversations())[0].turns, 0);
  } finally {
    await Promise.all([store.close(), other.close()]);
  }
});

test('the database restarted: a watcher listens again and misses nothing (one warning); a writer takes its lock again and goes on', TIMEOUT, async () => {
  const db = database();
  const writing = pkg.openPostgresSessionStore({ connectionString: db.url });
  const watching = pkg.openPostgresSessionStore({ connectionString: db.url });
  const warnings = [];
  const onWarning = (w) => warnings.push(w.message);
  process.on('warning', onWarning);
  try {
    const w = await writing.open('c', header('c'));
    await w.append(part(1));
    const got = [];
    const unwatch = watching.watch('c', {}, (e) => got.push(e.seq));
    const until = async (n, ms) => {
      const deadline = Date.now() + ms;
      while (got.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(got, Array.from({ length: n }, (_, i) => i + 1));
    };
    await until(1, 5_000);
    // Down for 1.5 s: the watcher's LISTEN fails and is tried again, later and later.
    await pg.server.restart(1_500);
    const upAt = Date.now();
    // The writer's lock went with its connection: it takes it again (nobody else has it) and appends.
    await w.append(entry(2, 'restarted'));
    await until(2, 10_000);
    console.log(`# the watcher had the entry written after the restart ${Date.now() - upAt} ms after the database was up again`);
    await w.append(entry(3, 'closed'));
    await until(3, 2_000);
    assert.equal(warnings.filter((m) => /could not LISTEN/.test(m)).length, 1, JSON.stringify(warnings));
    unwatch();
    await w.close();
    // Its lock let go: another store takes the conversation.
    await (await watching.open('c', header('c'))).close();
  } finally {
    process.off('warning', onWarning);
    await Promise.all([writing.close(), watching.close()]);
  }
});

const TRICKS = [
  "x' OR '1'='1",
  "'; DROP TABLE agent_context_lines; --",
  "'); DELETE FROM agent_context_conversations; --",
  '%',
  '_',
  '\\',
  '" OR ""="',
  "c' UNION SELECT summary, true FROM agent_context_conversations --",
  '$1',
  'é\u2028🙂',
];

test('SQL metacharacters in every id, filter and cursor match nothing, read nothing and change nothing', TIMEOUT, async () => {
  const db = database();
  const store = pkg.openPostgresSessionStore({ connectionString: db.url });
  try {
    const w = await store.open('c', header('c'));
    await w.append(part(1, { cd: '/w/app' }) + entry(2, 'request', { turn: 1, text: 'hi' }) + entry(3, 'turnEnd', { turn: 1, durationMs: 1 }));
    await w.close();
    const snapshot = () => db.sql('SELECT conversation_id, seq, line FROM agent_context_lines ORDER BY conversation_id, line_no') + db.sql('SELECT count(*) FROM agent_context_conversations');
    const before = snapshot();
    const [one] = await store.list();
    assert.equal(one.conversationId, 'c');
    for (const trick of TRICKS) {
      assert.deepEqual(await store.read(trick), { entries: [], cursor: 0, skipped: 0 }, trick);
      assert.deepEqual(await store.readConversation(trick, { after: 1, limit: 1 }), { entries: [], cursor: 1, skipped: 0 }, trick);
      assert.equal((await store.bytes(trick)).length, 0, trick);
      await store.delete(trick);
      for (const key of ['agentType', 'cd', 'teamId', 'memberId', 'kind']) {
        assert.deepEqual(await store.list({ [key]: trick }), [], `${key}: ${trick}`);
        if (key !== 'kind') assert.deepEqual(await store.listConversations({ [key]: trick }), [], `${key}: ${trick}`);
      }
      const seen = [];
      const unwatch = store.watch(trick, {}, (e) => seen.push(e));
      await new Promise((r) => setTimeout(r, 50));
      unwatch();
      assert.deepEqual(seen, []);
      assert.equal(snapshot(), before, trick);
    }
    // Cursors and page sizes are whole numbers, checked before any SQL.
    for (const options of [{ after: "0; DROP TABLE agent_context_lines; --" }, { limit: "1 OR 1=1" }, { after: '1e400' }, { limit: { toString: () => '1' } }]) {
      await assert.rejects(store.read('c', options), invalid(/after|limit/), JSON.stringify(options));
      assert.throws(() => store.watch('c', options.after === undefined ? { after: options.limit } : options, () => {}), invalid(/after/));
    }
    assert.equal(snapshot(), before);
    // The positive control: the same calls find the record by its own id and fields.
    assert.equal((await store.read('c')).entries.length, 3);
    assert.equal((await store.list({ cd: '/w/app', agentType: 'agent-a' })).length, 1);
    assert.equal((await store.listConversations({ agentType: 'agent-a' })).length, 1);
    // A record under each such id is its own, stored and read under that id exactly.
    for (const trick of TRICKS) {
      const t = await store.open(trick, header(trick));
      await t.append(part(1, { cd: trick, agentType: trick }));
      await t.close();
    }
    for (const trick of TRICKS) {
      assert.deepEqual(kinds((await store.read(trick)).entries), ['part'], trick);
      assert.deepEqual((await store.list({ cd: trick })).map((s) => s.conversationId), [trick]);
      assert.deepEqual((await store.listConversations({ agentType: trick })).map((s) => s.conversationId), [trick]);
    }
    assert.equal((await store.list()).length, TRICKS.length + 1);
    assert.equal(db.sql("SELECT count(*) FROM agent_context_lines WHERE conversation_id = 'c'").trim(), '4');
    for (const trick of TRICKS) await store.delete(trick);
    assert.equal(snapshot(), before);
  } finally {
    await store.close();
  }
});

test('the tables: made once on first use by processes starting together, at the schema version; a newer schema is refused and left as it is', TIMEOUT, async () => {
  const db = database();
  // Four processes open the store at once on an empty database.
  const runs = Array.from({ length: 4 }, (_, i) => inOtherProcess(db.url, `await (await store.open('c${i}', { format: 'agent-context/session-record', version: '2.0', conversationId: 'c${i}', createdAt: 1 })).close(); say(String((await store.list()).length)); await store.close();`).done);
  await Promise.all(runs);
  assert.equal(db.sql('SELECT version FROM agent_context_schema').trim(), '1');
  assert.equal(db.sql('SELECT count(*) FROM agent_context_conversations').trim(), '4');
  db.sql('UPDATE agent_context_schema SET version = 2');
  const store = pkg.openPostgresSessionStore({ connectionString: db.url });
  try {
    await assert.rejects(store.list(), invalid(/version 2.*version 1/));
    await assert.rejects(store.open('d', header('d')), invalid(/version 2/));
    await assert.rejects(store.read('c0'), invalid(/version 2/));
    assert.equal(db.sql('SELECT count(*) FROM agent_context_conversations').trim(), '4');
    assert.equal(db.sql('SELECT version FROM agent_context_schema').trim(), '2');
  } finally {
    await store.close();
  }
  // A database that cannot keep UTF-8 as given is refused.
  pg.server.psql("CREATE DATABASE latin TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C'");
  const latin = pkg.openPostgresSessionStore({ connectionString: pg.server.urlOf('latin') });
  try {
    await assert.rejects(latin.list(), invalid(/encoding is LATIN1/));
  } finally {
    await latin.close();
  }
});

test("openPostgresSessionStore: bad options are INVALID_INPUT naming the field; an app's pg Pool; storeFromUrl", TIMEOUT, async () => {
  assert.throws(() => pkg.openPostgresSessionStore(), invalid(/options must be an object/));
  assert.throws(() => pkg.openPostgresSessionStore({}), invalid(/connectionString .* pool/));
  assert.throws(() => pkg.openPostgresSessionStore({ connectionString: 'postgres://x', pool: {} }), invalid(/one of connectionString/));
  assert.throws(() => pkg.openPostgresSessionStore({ connectionString: 7 }), invalid(/options.connectionString must be a non-empty string/));
  assert.throws(() => pkg.openPostgresSessionStore({ pool: { query() {} } }), invalid(/options.pool must be a pg Pool/));
  assert.throws(() => pkg.openPostgresSessionStore({ connectionString: 'postgres://x', ssl: true }), invalid(/options.ssl is not an option/));
  assert.throws(() => storeFromUrl(''), invalid(/store must be a folder or a postgres/));
  const db = database();
  const { Pool } = require('pg');
  const small = new Pool({ connectionString: db.url, max: 2 });
  assert.throws(() => pkg.openPostgresSessionStore({ pool: small }), invalid(/options.pool must allow 3 connections at least \(its max is 2\)/));
  await small.end();
  const pool = new Pool({ connectionString: db.url, max: 3 });
  const store = pkg.openPostgresSessionStore({ pool });
  try {
    const w = await store.open('c', header('c'));
    await w.append(part(1));
    await assert.rejects(store.open('', header('')), invalid(/sessionId must be a non-empty string/));
    assert.throws(() => w.append('no newline'), invalid(/whole lines/));
    await assert.rejects(w.append(entry(1, 'restarted')), invalid(/seq 1, not above the record's last entry's \(1\)/));
    // A raw NUL in a line (JSON writes it \u0000): PostgreSQL text cannot hold it.
    assert.throws(() => w.append('{"seq":2,"at":1,"kind":"text","text":"\0"}\n'), invalid(/NUL/));
    await assert.rejects(store.read('c', { limit: -1 }), invalid(/limit/));
    await assert.rejects(store.list({ cd: 3 }), invalid(/filter.cd must be a string/));
    await w.close();
    // The app's pool is the app's: still usable once the store is closed.
    await store.close();
    assert.equal((await pool.query('SELECT count(*)::int AS n FROM agent_context_lines')).rows[0].n, 2);
    await assert.rejects(store.read('c'), invalid(/closed/));
  } finally {
    await store.close();
    await pool.end();
  }
  // A postgres:// URL is this store; anything else a folder.
  const byUrl = storeFromUrl(db.url.replace('postgres://', 'postgresql://'));
  try {
    assert.deepEqual((await byUrl.list()).map((s) => s.conversationId), ['c']);
  } finally {
    await byUrl.close();
  }
  const dir = path.join(pg.work, 'by-url');
  assert.equal(storeFromUrl(dir).dir, dir);
});

test('without the pg package, opening the store says which package to install', TIMEOUT, async () => {
  // The package's files where no node_modules holds pg.
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-no-pg-'));
  try {
    fs.cpSync(path.join(ROOT, 'pkg'), path.join(copy, 'pkg'), { recursive: true });
    const script = `
      const store = require('./pkg/node/pg-session-store.cjs');
      try { store.openPostgresSessionStore({ connectionString: 'postgres://127.0.0.1:1/x' }); console.log('opened'); }
      catch (err) { console.log(JSON.stringify({ code: err.code, message: err.message })); }`;
    const out = require('node:child_process').execFileSync(process.execPath, ['-e', script], { cwd: copy, encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } });
    const { code, message } = JSON.parse(out);
    assert.equal(code, 'INVALID_INPUT');
    assert.match(message, /needs the package pg .*npm install pg/);
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});
