// memorySessionStore(), Node only: the session store interface
// (docs/session-record.md) over records kept in this process's memory —
// for tests, for sessions an app does not keep, and as the shortest
// example of a store of an app's own. Records are the core's bytes, read
// by the core's reader, as the file store keeps them. Shipped as
// pkg/node/memory-session-store.cjs; the Node entry requires it on the
// first call.
'use strict';

const {
  follower,
  lockedError,
  inputError,
  checkSessionId,
  checkHeader,
  checkBatch,
  checkFilter,
  checkFunction,
  matches,
  readOptions,
  watchCursor,
  conversationMethods,
} = require('./session-store.cjs');

function core() {
  return require('../core/agent_context.cjs');
}

const decoder = new TextDecoder();

function memorySessionStore() {
  /** sessionId → { text, writer: token or null, watchers: Set of () => void } */
  const records = new Map();

  const store = {
    async list(filter) {
      filter = checkFilter(filter);
      const summaries = [];
      for (const [sessionId, record] of records) {
        let summary;
        try {
          summary = core().summarizeSessionRecord(record.text, { writing: record.writer !== null });
        } catch {
          continue; // a record of a newer major version: read() says so
        }
        if (summary !== null && matches(summary, filter)) summaries.push(summary);
      }
      return summaries.sort((a, b) => b.updatedAt - a.updatedAt);
    },

    async read(sessionId, options) {
      checkSessionId(sessionId);
      const opts = readOptions(options, 'options');
      return core().readConversationRecord(records.get(sessionId)?.text ?? '', opts);
    },

    async bytes(sessionId) {
      checkSessionId(sessionId);
      return Buffer.from(records.get(sessionId)?.text ?? '');
    },

    async delete(sessionId) {
      checkSessionId(sessionId);
      const record = records.get(sessionId);
      if (record && record.writer !== null) throw lockedError(sessionId, 'a writer of this process');
      records.delete(sessionId);
    },

    watch(sessionId, options, onEntry) {
      checkSessionId(sessionId);
      const follow = follower(watchCursor(options), checkFunction(onEntry, 'onEntry'));
      let offset = 0;
      let stopped = false;
      let scheduled = false;
      const check = () => {
        scheduled = false;
        if (stopped) return;
        const text = records.get(sessionId)?.text ?? '';
        if (text.length < offset) offset = 0;
        const end = text.lastIndexOf('\n');
        if (end < offset) return;
        const part = text.slice(offset, end + 1);
        offset = end + 1;
        follow.feed(part);
      };
      const wake = () => {
        if (scheduled || stopped) return;
        scheduled = true;
        setImmediate(check);
      };
      const watchers = watchersOf(sessionId);
      watchers.add(wake);
      wake();
      return function unwatch() {
        stopped = true;
        watchers.delete(wake);
      };
    },

    async open(sessionId, header) {
      checkSessionId(sessionId);
      checkHeader(header, sessionId);
      let record = records.get(sessionId);
      if (record && record.writer !== null) throw lockedError(sessionId, 'another writer of this process');
      if (!record) {
        record = { text: `${JSON.stringify(header)}\n`, writer: null, watchers: watchersOf(sessionId) };
        records.set(sessionId, record);
      } else if (record.text !== '' && !record.text.endsWith('\n')) {
        record.text += '\n';
      }
      const token = Symbol(sessionId);
      record.writer = token;
      const wakeAll = () => {
        for (const wake of record.watchers) wake();
      };
      wakeAll();
      return {
        sessionId,
        append(bytes) {
          if (record.writer !== token) throw inputError(`the writer of session ${JSON.stringify(sessionId)} is closed`);
          checkBatch(bytes);
          if (bytes.length === 0) return;
          record.text += typeof bytes === 'string' ? bytes : decoder.decode(bytes);
          wakeAll();
        },
        async close() {
          if (record.writer === token) record.writer = null;
        },
      };
    },
  };

  /** The watchers of `sessionId`: kept apart from its record, which may come later or go. */
  const watcherSets = new Map();
  function watchersOf(sessionId) {
    let set = watcherSets.get(sessionId);
    if (!set) {
      set = new Set();
      watcherSets.set(sessionId, set);
    }
    return set;
  }

  return conversationMethods(store);
}

module.exports = { memorySessionStore };
