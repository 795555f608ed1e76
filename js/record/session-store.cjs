// openSessionStore(dir), Node only (Node 18+ and Electron, no native
// module): session records kept as files in one folder the app chooses
// (docs/session-record.md). Per session a record file, `<id>.jsonl`, the
// core's format, appended as things happen and never rewritten; a lock
// file, `<id>.lock`, while a writer holds it; and one `index.json`, a cache
// of every record's summary by its size and time, so that `list()` reads
// only the records that changed. Reading and summing up are the core's
// (`readSessionRecord`, `summarizeSessionRecord`); this file moves bytes
// and holds the lock. Shipped as pkg/node/session-store.cjs; the Node entry
// requires it on the first call.
'use strict';

const { describe } = require('../host/describe.cjs');

const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');

const RECORD = '.jsonl';
const LOCK = '.lock';
const INDEX = 'index.json';
const INDEX_VERSION = 1;
const FORMAT = 'agent-context/session-record';
/** A watch's poll: beside fs.watch (which may miss a change), and alone where fs.watch is not there. */
const POLL_MS = 1000;
const POLL_ALONE_MS = 250;

function core() {
  return require('../core/agent_context.cjs');
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

function inputError(message) {
  return new (core().AgentContextError)('INVALID_INPUT', message);
}

function lockedError(sessionId, by) {
  const err = new (core().AgentContextError)(
    'SESSION_LOCKED',
    `session ${JSON.stringify(sessionId)} is being written by ${by}: one writer at a time (close the other, or wait for it to end)`,
  );
  err.sessionId = sessionId;
  return err;
}

function checkSessionId(sessionId, name = 'sessionId') {
  if (typeof sessionId !== 'string' || sessionId === '' || sessionId.length > 512 || sessionId.includes('\0')) {
    throw inputError(`${name} must be a non-empty string of at most 512 characters, got ${describe(sessionId)}`);
  }
  return sessionId;
}

function checkFunction(value, name) {
  if (typeof value !== 'function') throw inputError(`${name} must be a function, got ${describe(value)}`);
  return value;
}

/** `{ after?, limit? }` for the core's reader, checked there; `undefined` stays out. */
function readOptions(options, name) {
  if (options === undefined || options === null) return {};
  if (!isObject(options)) throw inputError(`${name} must be an object, got ${describe(options)}`);
  return options;
}

const FILTER_KEYS = ['agentType', 'cd', 'teamId', 'memberId', 'kind'];

/** The list filter: `{ agentType?, cd?, teamId?, memberId?, kind? }`, each a string. */
function checkFilter(filter) {
  if (filter === undefined || filter === null) return {};
  if (!isObject(filter)) throw inputError(`filter must be an object, got ${describe(filter)}`);
  for (const key of FILTER_KEYS) {
    if (filter[key] != null && typeof filter[key] !== 'string') throw inputError(`filter.${key} must be a string, got ${describe(filter[key])}`);
  }
  return filter;
}

function matches(summary, filter) {
  return FILTER_KEYS.every((key) => filter[key] == null || summary[key] === filter[key]);
}

/** The header line's fields, checked: the core's format, this record's id (a conversation's; a 1.x record's session). */
function checkHeader(header, id) {
  if (!isObject(header)) throw inputError(`header must be an object, got ${describe(header)}`);
  if (header.format !== FORMAT) throw inputError(`header.format must be '${FORMAT}', got ${describe(header.format)}`);
  if (typeof header.version !== 'string') throw inputError(`header.version must be a string, got ${describe(header.version)}`);
  const named = header.conversationId ?? header.sessionId;
  if (named !== id) throw inputError(`header.conversationId must be the record's id, ${JSON.stringify(id)}, got ${JSON.stringify(named)}`);
  return header;
}

/** The conversation methods of a store, over its `list`, `read` and `bytes`. */
function conversationMethods(store) {
  store.listConversations = async (filter) => core().__conversationsOf(await store.list(), checkFilter(filter));
  store.readConversation = async (id, options) => store.read(id, options);
  return store;
}

/** Appended bytes: whole lines (ending with `\n`), as a string or bytes. */
function checkBatch(bytes) {
  const text = typeof bytes === 'string';
  if (!text && !(bytes instanceof Uint8Array)) throw inputError(`append takes a string or a Uint8Array, got ${describe(bytes)}`);
  if (bytes.length === 0) return bytes;
  const last = text ? bytes.charCodeAt(bytes.length - 1) : bytes[bytes.length - 1];
  if (last !== 10) throw inputError('append takes whole lines: the bytes must end with a newline');
  return bytes;
}

/**
 * Follows a record from a cursor: `feed` takes its bytes from where the last
 * call stopped (whole lines only) and hands `onEntry` each entry after the
 * cursor, in order. What `onEntry` throws is reported as a warning; the
 * watch goes on.
 */
function follower(after, onEntry) {
  let cursor = after;
  return {
    feed(bytes) {
      const { entries, cursor: next } = core().readSessionRecord(bytes, { after: cursor });
      cursor = next;
      for (const entry of entries) {
        try {
          onEntry(entry);
        } catch (err) {
          process.emitWarning(`a session record watcher threw: ${err && err.message ? err.message : String(err)}`, 'AgentContextWarning');
        }
      }
    },
  };
}

/** `watch`'s cursor: a whole number >= 0. */
function watchCursor(options) {
  const opts = readOptions(options, 'options');
  const after = opts.after ?? 0;
  if (typeof after !== 'number' || !Number.isInteger(after) || after < 0) throw inputError(`options.after must be a whole number >= 0, got ${describe(after)}`);
  return after;
}

/** A session id as a file name: every character but letters, digits, `_` and `-` as `%XX` (its UTF-8). */
function stemOf(sessionId) {
  let stem = '';
  for (const byte of Buffer.from(sessionId, 'utf8')) {
    const c = String.fromCharCode(byte);
    stem += /[A-Za-z0-9_-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return stem;
}

/** What a lock file says: `{ pid, host, token }`, or null when it is gone or unreadable. */
function readLock(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const lock = JSON.parse(text);
    return isObject(lock) ? { ...lock, text } : { text };
  } catch {
    return { text };
  }
}

/** Whether the process a lock names is alive (one on another host is taken to be). */
function processAlive(lock) {
  if (!Number.isInteger(lock.pid) || lock.pid <= 0) return false;
  if (typeof lock.host === 'string' && lock.host !== os.hostname()) return true;
  try {
    process.kill(lock.pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * Takes the lock file `file` for this process: its token. A lock of a live
 * process (or of a writer of this one) is SESSION_LOCKED; a stale one (its
 * process gone) is taken over. The lock is written whole before it appears
 * (a link of a finished file), so that nobody reads half of one.
 */
function takeLock(file, sessionId, held) {
  const token = crypto.randomBytes(12).toString('hex');
  const content = `${JSON.stringify({ pid: process.pid, host: os.hostname(), token, since: Date.now() })}\n`;
  const ready = `${file}.${process.pid}.${token}.tmp`;
  fs.writeFileSync(ready, content);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        fs.linkSync(ready, file);
        return token;
      } catch (err) {
        if (err.code !== 'EEXIST') throw err;
      }
      const lock = readLock(file);
      if (lock === undefined) continue;
      const ours = lock.pid === process.pid && held.has(lock.token);
      if (ours) throw lockedError(sessionId, 'another writer of this process');
      if (lock.pid !== process.pid && processAlive(lock)) throw lockedError(sessionId, `process ${lock.pid}`);
      // Stale: moved aside, and put back if what moved is not what was read
      // (another process took it over in between).
      const aside = `${file}.${process.pid}.${token}.stale`;
      try {
        fs.renameSync(file, aside);
      } catch (err) {
        if (err.code === 'ENOENT') continue;
        throw err;
      }
      const moved = fs.readFileSync(aside, 'utf8');
      if (moved !== lock.text) {
        try {
          fs.linkSync(aside, file);
        } catch {
          // Someone else's lock is there already.
        }
      }
      fs.rmSync(aside, { force: true });
    }
    throw lockedError(sessionId, 'another process (its lock kept changing)');
  } finally {
    fs.rmSync(ready, { force: true });
  }
}

/** Removes the lock file if it is still this token's. */
function dropLock(file, token) {
  const lock = readLock(file);
  if (lock && lock.token === token) fs.rmSync(file, { force: true });
}

/** Writes `bytes` whole at the end of `fd` (opened to append). */
function writeAll(fd, bytes) {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  let done = 0;
  while (done < buffer.length) done += fs.writeSync(fd, buffer, done, buffer.length - done);
}

function openSessionStore(dir) {
  if (typeof dir !== 'string' || dir === '') throw inputError(`dir must be a folder's path (a non-empty string), got ${describe(dir)}`);
  dir = path.resolve(dir);
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw inputError(`dir cannot be used as a session store (${err.code || err.message}): ${dir}`);
  }
  if (!fs.statSync(dir).isDirectory()) throw inputError(`dir is not a folder: ${dir}`);
  const recordFile = (id) => path.join(dir, `${stemOf(id)}${RECORD}`);
  const lockFile = (id) => path.join(dir, `${stemOf(id)}${LOCK}`);
  /** This process's writers' lock tokens. */
  const held = new Set();
  /** Whether a writer (of any process) holds the record of file stem `stem` now. */
  const writing = (stem) => {
    const lock = readLock(path.join(dir, `${stem}${LOCK}`));
    if (!lock) return false;
    return lock.pid === process.pid ? held.has(lock.token) : processAlive(lock);
  };

  async function loadIndex() {
    try {
      const index = JSON.parse(await fsp.readFile(path.join(dir, INDEX), 'utf8'));
      if (isObject(index) && index.version === INDEX_VERSION && isObject(index.records)) return index.records;
    } catch {
      // No index yet, or a torn one: rebuilt from the records.
    }
    return {};
  }

  async function saveIndex(records) {
    const file = path.join(dir, INDEX);
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
    try {
      await fsp.writeFile(tmp, JSON.stringify({ version: INDEX_VERSION, records }));
      await fsp.rename(tmp, file);
    } catch {
      // The index is a cache: list() works without it (a read-only folder).
      await fsp.rm(tmp, { force: true });
    }
  }

  const store = {
    dir,

    /** Every session's summary, the latest updated first. */
    async list(filter) {
      filter = checkFilter(filter);
      const cached = await loadIndex();
      const fresh = {};
      const summaries = [];
      let changed = false;
      for (const name of await fsp.readdir(dir)) {
        if (!name.endsWith(RECORD)) continue;
        const stem = name.slice(0, -RECORD.length);
        let stat;
        try {
          stat = await fsp.stat(path.join(dir, name));
        } catch {
          continue; // deleted meanwhile
        }
        let entry = cached[stem];
        if (!entry || entry.size !== stat.size || entry.mtimeMs !== stat.mtimeMs) {
          let summary;
          try {
            summary = core().summarizeSessionRecord(await fsp.readFile(path.join(dir, name)));
          } catch {
            continue; // a record of a newer major version (read() says so), or deleted meanwhile
          }
          entry = { size: stat.size, mtimeMs: stat.mtimeMs, summary };
          changed = true;
        }
        fresh[stem] = entry;
        // A file with no valid header is not a record.
        if (entry.summary === null) continue;
        const summary = { ...entry.summary };
        if (summary.status === 'interrupted' && writing(stem)) summary.status = 'open';
        if (matches(summary, filter)) summaries.push(summary);
      }
      if (changed || Object.keys(cached).length !== Object.keys(fresh).length) await saveIndex(fresh);
      return summaries.sort((a, b) => b.updatedAt - a.updatedAt);
    },

    /** `{ entries, cursor, skipped }` of the record (none when there is none), each entry named by its agent session. */
    async read(sessionId, options) {
      return core().readConversationRecord(await store.bytes(sessionId), readOptions(options, 'options'));
    },

    /** The record's bytes (empty when there is none). */
    async bytes(sessionId) {
      checkSessionId(sessionId);
      try {
        return await fsp.readFile(recordFile(sessionId));
      } catch (err) {
        if (err.code !== 'ENOENT') throw err;
        return new Uint8Array(0);
      }
    },

    /** Removes the session's record; one being written is SESSION_LOCKED. */
    async delete(sessionId) {
      checkSessionId(sessionId);
      const lock = lockFile(sessionId);
      const current = readLock(lock);
      if (current && writing(stemOf(sessionId))) throw lockedError(sessionId, current.pid === process.pid ? 'a writer of this process' : `process ${current.pid}`);
      await fsp.rm(recordFile(sessionId), { force: true });
      await fsp.rm(lock, { force: true });
    },

    /**
     * Calls `onEntry` with every entry after `options.after`, in order, now
     * and as they are appended, until the returned function is called.
     */
    watch(sessionId, options, onEntry) {
      checkSessionId(sessionId);
      const follow = follower(watchCursor(options), checkFunction(onEntry, 'onEntry'));
      const file = recordFile(sessionId);
      const base = path.basename(file);
      let offset = 0;
      let stopped = false;
      let busy = false;
      let again = false;
      const check = () => {
        if (stopped) return;
        if (busy) {
          again = true;
          return;
        }
        busy = true;
        try {
          do {
            again = false;
            offset = readNew(file, offset, follow);
          } while (again && !stopped);
        } catch (err) {
          process.emitWarning(`watching session ${JSON.stringify(sessionId)}: ${err.message}`, 'AgentContextWarning');
        } finally {
          busy = false;
        }
      };
      let watcher = null;
      try {
        watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
          if (name === null || name === base) check();
        });
        watcher.on('error', () => {
          watcher.close();
          watcher = null;
        });
      } catch {
        watcher = null;
      }
      const timer = setInterval(check, watcher ? POLL_MS : POLL_ALONE_MS);
      timer.unref();
      const first = setImmediate(check);
      return function unwatch() {
        stopped = true;
        clearImmediate(first);
        clearInterval(timer);
        if (watcher) watcher.close();
      };
    },

    /**
     * The session's writer: `append(bytes)` adds whole lines at the end of
     * its record, `close()` lets it go. The record is created with `header`
     * as its first line; one left with a torn last line gets a newline
     * first, so that the next entry starts on a line of its own.
     */
    async open(sessionId, header) {
      checkSessionId(sessionId);
      const lock = lockFile(sessionId);
      const file = recordFile(sessionId);
      checkHeader(header, sessionId);
      const token = takeLock(lock, sessionId, held);
      held.add(token);
      let fd;
      try {
        fd = fs.openSync(file, 'a');
        const size = fs.fstatSync(fd).size;
        if (size === 0) {
          writeAll(fd, `${JSON.stringify(header)}\n`);
        } else {
          const last = Buffer.alloc(1);
          const readFd = fs.openSync(file, 'r');
          try {
            fs.readSync(readFd, last, 0, 1, size - 1);
          } finally {
            fs.closeSync(readFd);
          }
          if (last[0] !== 10) writeAll(fd, '\n');
        }
      } catch (err) {
        if (fd !== undefined) fs.closeSync(fd);
        held.delete(token);
        dropLock(lock, token);
        throw err;
      }
      let closed = false;
      return {
        sessionId,
        /** Appends whole lines, at once: done when it returns. */
        append(bytes) {
          if (closed) throw inputError(`the writer of session ${JSON.stringify(sessionId)} is closed`);
          checkBatch(bytes);
          if (bytes.length > 0) writeAll(fd, bytes);
        },
        /** Flushes the record to the disk and lets the lock go. */
        async close() {
          if (closed) return;
          closed = true;
          try {
            fs.fsyncSync(fd);
          } finally {
            fs.closeSync(fd);
            held.delete(token);
            dropLock(lock, token);
          }
        },
      };
    },
  };
  return conversationMethods(store);
}

/** Hands the whole lines of `file` past `offset` to `follow`; the new offset. */
function readNew(file, offset, follow) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if (err.code === 'ENOENT') return 0;
    throw err;
  }
  try {
    const size = fs.fstatSync(fd).size;
    // Smaller than what was read: deleted and written again.
    if (size < offset) offset = 0;
    if (size === offset) return offset;
    const buffer = Buffer.alloc(size - offset);
    let got = 0;
    while (got < buffer.length) {
      const n = fs.readSync(fd, buffer, got, buffer.length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    const end = buffer.lastIndexOf(10, got - 1);
    if (end < 0) return offset;
    follow.feed(buffer.subarray(0, end + 1));
    return offset + end + 1;
  } finally {
    fs.closeSync(fd);
  }
}

module.exports = {
  openSessionStore,
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
};
