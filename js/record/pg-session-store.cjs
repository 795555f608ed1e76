// openPostgresSessionStore({ connectionString } | { pool }), Node only: the
// conversation store on PostgreSQL, for a fleet — several app servers, or
// several `agent-context serve` — sharing conversations through the
// database they already run (docs/session-record.md). `pg` is the app's
// (an optional peer dependency), required only when this store is opened
// with a connection string.
//
// A record is rows of lines kept as they were given (./pg-schema.cjs says
// the tables, ./pg-sql.cjs has the statements); what a line is — its seq, kind and turn — is the core's
// reading (`__recordLineKeys`), and reading, paging and summing up are the
// core's too: this file moves lines in and out with parameterised SQL.
// One writer per conversation across processes and machines: a session
// advisory lock on a connection of the store's own (server-side TCP
// keepalives 5 s / 5 s / 2, so a crashed host frees it within ~15 s, a
// killed process at once), and the primary key (conversation, seq) refuses
// a second writer's line (./pg-writer.cjs). Appends NOTIFY `{ id, seq }`;
// a watcher LISTENs, then reads from its cursor, and again after a
// reconnect: no polling (./pg-watchers.cjs).
'use strict';

const crypto = require('node:crypto');
const os = require('node:os');
const { describe } = require('../host/describe.cjs');
const { migrate } = require('./pg-schema.cjs');
const { Dedicated } = require('./pg-connection.cjs');
const { PAGE, BYTES, CREATE, HELD, LIST, CONVERSATIONS, SUMMED } = require('./pg-sql.cjs');
const { recordWriter } = require('./pg-writer.cjs');
const { watchers } = require('./pg-watchers.cjs');
const { follower, lockedError, inputError, checkSessionId, checkHeader, checkFilter, checkFunction, readOptions, watchCursor } = require('./session-store.cjs');

const core = () => require('../core/agent_context.cjs');

/** Server-side TCP keepalives of the lock connection: idle, interval (seconds), count. */
const KEEPALIVE = { idle: 5, interval: 5, count: 2 };
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

module.exports = { openPostgresSessionStore, lockKey };
