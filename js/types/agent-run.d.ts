
/** `runAgent`'s options (Node only). */
export interface RunAgentOptions {
  /** The agent's working directory (required). */
  cd: string;
  /**
   * `'cli'` (default: the agent's stream-json / JSON lines) or `'acp'` (the
   * Agent Client Protocol: `claude-agent-acp`, `codex-acp`,
   * `gemini --acp`, `qwen --acp`, `copilot --acp`, `opencode acp`, …).
   * An agent driven over ACP only (`knownAgents()[i].protocols` is
   * `['acp']`) runs over ACP by default, and `'cli'` is an `invalid_params`
   * run naming it.
   */
  protocol?: 'cli' | 'acp';
  model?: string;
  /**
   * Resume the agent's session with this id; another id (or none) coming back, or the agent
   * saying it does not know it, is `session_not_found` (GitHub Copilot CLI
   * is resumed with `--resume=<id> -C .`, which fails on an unknown id).
   */
  sessionId?: string;
  /**
   * Where the run's session record is kept (`openSessionStore(dir)`,
   * `memorySessionStore()` or a store of your own): the run is recorded as a
   * session's turn is; with `sessionId`, that session's record goes on.
   */
  store?: SessionStore;
  sandbox?: 'read-only' | 'workspace-write' | 'danger-full-access';
  yolo?: boolean;
  /**
   * The executable: a name is found as `resolveAgentCommand` does (PATH,
   * the login shell's PATH, the usual install folders; a Windows `.cmd`
   * shim run as its node + script); a path is used as it is (a Windows
   * `.cmd` still read as a shim). Default the registry's command
   * (`claude`, `codex`, `gemini`).
   */
  command?: string;
  /** More arguments for the CLI, after ours and before any positional one. */
  extraArgs?: string[];
  /** MCP servers the agent gets for this run only (see `McpServerConfig`). */
  mcpServers?: McpServerConfig[];
  /** The child's environment (its PATH is searched); default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Seconds without output before the process tree is killed (`idle_timeout`); default 300. */
  timeout?: number;
  /** Seconds for the whole call, retries included (`timeout`); default 1800. */
  maxDuration?: number;
  /** Retries of retryable failures, 0 to 10; default 1. */
  maxRetries?: number;
  /**
   * Points the agent at a model endpoint of an API family it can call,
   * through configuration the run owns (variables of the child, files in a
   * folder the run creates and removes); the user's own files are never
   * written. Its variables replace the same ones of `env`.
   */
  endpoint?: AgentEndpoint;
  /**
   * Runs the agent on another machine, reached through a channel you
   * already use: SSH, `docker exec`, `kubectl exec`, or your own function.
   * There `cd` and `command` are that side's, the run's own files are made
   * and removed there, and `env` holds only the variables to add to that
   * side's own environment (they travel on the channel's stdin, never in an
   * argument list). See `RemoteHost`.
   */
  host?: RemoteHost;
  /**
   * Joins an ACP agent served elsewhere (over Streamable HTTP or WebSocket)
   * instead of starting one here: the ACP SDK's server in front of any
   * stdio agent, another `serveAgent`, `goose serve`. `cd` is then the
   * server's folder, sent as the session's `cwd`; `command`, `env`,
   * `endpoint`, `host`, `extraArgs` and `model` cannot go with it. A lost
   * connection is a crash: the turn ends `process_error` (`transport_lost`),
   * the next prompt connects again and reopens the session. Needs the
   * packages `@agentclientprotocol/sdk` and `ws` (docs/served-agents.md).
   */
  transport?: AgentTransport;
  /**
   * Whether the agent may read and write this machine's files through the
   * client (the ACP `fs` methods, confined to `cd`) — and, with
   * `terminals`, run commands in client terminals. Default: true for an
   * agent started here, false for one reached by `transport`.
   */
  clientFs?: boolean;
  /** Kills the process tree; the run says `aborted`. */
  signal?: AbortSignal;
  /** The parser's events, live, as the agent prints them. */
  onEvent?: (event: AgentOutputEvent) => void;
  /**
   * ACP only: answers the agent's `session/request_permission` (its params:
   * `{ sessionId, toolCall, options }`). Without it the policy of `sandbox`
   * and `yolo` answers (README: read-only allows reads; workspace-write, the
   * default, also edits inside `cd`; danger-full-access or yolo allow all).
   */
  onPermission?: (request: AcpPermissionRequest) => 'allow' | 'allow_always' | 'reject' | Promise<'allow' | 'allow_always' | 'reject'>;
  /**
   * Images and resources sent after the prompt's text, each agent its own
   * way (over ACP as content blocks where the agent advertises the kind;
   * over the CLI Codex `--image`, Claude Code stream-json blocks, Gemini CLI
   * and Qwen Code `@path`, Copilot `--attachment`, opencode `--file`). A kind
   * the agent cannot take, or a bad attachment, is an `invalid_params` run
   * naming `attachments[i]`.
   */
  attachments?: Attachment[];
  /**
   * ACP only: answers the agent's `elicitation/create` (a form to fill, or
   * a URL to visit): `{ action: 'accept', content }` (the form's values),
   * `{ action: 'decline' }` or `{ action: 'cancel' }`. The client advertises
   * elicitation only with it; without it every request is declined at once.
   * A request still pending when the turn is cancelled is answered `cancel`.
   */
  onElicitation?: (request: AcpElicitationRequest) => AcpElicitationAnswer | Promise<AcpElicitationAnswer>;
  /**
   * ACP only: the agent may run commands in client terminals
   * (`terminal/create`, …): started inside `cd`, its output kept (the
   * agent's `outputByteLimit`, at most 1 MiB), each process tree killed on
   * release, kill, cancel and close. Off, and not advertised, by default.
   */
  terminals?: boolean;
  /**
   * ACP only: more folders of the session than `cd` (each made absolute
   * with its links resolved; one that is not a folder is `INVALID_INPUT`
   * naming `dirs[i]`). Sent as `additionalDirectories` on
   * `session/new|load|resume|fork`, and the client's files and terminals
   * (and the policy's edits) are allowed in them as in `cd`. An agent that
   * does not advertise `sessionCapabilities.additionalDirectories` cannot
   * take them: opening fails `invalid_params` naming `dirs` and the agent.
   * Over the CLI protocol: `INVALID_INPUT`.
   */
  dirs?: string[];
  /**
   * ACP only: the app can run an agent's login in a terminal of its own
   * (`clientCapabilities.auth.terminal`): the agent may then list terminal
   * logins among its `authMethods` (`type: 'terminal'`), each with
   * `terminal: { command, args, env }`, the command line to run (with
   * `env` set over the session's environment). Off by default.
   */
  terminalAuth?: boolean;
  /**
   * A JSON Schema the reply must match; `reply.structured` is the value.
   * Claude Code and Codex over their CLI hold the answer to it themselves
   * (`--json-schema`, `--output-schema`); every other agent, and every agent
   * over ACP, gets it stated in the prompt. A reply that does not match gets
   * at most `maxRetries` corrective turns, then the run ends
   * `invalid_output` with `error.validationErrors`. Keywords: type,
   * properties, required, additionalProperties, items, min/maxItems,
   * uniqueItems, min/maxProperties, enum, const, minimum, maximum,
   * exclusiveMinimum/Maximum, multipleOf, min/maxLength, anyOf, oneOf,
   * allOf, not, `$ref` to `#` or the schema's `$defs`, and annotations;
   * any other is an `invalid_params` run naming it.
   */
  outputSchema?: Record<string, unknown> | boolean;
  /**
   * A W3C trace context (`00-<trace id>-<parent id>-<flags>`), handed to the
   * agent in ACP `_meta.traceparent` and as `TRACEPARENT` in its
   * environment. With `@opentelemetry/api` installed, each turn is a span
   * under it.
   */
  traceparent?: string;
}

/**
 * An ACP `elicitation/create`'s params, as the agent sent them, and
 * `signal` (not enumerable): aborted when the agent cancels the request
 * (`$/cancel_request`) or its turn is cancelled; it was then answered
 * already, and what the handler returns goes nowhere.
 */
export type AcpElicitationRequest = { readonly signal: AbortSignal } & (
  | { mode: 'form'; sessionId?: string; toolCallId?: string; message: string; requestedSchema: { type?: 'object'; properties?: Record<string, Record<string, unknown>>; required?: string[]; [key: string]: unknown }; [key: string]: unknown }
  | { mode: 'url'; sessionId?: string; toolCallId?: string; message: string; elicitationId: string; url: string; [key: string]: unknown });

/** What `onElicitation` answers (`null`/`undefined`: declined). */
export type AcpElicitationAnswer =
  | { action: 'accept'; content?: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' }
  | { action: 'cancel' }
  | null
  | undefined;

/**
 * An API family: Anthropic Messages, OpenAI Responses, OpenAI-compatible
 * chat completions, Gemini.
 */
export type ApiFamily = 'anthropic-messages' | 'openai-responses' | 'openai-chat' | 'gemini';

/**
 * A model endpoint. Each agent calls one family by default (Claude Code
 * `anthropic-messages`, Codex `openai-responses`, Gemini CLI `gemini`,
 * Qwen Code, GitHub Copilot CLI and opencode `openai-chat`); Copilot also
 * calls `openai-responses` and `anthropic-messages`, opencode all four.
 * A family the agent cannot call is `INVALID_INPUT` naming the one it needs.
 */
export interface AgentEndpoint {
  /**
   * The URL as the family's own SDK takes it: the origin for Anthropic and
   * Gemini (`http://127.0.0.1:8080`), with `/v1` for the OpenAI families
   * (`http://127.0.0.1:8080/v1`).
   */
  baseUrl: string;
  /** The family, when not the agent's default. */
  api?: ApiFamily;
  /** Sent as the family sends its key; without it the agent's key variable holds `no-key`, so a key of yours for the agent's vendor never goes to this endpoint. */
  apiKey?: string;
  /** The model at the endpoint (the same as `model`, when both are given); GitHub Copilot CLI and opencode need one. */
  model?: string;
  /** More HTTP headers on every model call. */
  headers?: Record<string, string>;
}

/**
 * An attachment. Relative paths start from `cd`. An image is PNG, JPEG, GIF
 * or WebP, at most 20 MiB, its bytes matching `mimeType`; given as `data`
 * (base64) to an agent that takes files, it is written to a file the run
 * creates and removes.
 */
export type Attachment =
  | { type: 'image'; path: string; mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' }
  | { type: 'image'; data: string; mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' }
  | { type: 'resource_link'; path: string; name?: string }
  | { type: 'resource_link'; uri: string; name?: string }
  | { type: 'resource'; uri: string; text: string; mimeType?: string };

/**
 * An ACP `session/request_permission`'s params, as the agent sent them,
 * and `signal` (not enumerable): aborted when the agent cancels the request
 * (`$/cancel_request`) or its turn is cancelled. The agent was then
 * answered `cancelled` at once, and what the handler returns goes nowhere.
 */
export interface AcpPermissionRequest {
  readonly signal: AbortSignal;
  sessionId: string;
  toolCall: { toolCallId: string; title?: string; kind?: string; locations?: { path: string }[]; rawInput?: unknown; [key: string]: unknown };
  options: { optionId: string; name: string; kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always' }[];
}

/** What `runAgent` resolves. */
export interface AgentRun {
  success: boolean;
  agentType: string;
  /** The session the agent answered in. */
  sessionId?: string;
  /** The `sessionId` asked for. */
  requestedSessionId?: string;
  /**
   * The last attempt's reply. GitHub Copilot CLI's token usage is read
   * back from its `--usage-output-file` (a temp file the runner names and
   * removes); after a resumed run it counts the whole session.
   */
  reply: AgentReply;
  error?: {
    kind: AgentErrorKind;
    message: string;
    /** Whether trying again may succeed. */
    retryable: boolean;
    /** The last attempt's exit code; null when not started or ended by a signal. */
    exitCode: number | null;
    /** The last lines it printed (stdout and stderr), cleaned. */
    lastLines: string[];
    /** With `invalid_output`: where the reply did not match `outputSchema` (`$.items[0].name: …`). */
    validationErrors?: string[];
    /** What the failed attempt had streamed before it failed: kept here, never in `reply.text`. */
    text?: string;
  };
  durationMs: number;
  attempts: number;
}

/**
 * Node only: runs an agent CLI on `request` (an AssemblerInput, assembled
 * with the agent's layout, or an AssemblerOutput) and resolves the
 * AgentRun. Problems with the request or options come back as an
 * `invalid_params` run; bad `signal`, `onEvent`, `env` or `command` reject
 * with `AgentContextError` (`INVALID_INPUT`).
 *
 * `agentType` may also be any ACP agent: an `AgentDefinition` or an ACP
 * registry entry, which runs over the Agent Client Protocol (`protocol`
 * 'cli' is `invalid_params` for it); a bad one is an `invalid_params` run
 * naming the field (`agentType.command`).
 */
export function runAgent(agentType: KnownAgentType | AgentDefinition | AcpRegistryEntry | ServedAgentDefinition, request: AssemblerInput | AssemblerOutput, options: RunAgentOptions): Promise<AgentRun>;

/**
 * An MCP server handed to the agent for one run or session: stdio, or http
 * (streamable HTTP) / sse where the agent takes that transport (else
 * `INVALID_INPUT` naming the agent and the transport). Over ACP it goes in
 * `session/new|load|resume`; over the CLI through the agent's own per-run
 * flag, environment variable or settings file, never the user's
 * configuration files. Its tool calls are in `reply.toolUses`.
 */
export type McpServerConfig =
  | { name: string; type?: 'stdio'; command: string; args?: string[]; env?: Record<string, string> }
  | { name: string; type: 'http' | 'sse'; url: string; headers?: Record<string, string> };

/** Where an agent served elsewhere is (`options.transport`). */
export interface AgentTransport {
  /** `http://`/`https://` (Streamable HTTP) or `ws://`/`wss://` (WebSocket); no credentials, query or fragment. */
  url: string;
  /** Sent with every request and with the WebSocket's upgrade: `{ Authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
}

/**
 * An agent served elsewhere, named (with `options.transport` only): its
 * `id` a built-in agent type makes it that agent (its ACP quirks apply).
 */
export interface ServedAgentDefinition {
  id: string;
  /** For messages; default: `id`. */
  name?: string;
  protocol?: 'acp';
}

/**
 * Where an agent runs when not here (`options.host`). Nothing is installed
 * on the other side but a POSIX `sh` script given as an argument; that side
 * needs `sh` and the agent itself (docs/remote-hosts.md).
 */
export type RemoteHost =
  /** `ssh`, one connection per session (shared, ended at close); key authentication only (BatchMode). */
  | { ssh: { host: string; user?: string; port?: number; identityFile?: string; /** `Key=Value` settings, as `ssh -o` takes them. */ options?: string[] } }
  /** `docker exec -i` into a running container; `docker`: another executable with the same arguments (`podman`). */
  | { docker: { container: string; user?: string; docker?: string } }
  /** `kubectl exec -i` into a running pod. */
  | { kubernetes: { pod: string; namespace?: string; container?: string; context?: string; kubectl?: string } }
  /**
   * Any other channel: given the argument list to run on the other side
   * (it holds no secret) and this process's environment, answer the local
   * command that runs it there with its stdin, stdout and stderr.
   */
  | { exec: (argv: string[], env: Record<string, string | undefined>) => { command: string; args: string[] } };

/** `openAgentSession`'s options: runAgent's, less the per-turn ones, plus the session's own. */
export interface SessionOptions extends Omit<RunAgentOptions, 'signal' | 'onEvent' | 'onPermission' | 'protocol' | 'extraArgs' | 'outputSchema'> {
  /**
   * 'acp' (default): over the Agent Client Protocol. 'cli': over the agent's
   * own command line: Claude Code keeps one process (`--input-format
   * stream-json`); the other CLIs start a process per turn, resuming the
   * session (`persistent` false). Over 'cli': text prompts only, no
   * modes or config options, `mcpServers` as the CLI takes them (not Gemini
   * CLI, which has no per-run way on its command line); `setModel` sets the
   * model of the next turns.
   */
  protocol?: 'acp' | 'cli';
  /** Added to the agent's system prompt (Claude Code), or opening the first prompt (the others). */
  systemPrompt?: string;
  mcpServers?: McpServerConfig[];
  /**
   * Answers the agent's permission requests: an `optionId` it offered,
   * 'allow' / 'allow_always' / 'reject', or `{ outcome: 'cancelled' }` (the
   * protocol's cancelled outcome). Without it the sandbox policy answers.
   */
  onPermission?: (request: AcpPermissionRequest) => string | { optionId: string } | { outcome: 'cancelled' } | Promise<string | { optionId: string } | { outcome: 'cancelled' }>;
  /**
   * Seconds without a turn before the agent's process stops; the next prompt
   * starts it again and resumes or loads the session. Applied only for an
   * agent that can resume or load sessions (the others keep their process).
   */
  idleClose?: number;
  /** Session updates outside a turn's reply: modes, commands, options, and anything between turns. */
  onUpdate?: (update: { sessionUpdate: string; [key: string]: unknown }) => void;
  /**
   * Where the session's record is kept as it goes (`openSessionStore(dir)`,
   * `memorySessionStore()` or a store of your own). With `sessionId`, the
   * session's record is taken first (`SESSION_LOCKED` when another host
   * writes it) and goes on.
   */
  store?: SessionStore;
  /**
   * With `store` and `sessionId`: when the agent cannot resume or load the
   * session (`session_not_found`), open a new one whose first turn carries
   * the recorded conversation; the conversation goes on in it (a `part` of
   * reason `rebuild`, the same `conversationId`).
   */
  rebuild?: boolean;
  /**
   * Agents to go on with when a turn ends `quota_exceeded`, `auth_error`,
   * `command_not_found` or `upstream_error` (or the session cannot be opened
   * for one of those): the turn runs again on the next, by a handoff; the
   * session's fields and methods are then the new agent's. A fallback
   * keeps `cd`, `env`, `systemPrompt`, `mcpServers`, the handlers, the
   * limits, `host` and `store`; its own `options` add to them.
   */
  fallback?: Array<KnownAgentType | AgentDefinition | { agent: KnownAgentType | AgentDefinition; options?: SessionOptions }>;
}

/** A turn moved to the next agent of `fallback`, and why. */
export interface HandoffEvent {
  type: 'handoff';
  reason: 'quota_exceeded' | 'auth_error' | 'command_not_found' | 'upstream_error';
  from: { agentType: string; sessionId: string | undefined };
  to: { agentType: string; sessionId: string | undefined };
}

/** An attempt that failed after streaming text: that text was no reply (a UI removes it). */
export interface DiscardEvent {
  type: 'discard';
  attempt: number;
}

/** The store did not take the record's lines: they are kept, in order, and written once it does (`flush()`). */
export interface RecordErrorEvent {
  type: 'recordError';
  error: Error;
}

/** One turn's result: an AgentRun, with the agent's stopReason. */
export interface AgentTurn extends AgentRun {
  stopReason?: string;
  /** With a store: whether it holds every entry of the turn (false: see `recordError`, then `flush()`). */
  recorded?: boolean;
  /**
   * The first turn of a rebuilt, handed-off or forked session: the
   * conversation it carried, assembled for the agent (`kind` 'full'),
   * `carried` messages, `dropped` for the budget, and the trim report.
   */
  context?: {
    kind: 'full';
    carried: number;
    dropped: number;
    report: TrimReport;
    /**
     * The agent had compacted its context: its summary stood for
     * `replacedTurns` earlier turns, which were not carried (the summary
     * and the turns after it were).
     */
    compacted?: { compactionId: string; replacedTurns: number };
    /** `'all'`: every recorded turn was carried (no compaction with a summary of text). */
    from?: 'all';
  };
  /** The turn ran again on a fallback agent: the session it runs in now. */
  handedOffTo?: { agentType: string; sessionId: string | undefined };
}

/** A content block of a prompt, as the Agent Client Protocol defines it. */
export type ContentBlock = { type: 'text'; text: string } | { type: string; [key: string]: unknown };

/**
 * An agent kept open for many turns (Node only). Over ACP the agent's
 * session exists once it is open: `sessionId` is a string (see
 * `AcpSession`). Over 'cli' a process per turn learns its session at its
 * first turn (a Claude Code session, one process, at open or the first turn).
 */
export interface AgentSession {
  /** The agent session the conversation is in now (it changes at a failover). */
  readonly sessionId: string | undefined;
  /** The conversation: the same across handoff, failover and rebuild; a fork is a conversation of its own. */
  readonly conversationId: string;
  /** The agent type, or the `id` of the definition the session was opened with. */
  readonly agentType: string;
  readonly protocol: 'acp' | 'cli';
  /** True: one process holds every turn; false: a process per turn (over 'cli', every CLI but Claude Code). */
  readonly persistent: boolean;
  /** The agent's `agentCapabilities` (load, resume, images, MCP transports, …). */
  readonly capabilities: Record<string, unknown>;
  readonly authMethods: { id: string; name?: string; [key: string]: unknown }[];
  readonly modes: { id: string; name?: string; description?: string }[];
  readonly mode: string | undefined;
  readonly configOptions: { id: string; name?: string; category?: string; [key: string]: unknown }[];
  readonly models: { modelId: string; name?: string; [key: string]: unknown }[];
  readonly model: string | undefined;
  readonly commands: { name: string; description?: string; [key: string]: unknown }[];
  /** A turn; a prompt sent while one runs waits for it. */
  prompt(
    request: string | AssemblerInput | AssemblerOutput | ContentBlock[],
    turn?: {
      /**
       * The reply's events (a `text` event also names its `attempt`); a
       * `discard` after an attempt that failed having streamed text; with
       * `fallback`, a `handoff` when the turn moves to the next agent; with a
       * store, `recordError` when the store does not take the record.
       */
      onEvent?: (event: (AgentOutputEvent & { attempt?: number }) | HandoffEvent | DiscardEvent | RecordErrorEvent) => void; signal?: AbortSignal; timeout?: number; maxDuration?: number;
      /** This turn's images and resources, after the prompt (ACP sessions; over 'cli' the turn fails `invalid_params`). */
      attachments?: Attachment[];
      /** A JSON Schema this turn's reply must match (stated in the prompt; see RunAgentOptions.outputSchema). */
      outputSchema?: Record<string, unknown> | boolean;
      /** This turn's W3C trace context (ACP `_meta.traceparent`); the session's by default. */
      traceparent?: string;
    },
  ): Promise<AgentTurn>;
  /**
   * A new session in the same agent process holding this one's history
   * (ACP `session/fork`, where the agent advertises it), or, up to an
   * earlier turn (`atTurn`) or where the agent does not fork, a new session
   * of the same agent rebuilt from the record. This session is untouched;
   * closing it ends the process (and the fork) when it was opened with
   * openAgentSession.
   */
  fork(options?: {
    atTurn?: number;
    /** Fork onto another agent: the fork's first turn carries the conversation to it; this conversation goes on where it is. */
    agent?: KnownAgentType | AgentDefinition;
    options?: SessionOptions;
  }): Promise<AgentSession & { readonly forkedFrom: { conversationId: string; sessionId: string | undefined; atTurn: number } }>;
  /**
   * The conversation's record, every agent session of it: the entries
   * after `after` (default 0), at most `limit`, each naming its agent
   * session, and the cursor to read on from. Kept in memory whether or not
   * a store was given.
   */
  history(options?: { after?: number; limit?: number }): SessionRecordPage;
  /** Calls `onEntry` with each record entry after `after`, now and as they come, until `unwatch()`. */
  watch(options: { after?: number }, onEntry: (entry: RecordEntry) => void): () => void;
  /**
   * The conversation goes on with `agent`: the session returned is its live
   * end, whose first turn carries the conversation (assembled for it within
   * its budget). This object then refuses `SESSION_MOVED` (its history
   * still reads) and still names its own agent: `agentType`, `sessionId`,
   * modes and options stay those of the agent session it was.
   */
  handoff(agent: KnownAgentType | AgentDefinition, options?: SessionOptions): Promise<AgentSession>;
  /** Set once handed off: the agent session the conversation went on in. */
  readonly handedOffTo?: { agentType: string; sessionId: string | undefined };
  /** Record lines the store has not taken yet. */
  readonly unwritten: number;
  /** Resolves once the store holds every entry; rejects with the store's error. */
  flush(): Promise<void>;
  setMode(id: string): Promise<void>;
  setConfigOption(id: string, value: string | boolean): Promise<void>;
  /** Through the agent's model option, else its older set_model; else rejects naming the agent. Over 'cli': the next turns' model. */
  setModel(id: string): Promise<void>;
  authenticate(methodId: string): Promise<void>;
  /** The running turn ends `aborted`, its stopReason `cancelled`; queued prompts go on. */
  cancel(): Promise<void>;
  /** Closes the session, then ends its process tree. */
  close(): Promise<void>;
}

/**
 * Node only: starts `agentType` over the Agent Client Protocol (or its own
 * command line, `protocol: 'cli'`) and opens a session (a new one, or
 * `sessionId` resumed or loaded). `agentType` may also be an
 * `AgentDefinition` or an ACP registry entry (over ACP only). Rejects with
 * `AgentContextError`: `INVALID_INPUT` for bad options, `AGENT_ERROR` (with
 * `kind`) when the agent cannot be started or the session opened.
 */
export function openAgentSession(agentType: KnownAgentType | AgentDefinition | AcpRegistryEntry | ServedAgentDefinition, options: SessionOptions & { protocol?: 'acp' }): Promise<AcpSession>;
export function openAgentSession(agentType: KnownAgentType | AgentDefinition | AcpRegistryEntry | ServedAgentDefinition, options: SessionOptions): Promise<AgentSession>;

/**
 * Node only: opens conversation `conversationId` of `store` where it goes on
 * (its live end's agent, with that agent's options from `fallback` when it
 * is one of them), or on `options.agent` with `rebuild` when that agent
 * cannot reopen its session. Rejects `INVALID_INPUT` when the store has no
 * such conversation, `SESSION_LOCKED` when another writer holds it.
 */
export function openConversation(store: SessionStore, conversationId: string, options: SessionOptions & { agent?: KnownAgentType | AgentDefinition }): Promise<AgentSession>;

/** A session over ACP: its id is known once it is open. */
export interface AcpSession extends AgentSession {
  readonly sessionId: string;
  readonly protocol: 'acp';
}

/** `openAgent`'s options: openAgentSession's for the process, less `protocol` and `sessionId`. */
export type AgentProcessOptions = Omit<SessionOptions, 'protocol' | 'sessionId' | 'rebuild' | 'fallback'>;

/** A session's own options on an agent's process; the rest is the process's. */
export interface NewSessionOptions {
  /** The session's working folder (the process's by default). */
  cd?: string;
  systemPrompt?: string;
  /**
   * The session's own MCP servers (the process's by default). Qwen Code and
   * Copilot take them on the command line their process is started with:
   * for them, only the process's (`INVALID_INPUT` otherwise).
   */
  mcpServers?: McpServerConfig[];
  /** The session's more folders (the process's `dirs` by default); see RunAgentOptions.dirs. */
  dirs?: string[];
  /** This session's updates outside a turn's reply (else the process's `onUpdate`). */
  onUpdate?: (update: { sessionUpdate: string; [key: string]: unknown }) => void;
}

/** One agent process over ACP holding several sessions (Node only). */
export interface AgentProcess {
  readonly agentType: string;
  /** The agent's `agentCapabilities` (load, resume, `sessionCapabilities.list`, …). */
  readonly capabilities: Record<string, unknown>;
  readonly authMethods: { id: string; name?: string; [key: string]: unknown }[];
  readonly agentInfo: { name?: string; version?: string; [key: string]: unknown } | undefined;
  /** A new session in this process. Its turns may run while other sessions' do; its own queue in order. */
  newSession(options?: NewSessionOptions): Promise<AgentSession>;
  /** Session `sessionId` reopened (resumed where the agent advertises it, else loaded), verified: `session_not_found` otherwise. */
  loadSession(sessionId: string, options?: NewSessionOptions): Promise<AgentSession>;
  /** The agent's stored sessions; rejects `INVALID_INPUT` naming the agent when it does not list them. */
  listSessions(query?: { cwd?: string; cursor?: string }): Promise<{
    sessions: { sessionId: string; cwd: string; title?: string; updatedAt?: string; [key: string]: unknown }[];
    nextCursor?: string;
  }>;
  authenticate(methodId: string): Promise<void>;
  /** Deletes the agent's stored session (`session/delete`); rejects `INVALID_INPUT` naming the agent, nothing sent, when it does not advertise it. */
  deleteSession(sessionId: string): Promise<void>;
  /** Logs the agent out (`logout`); rejects `INVALID_INPUT` naming the agent, nothing sent, when it does not advertise it. */
  logout(): Promise<void>;
  /** Closes every session, then the process tree. A session's own `close()` closes that session only. */
  close(): Promise<void>;
}

/**
 * Node only: starts `agentType` over the Agent Client Protocol and resolves
 * its process once initialized, for several sessions in it. Rejects with
 * `AgentContextError`: `INVALID_INPUT` for bad options, `AGENT_ERROR` (with
 * `kind`) when the agent cannot be started.
 */
export function openAgent(agentType: KnownAgentType | AgentDefinition | AcpRegistryEntry | ServedAgentDefinition, options: AgentProcessOptions): Promise<AgentProcess>;
