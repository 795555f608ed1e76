
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

/** A filter of conversations: each field, when given, must match (`agentType`: the live part's; `kind: 'team'` lists teams' own records). */
export interface ConversationFilter {
  agentType?: string;
  cd?: string;
  teamId?: string;
  memberId?: string;
  kind?: 'conversation' | 'team';
}

/** What `openPostgresSessionStore` takes: a connection string, or a pg `Pool` of the app's (3 connections at least; session-mode pooling only). */
export type PostgresStoreOptions =
  | { connectionString: string; pool?: never }
  | { pool: { connect(): Promise<unknown>; query(text: string, values?: unknown[]): Promise<unknown> }; connectionString?: never };

/** The PostgreSQL store: the same interface, shared by every process that reaches the database. */
export interface PostgresSessionStore extends SessionStore {
  /** Each entry after `options.after`, in order, as any process appends it (LISTEN/NOTIFY; listens again after a lost connection). */
  watch(conversationId: string, options: { after?: number }, onEntry: (entry: RecordEntry) => void): () => void;
  /** The conversations matching `filter` (in SQL, with parameters), the latest updated first. */
  listConversations(filter?: ConversationFilter): Promise<ConversationSummary[]>;
  /** Conversation `conversationId`'s entries after `options.after` (at most `options.limit`), each naming its agent session; `skipped`: lines that could not be read. */
  readConversation(conversationId: string, options?: { after?: number; limit?: number }): Promise<SessionRecordPage>;
  /** The record's bytes as they were appended (the file store's record, byte for byte). */
  bytes(conversationId: string): Promise<Uint8Array>;
  /** Lets the database go: the store's connections (its writers' locks with them) and the pool it made (never an app's pool). */
  close(): Promise<void>;
}

/**
 * Conversations in PostgreSQL, for several processes or machines sharing
 * them (docs/session-record.md): tables made and migrated on first use, one
 * writer per conversation (an advisory lock, freed at once when its process
 * dies), watchers through LISTEN/NOTIFY. `pg` (8.11 or later) is the app's:
 * `npm install pg`; without it this throws `INVALID_INPUT` naming it.
 *
 * ```js
 * const store = openPostgresSessionStore({ connectionString: process.env.DATABASE_URL });
 * const session = await openAgentSession('claude-code', { cd, store });
 * ```
 */
export function openPostgresSessionStore(options: PostgresStoreOptions): PostgresSessionStore;
