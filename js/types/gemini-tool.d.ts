
/** The host's options of `runGeminiTool` (Node only). */
export interface RunGeminiToolOptions {
  /** Aborts the call: the process group is killed and the envelope says `aborted`. */
  signal?: AbortSignal | null;
  /** The gemini executable; default `$AGENT_CONTEXT_GEMINI_BIN`, else `gemini` looked up on the PATH. */
  command?: string | null;
  /** The child's environment (its PATH is the one searched); default `process.env`. */
  env?: Record<string, string | undefined> | null;
}

/**
 * Node only: runs Gemini CLI as a tool and resolves the envelope.
 * A failed call's `error_kind` (`GeminiToolErrorKind`) is `runAgent`'s
 * taxonomy: the same kind `runAgent('google-gemini', …)` gives as
 * `error.kind` for the same Gemini CLI output, and retried alike.
 * Problems with `params` come back as an `invalid_params` envelope; bad
 * `options` reject with `AgentContextError` (`INVALID_INPUT`).
 */
export function runGeminiTool(params: GeminiToolParams, options?: RunGeminiToolOptions): Promise<GeminiToolEnvelope>;

/** Node only: `ai/contracts/current.md`, `ai/engineering_codex.md`, `ai/PROJECT_CONTEXT.md` under `cd`, those that exist. */
export function readEngineeringContext(cd: string): EngineeringContextFile[];
