// A conversation's writer in the PostgreSQL store (./pg-session-store.cjs
// opens it, its advisory lock taken): each append one statement on the
// store's lock connection — its lines keyed as the core reads them
// (`__recordLineKeys`), the record's count and last seq moved, the NOTIFY
// sent — in order. The primary key refuses a line another writer wrote.
'use strict';

const { lockedError, inputError, checkBatch } = require('./session-store.cjs');
const { CHANNEL } = require('./pg-schema.cjs');
const { APPEND } = require('./pg-sql.cjs');

const nodeCore = () => require('../core/agent_context_node.cjs');

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

module.exports = { recordWriter };
