
/** An update of a served conversation as a page is sent it: `_meta['agent-context']` and the ACP update. */
export interface ServedUpdate {
  /** The conversation's number of this update, the same for every client. */
  seq: number;
  turn: number;
  sessionId?: string;
  agentType: string;
  /** The id of the prompt whose turn it belongs to, when it is one. */
  promptId?: string;
  /** The ACP `session/update`'s `update` (`sessionUpdate`: `agent_message_chunk`, `tool_call`, …). */
  update: { sessionUpdate: string; [key: string]: unknown };
}

/** A served conversation, joined from a page (docs/browser.md). */
export interface ConnectedConversation {
  readonly conversationId: string;
  /** One turn (after the turns before it, whoever sent them): the reply, as `parseAgentOutput` with `protocol: 'acp'` reads it. */
  prompt(request: string | Array<Record<string, unknown>>, turn?: { onEvent?: (event: AgentOutputEvent) => void }): Promise<AgentReply>;
  /** Hears the events of this page's turns; returns the function that stops it. */
  onEvent(listen: (event: AgentOutputEvent) => void): () => void;
  /** The conversation's updates this page was sent, after `after`. */
  history(opts?: { after?: number }): { entries: ServedUpdate[]; cursor: number };
  /** The same, live; returns the function that stops it. */
  watch(opts: { after?: number }, onEntry: (entry: ServedUpdate) => void): () => void;
  /** Cancels the running turn. */
  cancel(): void;
  close(): void;
}

/**
 * Joins conversation `conversationId` served by `serveConversations` or
 * `agent-context serve` at `url` (`ws://…/acp`), or opens a new one there,
 * over the browser's WebSocket: the token is offered as the subprotocol
 * `bearer.<token>` beside `acp`. The page's origin must be one the server
 * lists. A module of its own, imported on the first call.
 */
export function connectConversation(
  url: string,
  options: { token: string; conversationId?: string; cwd?: string; onPermission?: (request: unknown) => string | null | Promise<string | null>; WebSocket?: unknown },
): Promise<ConnectedConversation>;
