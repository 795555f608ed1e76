
// ---- Node only: a team conversation (js/types/team.d.ts) ----

/**
 * A member's own session options: they win over the team's. The team's
 * JSON names them but does not hold them (an environment and an endpoint's
 * key are not data to store): `AgentTeam.fromJSON` needs them again.
 */
export interface TeamMemberSessionOptions {
  /**
   * Its model endpoint. Without one the member takes the team's `endpoint`
   * (which must suit its agent's API family); `null` leaves it without any.
   */
  endpoint?: AgentEndpoint | null;
  /** The environment of its agent's process (in place of the team's `env`). */
  env?: Record<string, string | undefined>;
  model?: string;
  /** The executable of its agent (in place of the team's `command`). */
  command?: string;
  /** The machine its agent runs on (in place of the team's `host`). */
  host?: RemoteHost;
  /**
   * Agents it goes on with when its turn ends `quota_exceeded`,
   * `auth_error`, `command_not_found` or `upstream_error` (or its session
   * cannot be opened for one of those): the turn runs again on the next,
   * a new session sent the full prompt for the member, and the member stays
   * on that agent (an entry's `options`: its session options there).
   */
  fallback?: Array<KnownAgentType | AgentDefinition | { agent: KnownAgentType | AgentDefinition; options?: TeamMemberSessionOptions }>;
}

/** A member of an `AgentTeam`: an agent with its instructions and budget, and its own session options. */
export interface TeamMember extends TeamMemberSessionOptions {
  /** Its name in the transcript: `from` of its replies, `to` of messages to it. */
  id: string;
  /**
   * The agent type (one the library does not know is `INVALID_INPUT` when
   * the member joins); with `definition`, left out (the definition's `id`
   * is the member's agent type).
   */
  agentType?: KnownAgentType | AgentType;
  /** Any ACP agent instead of an agent type: an agent definition or an ACP registry entry. */
  definition?: AgentDefinition | AcpRegistryEntry;
  systemInstruction?: string;
  instructionFileText?: string;
  /** The protocol of its sessions, in place of the team's (default `'acp'`). */
  protocol?: 'acp' | 'cli';
  /** Budget of each of its prompts, in UTF-8 bytes; default 768 KiB. */
  maxBytes?: number;
}

/**
 * `new AgentTeam(options)`: the team task, the members, and the session
 * options every member's session takes (a member's own over them). The
 * team's `endpoint` goes to the members without one of their own; it speaks
 * one API family (its `api`, else the one every member taking it calls by
 * default), and a member whose agent cannot call it is `INVALID_INPUT`.
 */
export interface AgentTeamOptions extends Omit<SessionOptions, 'sessionId' | 'systemPrompt' | 'fallback' | 'rebuild'> {
  teamTask?: string | null;
  members: TeamMember[];
}

/** What one turn sent, beside the agent's answer. */
export interface TeamTurnContext {
  /** `'full'` on a fresh session (the whole view), `'delta'` after (only what is new). */
  kind: 'full' | 'delta';
  /** UTF-8 bytes sent: the prompt, plus the instructions that went as the system prompt of the session it opened (Claude Code). */
  bytes: number;
  /** How many transcript messages the prompt held. */
  messages: number;
  /** Messages that concern the member and were left out to fit its `maxBytes` (the oldest). */
  dropped: PromptContextMessage[];
  report: TrimReport;
}

/** One member's turn: the session's turn, and what was sent. */
export interface TeamTurn extends Omit<AgentTurn, 'context'> {
  context: TeamTurnContext;
  /** The turn went on with an agent of the member's `fallback`: the last one it ran on, and its session. */
  handedOffTo?: { agentType: string; sessionId: string | undefined };
}

/** `team.toJSON()`: plain data that brings the team back with `AgentTeam.fromJSON`. */
export interface AgentTeamJSON {
  /** 2; `fromJSON` still reads 1. */
  version: 2;
  teamTask: string | null;
  cd: string;
  members: TeamMemberData[];
  transcript: PromptContextMessage[];
}

/** A member as the team's data holds it: who it is, the names of its own session options, its session id and mark. */
export interface TeamMemberData extends Omit<TeamMember, keyof TeamMemberSessionOptions> {
  agentType: string;
  sessionOptions?: (keyof TeamMemberSessionOptions)[];
  sessionId?: string;
  mark: number | null;
  /** How many agents of its `fallback` it went on with (its `agentType` is the last one's). */
  fallbackUsed?: number;
}

/**
 * Node only: a team conversation. Each member is an agent with its own
 * session (opened on its first turn); its first turn, or one after its session
 * was lost, gets the full prompt for it (the team task, its instructions and
 * every message that concerns it: to it, from it, or to everyone), later
 * turns only the messages since its last turn that concern it.
 */
export class AgentTeam {
  /**
   * With `store`, each member's session is recorded there (its `teamId`
   * and `memberId` in the record), and so is the team itself, under
   * `teamId`: `AgentTeam.open(store, teamId)` brings it back.
   */
  constructor(options: AgentTeamOptions);
  /** The id of the team's record in its `store` (a random UUID); undefined without a store. */
  readonly teamId: string | undefined;
  readonly teamTask: string | null;
  /** Copies: each member with its session id and mark (how many transcript messages its session went through). */
  readonly members: TeamMemberData[];
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
      onEvent?: (event: AgentOutputEvent | HandoffEvent) => void;
      signal?: AbortSignal;
      timeout?: number;
      maxDuration?: number;
    },
  ): Promise<TeamTurn>;
  toJSON(): AgentTeamJSON;
  /**
   * The team from `toJSON()`'s data; `options` are the session options
   * (`cd` defaults to the stored one), and `members` each member's own again
   * by id (every one its JSON names is required; `null` leaves one out).
   */
  static fromJSON(
    json: AgentTeamJSON | (Omit<AgentTeamJSON, 'version'> & { version: 1 }) | string,
    options?: Partial<Omit<AgentTeamOptions, 'teamTask' | 'members'>> & { members?: (TeamMemberSessionOptions & { id: string })[] },
  ): AgentTeam;
  /**
   * The team recorded in `store` under `teamId`, brought back as `fromJSON`
   * brings back its data (`options` as there) and recorded there on.
   * `SESSION_LOCKED` while another process has it open; `INVALID_INPUT`
   * for an id with no team's record.
   */
  static open(
    store: SessionStore,
    teamId: string,
    options?: Partial<Omit<AgentTeamOptions, 'teamTask' | 'members' | 'store'>> & { members?: (TeamMemberSessionOptions & { id: string })[] },
  ): Promise<AgentTeam>;
  /** Closes every member's session; `fromJSON(toJSON())` continues the team, resuming them where the agent can. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
