
// ---- Node only: session stores (js/types/session-store.d.ts) ----

/** The first line of a conversation's record: what `SessionStore.open` is given. */
export interface SessionRecordHeader {
  format: 'agent-context/session-record';
  /** `major.minor`; this library writes `'2.0'` and reads every `1.x` and `2.x`. */
  version: string;
  conversationId: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** A record that goes on from an earlier one (its conversation id). */
  continues?: string;
}

/**
 * The writer of one conversation's record, held by one writer at a time.
 * `append` is called in order, with whole lines (each ending with `\n`), as
 * things happen; a store keeps them in that order and never rewrites what
 * it has. It may return a promise (a database's write).
 */
export interface SessionRecordWriter {
  /** The conversation whose record it writes. */
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
  /** Every record's summary (each conversation, and each team's own record), the latest updated first. */
  list(filter?: { agentType?: string; cd?: string; teamId?: string }): Promise<SessionSummary[]>;
  /** A conversation's entries after `after` (default 0), at most `limit`, each named by its agent session; no record reads as none. */
  read(conversationId: string, options?: { after?: number; limit?: number }): Promise<SessionRecordPage>;
  /**
   * The conversations (records written before conversations, whose
   * sessions were linked by handoffs and rebuilds, read as one each):
   * their parts, live end and `forkedFrom`. Added to a store of an app's
   * own by the library when it lacks it.
   */
  listConversations?(filter?: { agentType?: string; cd?: string; teamId?: string; memberId?: string; kind?: 'conversation' | 'team' }): Promise<ConversationSummary[]>;
  /** `read` of a conversation, whatever the store. */
  readConversation?(conversationId: string, options?: { after?: number; limit?: number }): Promise<SessionRecordPage>;
  /** Removes the record; one being written is `SESSION_LOCKED`. */
  delete(conversationId: string): Promise<void>;
  /**
   * Calls `onEntry` with each entry after `options.after`, in order: those
   * there now, then each one as it is appended (by this process or
   * another), until the returned function is called.
   */
  watch?(conversationId: string, options: { after?: number }, onEntry: (entry: RecordEntry) => void): () => void;
  /**
   * The record's writer; the record is created with `header` as its first
   * line. A record another writer holds (in this process or a live other
   * one) is `SESSION_LOCKED`.
   */
  open(conversationId: string, header: SessionRecordHeader): Promise<SessionRecordWriter>;
}

/** A file store's own: the folder it keeps. */
export interface FileSessionStore extends SessionStore {
  readonly dir: string;
  watch(conversationId: string, options: { after?: number }, onEntry: (entry: RecordEntry) => void): () => void;
}

/**
 * Conversation records as files in `dir` (created if missing): one JSON-lines
 * file per conversation, appended as things happen, a lock file while one is
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
  watch(conversationId: string, options: { after?: number }, onEntry: (entry: RecordEntry) => void): () => void;
};

/** The conversations of `store` (any store), the latest updated first. */
export function listConversations(store: SessionStore, filter?: { agentType?: string; cd?: string; teamId?: string; memberId?: string; kind?: 'conversation' | 'team' }): Promise<ConversationSummary[]>;

/** The entries of conversation `conversationId` in `store` after `after`, at most `limit`. */
export function readConversation(store: SessionStore, conversationId: string, options?: { after?: number; limit?: number }): Promise<SessionRecordPage>;
