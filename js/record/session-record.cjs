// A session's record as the host keeps it: the lines the engine hands over
// (`record` actions) kept in memory for `history()` and `watch()`, and
// appended, in order, to the app's store when it gave one. The format, the
// reader and every decision of what is written are the core's; this file
// moves lines.
'use strict';

const { inputError } = require('../host/agent-process.cjs');

const core = () => require('../core/agent_context.cjs');

/** A store as the options give it: an object with `open` and `read` (and `list`, `delete`). */
function checkStore(store, name) {
  if (store == null) return undefined;
  const missing = ['open', 'read'].filter((m) => typeof store?.[m] !== 'function');
  if (typeof store !== 'object' || missing.length > 0) {
    throw inputError(`${name} must be a session store (openSessionStore(dir), memorySessionStore() or an object with open, read, list and delete), got ${store === null || typeof store !== 'object' ? typeof store : `an object without ${missing.join(' and ')}`}`);
  }
  return store;
}

/** A record's entries as its lines again (the core's reader reads them as written). */
function linesOf(entries) {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join('');
}

/**
 * One session's record. `store` (optional): where it is appended;
 * `writer`: a writer already held (a restored session's, taken before its
 * agent started, so that a record another host writes is refused first);
 * `prior`: the record's lines so far; `warn`: the logger.
 */
class SessionRecord {
  constructor({ store, writer, prior = '', warn }) {
    this.store = store;
    this.writer = writer ?? null;
    this.text = prior;
    this.warn = warn ?? console.warn;
    this.pending = Promise.resolve();
    this.watchers = new Set();
    this.failed = false;
  }

  /** What the engine handed over: `header` once the session's id is known, and lines. */
  add(header, lines) {
    if (header && this.store && !this.writer && !this.failed) {
      const parsed = JSON.parse(header);
      const before = this.text;
      this.writing(async () => {
        this.writer = await this.store.open(parsed.sessionId, parsed);
        if (before) await this.writer.append(before);
      });
    }
    if (!lines) return;
    this.text += lines;
    if (this.store) this.writing(async () => this.writer && (await this.writer.append(lines)));
    for (const watcher of this.watchers) watcher();
  }

  /** Chains a write; a store that fails is said once, and the record stays in memory. */
  writing(write) {
    this.pending = this.pending.then(write).catch((err) => {
      if (this.failed) return;
      this.failed = true;
      this.writer = null;
      this.warn(`the session record could not be written to its store (it is kept in memory: session.history()): ${err?.message ?? err}`);
    });
  }

  /** `{ entries, cursor }` after `after`, at most `limit`. */
  history(options = {}) {
    return core().readSessionRecord(this.text, options ?? {});
  }

  /** Calls `onEntry` with each entry after `after`, in order, now and as they come; returns `unwatch`. */
  watch(options, onEntry) {
    if (typeof onEntry !== 'function') throw inputError(`onEntry must be a function, got ${typeof onEntry}`);
    let cursor = options?.after ?? 0;
    const pump = () => {
      const { entries, cursor: next } = core().readSessionRecord(this.text, { after: cursor });
      cursor = next;
      for (const entry of entries) {
        try {
          onEntry(entry);
        } catch (err) {
          process.emitWarning(`a session watcher threw: ${err?.message ?? err}`);
        }
      }
    };
    pump();
    this.watchers.add(pump);
    return () => this.watchers.delete(pump);
  }

  /** Every write done, then the record let go. */
  async close() {
    await this.pending;
    this.watchers.clear();
    const writer = this.writer;
    this.writer = null;
    await writer?.close();
  }
}

/**
 * A session to restore from `store`: its record's lines and a writer held
 * on it (`SESSION_LOCKED` when another host writes it). A session with no
 * record gets none (`prior` empty).
 */
async function takeRecord(store, sessionId, agentType) {
  const { entries } = await store.read(sessionId);
  if (entries.length === 0) return { prior: '', writer: null, entries };
  const prior = linesOf(entries);
  // The header as the core writes it (the store keeps the one it has).
  const header = JSON.parse(require('../core/agent_context_node.cjs').__recordHeader(sessionId, agentType, entries[0]?.at ?? Date.now()));
  const writer = await store.open(sessionId, header);
  return { prior, writer, entries };
}

module.exports = { SessionRecord, checkStore, takeRecord, linesOf };
