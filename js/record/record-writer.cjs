// A conversation's record on its way to the app's store: the lines the
// core hands over (the engine's, the conversation machine's), appended in
// order and once. A write the store refuses is reported (`onError`), the
// lines wait in memory and go, in order, at the next write or `flush()`
// once the store takes them again; `close()` lets the record go, and
// rejects with the store's error if anything is still unwritten. What is
// written is the core's; this file moves bytes.
'use strict';

const { inputError } = require('../host/agent-process.cjs');
const { describe } = require('../host/describe.cjs');

/** A store as the options give it: an object with `open` and `read` (and `list`, `delete`). */
function checkStore(store, name) {
  if (store == null) return undefined;
  const missing = ['open', 'read'].filter((m) => typeof store?.[m] !== 'function');
  if (typeof store !== 'object' || missing.length > 0) {
    throw inputError(`${name} must be a session store (openSessionStore(dir), memorySessionStore() or an object with open, read, list and delete), got ${store === null || typeof store !== 'object' ? describe(store) : `an object without ${missing.join(' and ')}`}`);
  }
  return store;
}

class RecordWriter {
  /**
   * `store`, `id` (the conversation's) and `header` (its first line, an
   * object; written when the record is new); `writer`: one held already
   * (a conversation reopened: taken before its agent started);
   * `onError(err)`: a write the store refused.
   */
  constructor({ store, id, header, writer, onError }) {
    this.store = store;
    this.id = id;
    this.header = header;
    this.writer = writer ?? null;
    this.onError = onError ?? (() => {});
    this.pending = []; // lines not in the store yet, in order
    this.chain = Promise.resolve();
    this.scheduled = false;
    this.error = null; // the store's last refusal, until it takes the lines
    this.closed = false;
  }

  /** Lines not in the store yet. */
  get unwritten() {
    return this.pending.length;
  }

  /** Queues `lines` (a string of whole lines) and writes what waits. */
  add(lines) {
    if (!this.store || !lines) return;
    this.pending.push(lines);
    if (!this.scheduled) this.write();
  }

  /** Writes what waits, in order, once; resolves when done or refused. */
  write() {
    this.scheduled = true;
    this.chain = this.chain.then(async () => {
      this.scheduled = false;
      if (this.pending.length === 0 || this.closed) return;
      try {
        this.writer ??= await this.store.open(this.id, this.header);
        // One append of everything waiting (in order), then it is gone;
        // what came while the store wrote waits for the next write.
        const taken = this.pending.length;
        await this.writer.append(this.pending.slice(0, taken).join(''));
        this.pending.splice(0, taken);
        this.error = null;
      } catch (err) {
        const first = this.error === null;
        this.error = err;
        if (first) this.onError(err);
      }
    });
    return this.chain;
  }

  /** Resolves once the store holds every line; rejects with its error. */
  async flush() {
    await this.write();
    if (this.pending.length > 0) throw this.error;
  }

  /** Every write tried once more, then the record let go; rejects if lines are left. */
  async close() {
    await this.write();
    this.closed = true;
    const writer = this.writer;
    this.writer = null;
    await writer?.close();
    if (this.pending.length > 0) throw this.error;
  }
}

module.exports = { RecordWriter, checkStore };
