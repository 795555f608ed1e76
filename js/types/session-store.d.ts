
// ---- Node only: session stores (js/types/session-store.d.ts) ----

/** The first line of a session record: what `SessionStore.open` is given. */
export interface SessionRecordHeader {
  format: 'agent-context/session-record';
  /** `major.minor`; this library writes `'1.1'` and reads every `1.x`. */
  version: string;
  sessionId: string;
  agentType: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/**
 * The writer of one session's record, held by one writer at a time.
 * `append` is called in order, with whole lines (each ending with `\n`), as
 * things happen; a store keeps them in that order and never rewrites what
 * it has. It may return a promise (a database's write).
 */
export interface SessionRecordWriter {
  readonly sessionId: string;
  append(lines: string | Uint8Array): void | Promise<void>;
  /** Lets the record go (the next writer may open it). */
  close(): Promise<void>;
}

/**
 * Where session records are kept: `openSessionStore(dir)` (files in a
 * folder), `memorySessionStore()`, or any object of an app's own with
 * these methods (docs/session-record.md says what each must do).
 */
export interface SessionStore {
  /** Every session's summary, the latest updated first. */
  list(filter?: { agentType?: string; cd?: string; teamId?: string }): Promise<SessionSummary[]>;
  /** The entries after `after` (default 0), at most `limit`; no record reads as none. */
  read(sessionId: string, options?: { after?: number; limit?: number }): Promise<SessionRecordPage>;
  /** Removes the record; one being written is `SESSION_LOCKED`. */
  delete(sessionId: string): Promise<void>;
  /**
   * Calls `onEntry` with each entry after `options.after`, in order: those
   * there now, then each one as it is appended (by this process or
   * another), until the returned function is called.
   */
  watch?(sessionId: string, options: { after?: number }, onEntry: (entry: RecordEntry) => void): () => void;
  /**
   * The record's writer; the record is created with `header` as its first
   * line. A record another writer holds (in this process or a live other
   * one) is `SESSION_LOCKED`.
   */
  open(sessionId: string, header: SessionRecordHeader): Promise<SessionRecordWriter>;
}

/** A file store's own: the folder it keeps. */
export interface FileSessionStore extends SessionStore {
  readonly dir: string;
  watch(sessionId: string, options: { after?: number }, onEntry: (entry: RecordEntry) => void): () => void;
}

/**
 * Session records as files in `dir` (created if missing): one JSON-lines
 * file per session, appended as things happen, a lock file while one is
 * written, and an `index.json` that keeps `list()` fast. Node 18+ and
 * Electron, no native module. Throws `INVALID_INPUT` when `dir` cannot be
 * used.
 *
 * ```js
 * const store = openSessionStore(path.join(app.getPath('userData'), 'sessions'));
 * for (const s of await store.list()) console.log(s.title, s.turns, s.status);
 * ```
 */
export function openSessionStore(dir: string): FileSessionStore;

/** The same interface over records kept in this process's memory. */
export function memorySessionStore(): SessionStore & {
  watch(sessionId: string, options: { after?: number }, onEntry: (entry: RecordEntry) => void): () => void;
};
