// The PostgreSQL store's statements (./pg-session-store.cjs, ./pg-writer.cjs,
// ./pg-watchers.cjs) over the tables ./pg-schema.cjs makes: every value is
// a parameter ($n), never part of a statement's text.
'use strict';

/** The largest key of a line (a page's window with no end). */
const MAX_KEY = '9223372036854775807';

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

module.exports = { PAGE, BYTES, CREATE, APPEND, HELD, LIST, CONVERSATIONS, SUMMED, FOLLOW };
