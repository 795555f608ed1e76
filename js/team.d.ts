
// ---- Node only: a team conversation (js/team.d.ts) ----

/** A member of an `AgentTeam`: an agent with its instructions and budget. */
export interface TeamMember {
  /** Its name in the transcript: `from` of its replies, `to` of messages to it. */
  id: string;
  /** The agent type; with `definition`, left out (the definition's `id` is the member's agent type). */
  agentType?: KnownAgentType | AgentType;
  /** Any ACP agent instead of an agent type: an agent definition or an ACP registry entry. */
  definition?: AgentDefinition | AcpRegistryEntry;
  systemInstruction?: string;
  instructionFileText?: string;
  /** Sessions run over the Agent Client Protocol. */
  protocol?: 'acp';
  /** Budget of each of its prompts, in UTF-8 bytes; default 768 KiB. */
  maxBytes?: number;
}

/** `new AgentTeam(options)`: the team task, the members, and the session options every member's session takes. */
export interface AgentTeamOptions extends Omit<SessionOptions, 'sessionId' | 'systemPrompt'> {
  teamTask?: string | null;
  members: TeamMember[];
}

/** What one turn sent, beside the agent's answer. */
export interface TeamTurnContext {
  /** `'full'` on a fresh session (the whole view), `'delta'` after (only what is new). */
  kind: 'full' | 'delta';
  /** UTF-8 bytes sent: the prompt, plus the system prompt of a new Claude Code session. */
  bytes: number;
  /** How many transcript messages the prompt held. */
  messages: number;
  /** Messages that concern the member and were left out to fit its `maxBytes` (the oldest). */
  dropped: PromptContextMessage[];
  report: TrimReport;
}

/** One member's turn: the session's turn, and what was sent. */
export interface TeamTurn extends AgentTurn {
  context: TeamTurnContext;
}

/** `team.toJSON()`: plain data that brings the team back with `AgentTeam.fromJSON`. */
export interface AgentTeamJSON {
  version: 1;
  teamTask: string | null;
  cd: string;
  members: (TeamMember & { sessionId?: string; mark: number | null })[];
  transcript: PromptContextMessage[];
}

/**
 * Node only: a team conversation. Each member is an agent with its own
 * session (opened on its first turn); its first turn, or one after its session
 * was lost, gets the full prompt for it (the team task, its instructions and
 * every message that concerns it: to it, from it, or to everyone), later
 * turns only the messages since its last turn that concern it.
 */
export class AgentTeam {
  constructor(options: AgentTeamOptions);
  readonly teamTask: string | null;
  /** Copies: each member with its session id and mark (how many transcript messages its session went through). */
  readonly members: (TeamMember & { sessionId?: string; mark: number | null })[];
  /** Every message, oldest first (a copy). */
  readonly transcript: PromptContextMessage[];
  /** Adds a member; its first turn gets the whole history that concerns it. */
  addMember(member: TeamMember): void;
  /** A person's or an outside message (`to` missing, empty or `'all'`: everyone); returns its index. */
  post(message: { from: string; to?: string; content: string }): number;
  /** Runs one turn of a member; its reply joins the transcript (to `replyTo`, else everyone). */
  ask(
    memberId: string,
    options?: {
      /** This turn's message (the prompt's message section); not part of the transcript. */
      message?: string;
      replyTo?: string;
      onEvent?: (event: AgentOutputEvent) => void;
      signal?: AbortSignal;
      timeout?: number;
      maxDuration?: number;
    },
  ): Promise<TeamTurn>;
  toJSON(): AgentTeamJSON;
  /** The team from `toJSON()`'s data; `options` are the session options (`cd` defaults to the stored one). */
  static fromJSON(json: AgentTeamJSON | string, options?: Partial<Omit<AgentTeamOptions, 'teamTask' | 'members'>>): AgentTeam;
  /** Closes every member's session; `fromJSON(toJSON())` continues the team, resuming them where the agent can. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
