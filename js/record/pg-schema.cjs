// The PostgreSQL conversation store's tables (./pg-session-store.cjs),
// made and migrated on first use: a schema version in a table of its own,
// each step from one version to the next run once, in one transaction,
// under a transaction-level advisory lock (two processes starting at once
// do not both make the tables). A database whose tables are of a newer
// version than this package knows is refused, never written.
'use strict';

const crypto = require('node:crypto');

/** The tables' version this package makes, reads and writes. */
const SCHEMA_VERSION = 1;

/** The NOTIFY channel of appended lines: payload `{ id, seq }`. */
const CHANNEL = 'agent_context_records';

/**
 * The steps: `MIGRATIONS[v]` takes the tables from version `v` to `v + 1`.
 *
 * - `agent_context_conversations`: one row per record (a conversation, or a
 *   team's record): how many lines it holds and its last entry's `seq`
 *   (kept by each append), and the core's summary of its first
 *   `summary_lines` lines (JSON, as no writer holds it; brought up to date
 *   by `list()`), with the fields a list filters and orders by.
 * - `agent_context_lines`: one row per line, its text as given (`text`,
 *   without its newline). `seq` is the entry's; a line that is not an
 *   entry (the header, a line the reader skips) is keyed by its place,
 *   negated (`-line_no`). `always`: the reader needs the line for any page
 *   (it is no entry, or it names a part); `kind` and `turn` as the reader
 *   reads them. The primary key refuses a second writer's line.
 */
const MIGRATIONS = [
  [
    `CREATE TABLE agent_context_conversations (
      conversation_id text PRIMARY KEY,
      lock_key bigint NOT NULL,
      incarnation bigint GENERATED ALWAYS AS IDENTITY,
      line_count integer NOT NULL,
      last_seq bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      summary text,
      summary_lines integer NOT NULL DEFAULT 0,
      version text,
      kind text,
      agent_type text,
      cd text,
      team_id text,
      member_id text,
      continues text,
      updated_at bigint
    )`,
    'CREATE INDEX agent_context_conversations_updated ON agent_context_conversations (updated_at DESC)',
    `CREATE TABLE agent_context_lines (
      conversation_id text NOT NULL REFERENCES agent_context_conversations (conversation_id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      line_no integer NOT NULL,
      kind text,
      turn bigint,
      always boolean NOT NULL,
      line text NOT NULL,
      PRIMARY KEY (conversation_id, seq),
      UNIQUE (conversation_id, line_no)
    )`,
    'CREATE INDEX agent_context_lines_always ON agent_context_lines (conversation_id, line_no) WHERE always',
  ],
];

/** The advisory lock a migration holds: 8 bytes of the SHA-256 of a name of its own. */
const MIGRATION_KEY = crypto.createHash('sha256').update('agent-context/schema').digest().readBigInt64BE(0).toString();

/** The one encoding whose text holds a record's UTF-8 as it is, and checks it. */
const ENCODING = 'UTF8';

function core() {
  return require('../core/agent_context.cjs');
}

function refused(message) {
  return new (core().AgentContextError)('INVALID_INPUT', message);
}

/** The version the tables say they are at: 0 when there are none. */
async function versionOf(client) {
  try {
    const { rows } = await client.query('SELECT version FROM agent_context_schema');
    return rows.length === 0 ? 0 : rows[0].version;
  } catch (err) {
    if (err?.code === '42P01') return 0; // undefined_table
    throw err;
  }
}

function newer(version) {
  return refused(
    `the database's agent-context tables are at version ${version}; this package knows version ${SCHEMA_VERSION} at most: ` +
      'a newer agent-context made them, and this one does not write what it cannot read (upgrade agent-context here)',
  );
}

/**
 * Makes or migrates the tables on `client` (a connection of its own,
 * none of its transactions open); resolves once they are at
 * SCHEMA_VERSION. Throws INVALID_INPUT for a newer version, or a database
 * whose encoding cannot keep UTF-8 as given.
 */
async function migrate(client) {
  const { rows } = await client.query('SELECT pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()');
  const encoding = rows[0]?.encoding;
  if (encoding !== ENCODING) throw refused(`the database's encoding is ${encoding}: the conversation store keeps records as UTF-8 text, in a database made with ENCODING 'UTF8'`);
  const seen = await versionOf(client);
  if (seen === SCHEMA_VERSION) return;
  if (seen > SCHEMA_VERSION) throw newer(seen);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_KEY]);
    await client.query('CREATE TABLE IF NOT EXISTS agent_context_schema (one boolean PRIMARY KEY DEFAULT true CHECK (one), version integer NOT NULL)');
    // Read again under the lock: another process may have migrated meanwhile.
    const at = await versionOf(client);
    if (at > SCHEMA_VERSION) throw newer(at);
    for (let v = at; v < SCHEMA_VERSION; v++) for (const statement of MIGRATIONS[v]) await client.query(statement);
    await client.query('INSERT INTO agent_context_schema (one, version) VALUES (true, $1) ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version', [SCHEMA_VERSION]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

module.exports = { migrate, SCHEMA_VERSION, CHANNEL, MIGRATIONS };
