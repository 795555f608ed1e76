/** An agent CLI: the three built-in ones, or any other name (plain text). */
export type AgentType = 'claude-code' | 'openai-codex' | 'google-gemini' | (string & {});

/** One message of the conversation so far. `timestamp` is accepted and ignored. */
export interface PromptContextMessage {
  from: string;
  to?: string | null;
  content: string;
  timestamp?: unknown;
}

/** What an assembler reads. Missing or `null` strings count as empty. */
export interface AssemblerInput {
  contextMessages: PromptContextMessage[];
  currentMessage: string;
  teamTask: string | null;
  systemInstruction?: string | null;
  instructionFileText?: string | null;
  /** Budget in UTF-8 bytes for `prompt` (plus `systemFlag`); default 786432 (768 KiB). */
  maxBytes?: number;
}

/** What an assembler returns: the prompt for stdin, and Claude's system prompt flag. */
export interface AssemblerOutput {
  prompt: string;
  systemFlag?: string;
}

/** Receives warnings: a function, or an object with a `warn` method such as `console`. */
export type Logger = ((message: string) => void) | { warn(message: string): void };

export interface AssembleOptions {
  /** Where the unknown-agent warning goes; default `console.warn`. */
  logger?: Logger;
}

/** Stable codes of `AgentContextError`. */
export type AgentContextErrorCode = 'INVALID_INPUT' | 'BUDGET_EXCEEDED' | 'INTERNAL';

/** Every error the library throws: an `Error` with this `name` and a stable `code`. */
export interface AgentContextError extends Error {
  name: 'AgentContextError';
  code: AgentContextErrorCode;
}
