// openPostgresSessionStore({ connectionString } | { pool }), Node only: the
// conversation store on PostgreSQL, for a fleet — several app servers, or
// several `agent-context serve` — sharing conversations through the
// database they already run (docs/session-record.md). `pg` is the app's
// (an optional peer dependency), required only when this store is opened
// with a connection string.
//
// A record is rows of lines kept as they were given (./pg-schema.cjs says
// the tables); what a line is — its seq, kind and turn — is the core's
// reading (`__recordLineKeys`), and reading, paging and summing up are the
// core's too: this file moves lines in and out with parameterised SQL.
// One writer per conversation across processes and machines: a session
// advisory lock on a connection of the store's own (server-side TCP
// keepalives 5 s / 5 s / 2, so a crashed host frees it within ~15 s, a
// killed process at once), and the primary key (conversation, seq) refuses
// a second writer's line. Appends NOTIFY `{ id, seq }`; a watcher LISTENs,
// then reads from its cursor, and again after a reconnect: no polling.
'use strict';

const crypto = require('node:crypto');
const os = require('node:os');
const { describe } = require('../host/describe.cjs');
const { migrate, CHANNEL } = require('./pg-schema.cjs');
const { Dedicated } = require('./pg-connection.cjs');
const { follower, lockedError, inputError, checkSessionId, checkHeader, checkBatch, checkFilter, checkFunction, readOptions, watchCursor } = require('./session-store.cjs');

const core = () => require('../core/agent_context.cjs');
const nodeCore = () => require('../core/agent_context_node.cjs');

/** Server-side TCP keepalives of the lock connection: idle, interval (seconds), count. */
const KEEPALIVE = { idle: 5, interval: 5, count: 2 };
/** The listener's reconnects: the first delay, doubled up to the last (ms). */
const RECONNECT_MS = [50, 5000];
const MAX_KEY = '9223372036854775807';
/** The fewest connections an app's pool must allow: the lock connection, the LISTEN connection, one for queries. */
const MIN_POOL = 3;

/** `pg`, the app's; INVALID_INPUT naming it when it is not installed. */
function loadPg() {
  try {
    return require('pg');
  } catch (err) {
    if (err?.code !== 'MODULE_NOT_FOUND') throw err;
    throw inputError(`openPostgresSessionStore needs the package pg (8.11 or later), which the app installs: npm install pg (${err.message.split('\n')[0]})`);
  }
}

/** The advisory lock's key for conversation `id`: 8 bytes of the SHA-256 of its UTF-8, as a signed 64-bit number. */
function lockKey(id) {
  return crypto.createHash('sha256').update(id, 'utf8').digest().readBigInt64BE(0).toString();
}

/** `options`: `{ connectionString }` or `{ pool }` (a pg Pool of the app's), checked. */
function readStoreOptions(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw inputError(`options must be an object with connectionString or pool, got ${describe(options)}`);
  const unknown = Object.keys(options).filter((k) => k !== 'connectionString' && k !== 'pool');
  if (unknown.length > 0) throw inputError(`options.${unknown[0]} is not an option of openPostgresSessionStore (connectionString or pool)`);
  const { connectionString, pool } = options;
  if ((connectionString == null) === (pool == null)) throw inputError('options must have one of connectionString (a PostgreSQL URL) and pool (a pg Pool)');
  if (connectionString != null && (typeof connectionString !== 'string' || connectionString === '')) throw inputError(`options.connectionString must be a non-empty string, got ${describe(connectionString)}`);
  if (pool != null && (typeof pool !== 'object' || typeof pool.connect !== 'function' || typeof pool.query !== 'function')) throw inputError(`options.pool must be a pg Pool (with connect and query), got ${describe(pool)}`);
  // Two of its connections stay with the store (its writers' locks, its
  // watchers): a smaller pool would leave none for a query, which would wait forever.
  const max = pool?.options?.max;
  if (typeof max === 'number' && max < MIN_POOL) throw inputError(`options.pool must allow ${MIN_POOL} connections at least (its max is ${max}): the store keeps one for its writers' locks and one for its watchers`);
  return { connectionString, pool };
}

/** A batch's text (whole lines), as PostgreSQL text can hold it; INVALID_INPUT otherwise. */
const utf8 = new TextDecoder('utf-8', { fatal: true });
function batchText(bytes) {
  let text = bytes;
  if (typeof bytes !== 'string') {
    try {
      text = utf8.decode(bytes);
    } catch {
      throw inputError('append takes UTF-8: the bytes are not (the store keeps lines as text)');
    }
  }
  if (text.includes('\0')) throw inputError('append: a line holds a NUL character, which PostgreSQL text cannot hold (JSON writes it \\u0000)');
  return text;
}

// A page's lines: every line the reader always needs, and the entries
// after the cursor ($2) in whole turns — up to the turn of the $3-th entry
// with a turn after it (all of them when $3 is null). `stop`: the first
// entry's seq after the window (null: the window reached the end).
const PAGE = `
WITH last AS (
  SELECT turn FROM agent_context_lines
  WHERE conversation_id = $1 AND seq > $2 AND turn IS NOT NULL AND $3::integer IS NOT NULL
  ORDER BY seq OFFSET $3 LIMIT 1
), stop AS (
  SELECT min(l.seq) AS seq FROM agent_context_lines l, last
  WHERE l.conversation_id = $1 AND l.seq > $2 AND l.turn > last.turn
)
SELECT string_agg(l.line || E'\\n', '' ORDER BY l.line_no) AS text, (SELECT seq FROM stop) AS stop
FROM agent_context_lines l
WHERE l.conversation_id = $1 AND (l.always OR (l.seq > $2 AND l.seq < COALESCE((SELECT seq FROM stop), ${MAX_KEY})))`;

const BYTES = `SELECT string_agg(line || E'\\n', '' ORDER BY line_no) AS text, count(*)::integer AS lines
FROM agent_context_lines WHERE conversation_id = $1`;

// A new record: its row and its header line, unless it is there already.
const CREATE = `
WITH made AS (
  INSERT INTO agent_context_conversations (conversation_id, lock_key, line_count) VALUES ($1, $2, 1)
  ON CONFLICT (conversation_id) DO NOTHING RETURNING conversation_id
)
INSERT INTO agent_context_lines (conversation_id, seq, line_no, always, line)
SELECT conversation_id, -1, 1, true, $3 FROM made`;

// An append, at once: its lines (the batch's text split at its newlines,
// $7), the record's count and last seq, and the NOTIFY that wakes watchers.
const APPEND = `
WITH added AS (
  INSERT INTO agent_context_lines (conversation_id, line_no, seq, kind, turn, always, line)
  SELECT $1, t.line_no, t.seq, t.kind, t.turn, t.always, t.line
  FROM unnest($2::integer[], $3::bigint[], $4::text[], $5::bigint[], $6::boolean[], (string_to_array($7, E'\\n'))[1:cardinality($2::integer[])])
    AS t(line_no, seq, kind, turn, always, line)
  RETURNING 1
), moved AS (
  UPDATE agent_context_conversations SET line_count = $8, last_seq = $9 WHERE conversation_id = $1 RETURNING 1
)
SELECT pg_notify($10, $11) FROM moved`;

// Who holds an advisory lock of this database: its key, and the
// application name of the connection holding it.
const HELD = `
SELECT (l.classid::bigint << 32) | l.objid::bigint AS key, a.application_name AS holder
FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

// Summaries for list(): the filter's fields (null: any), as the core's
// summary has them; `writing` when a writer holds the record now.
const LIST = `
WITH held AS MATERIALIZED (${HELD})
SELECT c.summary, c.lock_key IN (SELECT key FROM held) AS writing
FROM agent_context_conversations c
WHERE c.summary IS NOT NULL AND ($1::text IS NULL OR c.agent_type = $1) AND ($2::text IS NULL OR c.cd = $2)
  AND ($3::text IS NULL OR c.team_id = $3) AND ($4::text IS NULL OR c.member_id = $4) AND ($5::text IS NULL OR c.kind = $5)
ORDER BY c.updated_at DESC`;

// Conversations for listConversations(): those matching the filter, and
// every record the core may group with others (1.x sessions, and 2.0
// records that continue one), which it filters itself.
const CONVERSATIONS = `
WITH held AS MATERIALIZED (${HELD})
SELECT c.summary, c.lock_key IN (SELECT key FROM held) AS writing
FROM agent_context_conversations c
WHERE c.summary IS NOT NULL AND (c.version LIKE '1.%' OR c.continues IS NOT NULL OR (
  c.kind = $5 AND ($1::text IS NULL OR c.agent_type = $1) AND ($2::text IS NULL OR c.cd = $2)
  AND ($3::text IS NULL OR c.team_id = $3) AND ($4::text IS NULL OR c.member_id = $4)))`;

const SUMMED = `
UPDATE agent_context_conversations SET summary = $2, summary_lines = $3, version = $4, kind = $5, agent_type = $6, cd = $7,
  team_id = $8, member_id = $9, continues = $10, updated_at = $11
WHERE conversation_id = $1 AND summary_lines < $3`;

// A watcher's new lines: those after line $2 of the record's incarnation
// $3 (all of them when the record was deleted and made again since).
const FOLLOW = `
SELECT c.incarnation, l.line_no, l.line
FROM agent_context_conversations c
JOIN agent_context_lines l ON l.conversation_id = c.conversation_id
  AND l.line_no > (CASE WHEN c.incarnation = $3 THEN $2 ELSE 0 END)
WHERE c.conversation_id = $1
ORDER BY l.line_no`;

/** A summary as list() shows it: `interrupted` is `open` while a writer holds the record (the core's `writing`). */
function shown(row) {
  const summary = JSON.parse(row.summary);
  if (summary.status === 'interrupted' && row.writing) summary.status = 'open';
  return summary;
}

function openPostgresSessionStore(options) {
  const { connectionString, pool: given } = readStoreOptions(options);
  const pg = connectionString != null ? loadPg() : null;
  // Every connection the store makes says whose it is (pg_stat_activity, and a SESSION_LOCKED message).
  const application = `agent-context ${os.hostname()} pid ${process.pid}`.slice(0, 63);
  const pool = given ?? new pg.Pool({ connectionString, allowExitOnIdle: true, application_name: application });
  // An idle connection the server ended (a restart, a terminated backend):
  // the pool drops it and the next query opens another. Unheard, the
  // pool's 'error' would end the process.
  if (!given) pool.on('error', () => {});
  /** A connection of the store's own, with its settings. */
  const own = {
    async open() {
      if (given) return given.connect();
      const client = new pg.Client({ connectionString, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE.idle * 1000, application_name: application });
      try {
        await client.connect();
      } catch (err) {
        client.end().catch(() => {});
        throw err;
      }
      return client;
    },
    // A pool's connection is destroyed, not returned: its locks, LISTEN and settings go with it.
    release: (client, err) => (given ? client.release(err ?? true) : client.end().catch(() => {})),
  };
  let closed = false;
  let ready = null;
  /** The tables, made or migrated once (again after a failure). */
  function tables() {
    ready ??= (async () => {
      const client = await pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
    })().catch((err) => {
      ready = null;
      throw err;
    });
    return ready;
  }
  async function q(text, values) {
    if (closed) throw inputError('the store is closed');
    await tables();
    return pool.query(text, values);
  }

  /** Conversation id → its writer in this store ('deleting' while delete() holds it). */
  const held = new Map();
  const locks = new Dedicated({
    ...own,
    setup: (client) =>
      client.query(
        "SELECT set_config('tcp_keepalives_idle', $1, false), set_config('tcp_keepalives_interval', $2, false), set_config('tcp_keepalives_count', $3, false), set_config('application_name', $4, false)",
        [String(KEEPALIVE.idle), String(KEEPALIVE.interval), String(KEEPALIVE.count), application],
      ),
    // Every lock it held went with it: each writer takes its own again at its next append.
    onLost: (err) => {
      for (const writer of held.values()) if (typeof writer === 'object') writer.lose(err);
    },
  });

  /** Takes conversation `id`'s advisory lock on the lock connection; SESSION_LOCKED naming the holder when another has it. */
  async function lock(id, key) {
    await tables();
    const { rows } = await locks.query('SELECT pg_try_advisory_lock($1::bigint) AS got', [key]);
    if (rows[0].got) return;
    let holder = null;
    try {
      holder = (await pool.query(`SELECT holder FROM (${HELD}) h WHERE key = $1::bigint`, [key])).rows[0]?.holder;
    } catch {
      // Who it is only makes the message clearer.
    }
    throw lockedError(id, `another connection to the database${holder ? ` (${holder})` : ''}`);
  }

  /**
   * A writer's statement, on the lock connection: in the session that holds
   * its lock (lost together), and without a pool's round of taking and
   * giving back a connection per append.
   */
  async function written(text, values) {
    if (closed) throw inputError('the store is closed');
    return locks.query(text, values);
  }

  async function unlock(key) {
    await locks.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
  }

  /** Brings the summaries of records changed since they were summed up up to date (the core's, as no writer holds them). */
  async function summarize() {
    const { rows } = await q('SELECT conversation_id FROM agent_context_conversations WHERE summary_lines <> line_count');
    for (const { conversation_id: id } of rows) {
      const { text, lines } = (await pool.query(BYTES, [id])).rows[0];
      let summary = null;
      try {
        summary = core().summarizeSessionRecord(text ?? '');
      } catch {
        // A record of a newer major version: not listed (read() says why).
      }
      const s = summary ?? {};
      await pool.query(SUMMED, [id, summary && JSON.stringify(summary), lines, s.version, s.kind, s.agentType, s.cd, s.teamId, s.memberId, s.continues, s.updatedAt]);
    }
  }

  /** The filter's fields as LIST and CONVERSATIONS take them. */
  const filterValues = (filter, kind) => [filter.agentType ?? null, filter.cd ?? null, filter.teamId ?? null, filter.memberId ?? null, kind];

  const watching = watchers(q, own, () => closed);

  const store = {
    /** Every record's summary (the core's), those matching `filter`, the latest updated first. */
    async list(filter) {
      filter = checkFilter(filter);
      await summarize();
      const { rows } = await q(LIST, filterValues(filter, filter.kind ?? null));
      return rows.map(shown);
    },

    /** The conversations (the core's grouping of the records), those matching `filter`, the latest updated first. */
    async listConversations(filter) {
      filter = checkFilter(filter);
      core().__conversationsOf([], filter); // the filter checked by the core
      await summarize();
      const { rows } = await q(CONVERSATIONS, filterValues(filter, filter.kind ?? 'conversation'));
      return core().__conversationsOf(rows.map(shown), filter);
    },

    /** `{ entries, cursor, skipped }` of conversation `id` after `options.after`, at most `options.limit` (the core's page of the lines it needs). */
    async read(id, options) {
      checkSessionId(id);
      const opts = readOptions(options, 'options');
      core().readConversationRecord('', opts); // the options checked by the core
      const after = String(opts.after ?? 0);
      let window = opts.limit ?? null;
      for (;;) {
        const { text, stop } = (await q(PAGE, [id, after, window])).rows[0];
        const page = core().readConversationRecord(text ?? '', opts);
        // Whole when the window reached the end, or the page ends inside it.
        if (stop === null || (page.entries.length === opts.limit && BigInt(page.cursor) < BigInt(stop))) return page;
        window = Math.max(1, window * 2);
      }
    },

    async readConversation(id, options) {
      return store.read(id, options);
    },

    /** The record's bytes, as they were given (empty when there is none). */
    async bytes(id) {
      checkSessionId(id);
      const { text } = (await q(BYTES, [id])).rows[0];
      return Buffer.from(text ?? '', 'utf8');
    },

    /** Removes the record; one a writer holds (here or anywhere) is SESSION_LOCKED. */
    async delete(id) {
      checkSessionId(id);
      if (held.has(id)) throw lockedError(id, 'a writer of this process');
      held.set(id, 'deleting');
      try {
        const key = lockKey(id);
        await lock(id, key);
        try {
          await q('DELETE FROM agent_context_conversations WHERE conversation_id = $1', [id]);
        } finally {
          await unlock(key);
        }
      } finally {
        held.delete(id);
      }
    },

    /** Calls `onEntry` with each entry after `options.after`, in order, now and as any process appends them, until the returned function is called. */
    watch(id, options, onEntry) {
      checkSessionId(id);
      const follow = follower(watchCursor(options), checkFunction(onEntry, 'onEntry'));
      if (closed) throw inputError('the store is closed');
      return watching.add(id, follow);
    },

    /**
     * Conversation `id`'s writer: its advisory lock taken (SESSION_LOCKED
     * when a writer here or anywhere holds it), the record made with
     * `header` as its first line when it is new.
     */
    async open(id, header) {
      checkSessionId(id);
      checkHeader(header, id);
      if (closed) throw inputError('the store is closed');
      if (held.has(id)) throw lockedError(id, 'another writer of this process');
      held.set(id, 'opening');
      const key = lockKey(id);
      let locked = false;
      try {
        await lock(id, key);
        locked = true;
        await q(CREATE, [id, key, JSON.stringify(header)]);
        const { rows } = await q('SELECT line_count, last_seq FROM agent_context_conversations WHERE conversation_id = $1', [id]);
        const writer = recordWriter({ id, key, lines: rows[0].line_count, lastSeq: rows[0].last_seq, q: written, lock, unlock, done: () => held.delete(id) });
        held.set(id, writer);
        return writer.api;
      } catch (err) {
        if (locked) await unlock(key).catch(() => {});
        held.delete(id);
        throw err;
      }
    },

    /** Lets the database go: the store's connections (its writers' locks with them), and the pool it made. */
    async close() {
      if (closed) return;
      closed = true;
      // Idle connections keep no process alive, and their ending would not
      // either: the process waits here until they are gone.
      const hold = setInterval(() => {}, 1000);
      try {
        await Promise.allSettled([locks.end(), watching.end()]);
        if (!given) await pool.end();
      } finally {
        clearInterval(hold);
      }
    },
  };
  return store;
}

/**
 * The writer of record `id` (`lines` held, the last entry's `lastSeq`):
 * appends run in order, one statement each. A write whose outcome is not
 * known (the connection dropped on its way) is checked against the record
 * before the next: lines already there are not written twice; lines of
 * another writer there refuse it SESSION_LOCKED. Its lock lost with the
 * lock connection, it takes it again at the next append, or refuses.
 */
function recordWriter({ id, key, lines, lastSeq, q, lock, unlock, done }) {
  let closed = false;
  let lost = null;
  let unsure = false;
  let refused = null;
  let chain = Promise.resolve();

  async function resync(parts) {
    const { rows } = await q('SELECT line_count, last_seq FROM agent_context_conversations WHERE conversation_id = $1', [id]);
    const there = rows[0]?.line_count;
    if (there === lines) return parts;
    if (there === undefined || there < lines) throw (refused = lockedError(id, 'nobody: the record was deleted while this writer held it'));
    const { rows: extra } = await q('SELECT line FROM agent_context_lines WHERE conversation_id = $1 AND line_no > $2 ORDER BY line_no', [id, lines]);
    if (extra.length > parts.length || extra.some((r, i) => r.line !== parts[i])) throw (refused = lockedError(id, 'another writer, which wrote it since this one last did'));
    lines = there;
    lastSeq = rows[0].last_seq;
    return parts.slice(extra.length);
  }

  async function write(text) {
    if (refused) throw refused;
    if (lost) {
      await lock(id, key);
      lost = null;
      unsure = true;
    }
    let parts = text.slice(0, -1).split('\n');
    if (unsure) {
      parts = await resync(parts);
      unsure = false;
      if (parts.length === 0) return;
      text = `${parts.join('\n')}\n`;
    }
    const keys = nodeCore().__recordLineKeys(text, lastSeq);
    const behind = keys.findIndex((k) => k[4]);
    if (behind >= 0) throw inputError(`append: line ${behind + 1} has seq ${keys[behind][0]}, not above the record's last entry's (${lastSeq}): entries are appended in order, each once`);
    const lineNos = keys.map((_, i) => lines + 1 + i);
    let last = lastSeq;
    for (const k of keys) if (k[0] !== null) last = k[0];
    try {
      await q({ name: 'agent-context-append-1', text: APPEND }, [id, lineNos, keys.map((k, i) => k[0] ?? String(-lineNos[i])), keys.map((k) => k[1]), keys.map((k) => k[2]), keys.map((k) => k[3]), text, lines + keys.length, last, CHANNEL, JSON.stringify({ id, seq: Number(last) })]);
    } catch (err) {
      // 23505: a line of this seq or place is there already, another writer's.
      if (err?.code === '23505') throw (refused = lockedError(id, 'another writer, whose lines are there already'));
      unsure = true;
      throw err;
    }
    lines += keys.length;
    lastSeq = last;
  }

  const api = {
    sessionId: id,
    conversationId: id,
    /** Appends whole lines, in order: resolves once the database holds them. */
    append(bytes) {
      if (closed) throw inputError(`the writer of session ${JSON.stringify(id)} is closed`);
      checkBatch(bytes);
      if (bytes.length === 0) return chain;
      const text = batchText(bytes);
      const written = chain.then(() => write(text));
      chain = written.catch(() => {});
      return written;
    },
    /** Waits for the appends under way, then lets the lock go. */
    async close() {
      if (closed) return;
      closed = true;
      await chain;
      done();
      if (!lost && !refused) await unlock(key).catch(() => {});
    },
  };
  return {
    api,
    lose(err) {
      lost = err ?? new Error('the lock connection ended');
    },
  };
}

/**
 * The store's watchers: one LISTEN connection for all of them, opened with
 * the first and closed with the last. Each watcher reads its record's new
 * lines when a NOTIFY names it, once LISTEN is in place, and again after a
 * reconnect.
 */
function watchers(q, own, isClosed) {
  /** id → Set of watchers `{ follow, from, incarnation, busy, again, stopped }` */
  const byId = new Map();
  let retry = RECONNECT_MS[0];
  let timer = null;
  const listener = new Dedicated({
    ...own,
    setup: async (client) => {
      client.on('notification', (message) => {
        if (message.channel !== CHANNEL) return;
        let id;
        try {
          id = JSON.parse(message.payload).id;
        } catch {
          return; // not one of ours
        }
        for (const w of byId.get(id) ?? []) pump(id, w);
      });
      await client.query(`LISTEN ${CHANNEL}`);
    },
    onLost: () => reconnect(),
  });

  function reconnect() {
    if (timer || byId.size === 0 || isClosed()) return;
    timer = setTimeout(() => {
      timer = null;
      listen();
    }, retry);
    timer.unref();
    retry = Math.min(retry * 2, RECONNECT_MS[1]);
  }

  /** LISTEN in place, then every watcher reads what it has not. */
  function listen() {
    listener.client().then(
      () => {
        retry = RECONNECT_MS[0];
        for (const [id, set] of byId) for (const w of set) pump(id, w);
      },
      (err) => {
        process.emitWarning(`watching conversations: could not LISTEN (${err.message}); trying again`, 'AgentContextWarning');
        reconnect();
      },
    );
  }

  async function pump(id, w) {
    if (w.stopped) return;
    if (w.busy) {
      w.again = true;
      return;
    }
    w.busy = true;
    try {
      do {
        w.again = false;
        const { rows } = await q(FOLLOW, [id, w.from, w.incarnation]);
        if (rows.length === 0 || w.stopped) continue;
        if (rows[0].incarnation !== w.incarnation) w.incarnation = rows[0].incarnation;
        w.from = rows[rows.length - 1].line_no;
        w.follow.feed(`${rows.map((r) => r.line).join('\n')}\n`);
      } while (w.again && !w.stopped);
    } catch (err) {
      process.emitWarning(`watching conversation ${JSON.stringify(id)}: ${err.message}`, 'AgentContextWarning');
    } finally {
      w.busy = false;
    }
  }

  return {
    add(id, follow) {
      const w = { follow, from: 0, incarnation: null, busy: false, again: false, stopped: false };
      if (!byId.has(id)) byId.set(id, new Set());
      byId.get(id).add(w);
      if (listener.current) pump(id, w);
      else listen();
      return function unwatch() {
        w.stopped = true;
        const set = byId.get(id);
        set?.delete(w);
        if (set?.size === 0) byId.delete(id);
        if (byId.size === 0) {
          clearTimeout(timer);
          timer = null;
          listener.drop();
        }
      };
    },
    end() {
      byId.clear();
      clearTimeout(timer);
      return listener.end();
    },
  };
}

module.exports = { openPostgresSessionStore, lockKey };
