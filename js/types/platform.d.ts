
// ---- Platforms (Node only): command-line limits, Windows shims, finding and launching agents ----
// From js/types/platform.d.ts, appended to the Node build's declarations by scripts/finish-pkg.mjs.

/** `checkCommandLine`'s request: the file spawn gets, its arguments, the child's environment. */
export interface CommandLineRequest {
  platform?: AgentPlatform;
  program: string;
  args: string[];
  env?: Record<string, string>;
  /** Windows: count it as run through `cmd.exe /d /s /c "…"` (8 191 units). */
  throughCmd?: boolean;
}

/** The limit that binds: the total's when it fits, the first exceeded when not. */
export interface CommandLineCheck {
  fits: boolean;
  limit: 'linux-argument' | 'linux-argv-env' | 'darwin-arg-max' | 'windows-command-line' | 'cmd-exe';
  used: number;
  max: number;
  unit: 'bytes' | 'UTF-16 units';
  /** `args[3]`, `env.PATH`, `program`, `argv + environment` or `command line`. */
  what: string;
  /** Set when it does not fit: names the limit and the numbers. */
  message?: string;
}

/**
 * Counts a command line as the system will: Linux 131 072 bytes per
 * argument (its NUL included) and 2 097 152 for path + argv + environment
 * with their NULs and pointers; macOS 1 048 576 (`ARG_MAX`) for argv +
 * environment; Windows 32 767 UTF-16 units for the line Node quotes
 * (8 191 through cmd.exe).
 *
 * ```js
 * checkCommandLine({ platform: 'win32', program: 'node.exe', args: ['x'.repeat(40000)] }).fits; // false
 * ```
 */
export function checkCommandLine(request: CommandLineRequest): CommandLineCheck;

/**
 * The command line Node gives `CreateProcessW` on Windows for `program` and `args` (libuv's quoting).
 *
 * ```js
 * windowsCommandLine('node.exe', ['a b', 'say "hi"']); // 'node.exe "a b" "say \\"hi\\""'
 * ```
 */
export function windowsCommandLine(program: string, args: string[]): string;

/** What an npm / pnpm / yarn `.cmd` shim runs. */
export interface CmdShim {
  program: { kind: 'path'; path: string } | { kind: 'interpreter'; local: string | null; name: string };
  /** Before the caller's arguments: interpreter flags, then the script. */
  args: string[];
  env: Record<string, string>;
}

/** Reads a `.cmd` shim's text; throws `INVALID_INPUT` for a batch file that is not one. */
export function parseCmdShim(path: string, text: string): CmdShim;

/** A file to look at when resolving a command, and why. */
export interface CommandCandidate {
  path: string;
  /** `PATH`, `login shell PATH`, `given`, or an install folder's name. */
  source: string;
}

/** `planCommandSearch`'s answer. */
export interface CommandSearchPlan {
  command: string;
  candidates: CommandCandidate[];
  /** macOS/Linux, until `loginShellOutput` is given: run it (bounded in time) if nothing on `PATH` exists. */
  loginShell: { file: string; args: string[] } | null;
}

/** The ordered places to look for an agent's executable (the host checks which exist). */
export function planCommandSearch(request: {
  agentType?: AgentType;
  command?: string;
  platform?: AgentPlatform;
  env?: Record<string, string>;
  loginShellOutput?: string;
}): CommandSearchPlan;

/** How a found file is launched, before its interpreter is found. */
export type CommandLaunch =
  | { kind: 'direct'; file: string }
  | { kind: 'interpreter'; local: string | null; name: string; args: string[]; env: Record<string, string>; directIfOnPath: boolean };

/** What the found `path` needs; `head` is its first bytes as text (a `.cmd`'s whole text). */
export function planLaunch(request: { platform?: AgentPlatform; path: string; head?: string }): CommandLaunch;

/** A resolved command: spawn `file` with `args` then the agent's, adding `env`. */
export interface ResolvedCommand {
  /** The file found (the shim, the script, the executable). */
  path: string;
  source: string;
  file: string;
  args: string[];
  env: Record<string, string>;
  via: 'direct' | 'interpreter' | 'electron';
}

/** Puts a launch and its interpreter together; throws `INVALID_INPUT` when the interpreter is missing and no Electron stands in. */
export function finishLaunch(request: {
  found: CommandCandidate;
  launch: CommandLaunch;
  interpreter?: { kind: 'local' } | { kind: 'found'; path: string; source: string } | { kind: 'missing'; electronExecPath?: string };
}): ResolvedCommand;

/** `command_not_found`'s message, every place searched listed. */
export function commandNotFoundMessage(command: string, searched: CommandCandidate[]): string;

/** One step of stopping a process tree; the next runs only when one fails. */
export type KillStep =
  | { kind: 'signalGroup'; pid: number; signal: 'SIGKILL' }
  | { kind: 'run'; file: string; args: string[] }
  | { kind: 'killChild' };

/**
 * Spawn options and the steps that stop the tree (POSIX process group; Windows `taskkill /pid N /T /F`).
 * `strays` (Linux): the environment variable to set, in the child's environment, to a value unique to
 * the spawn; when the tree is killed and after the child exits, every process still holding it gets
 * `signal` — what the agent started outside its group (in a session of its own).
 */
export function planKill(
  platform?: AgentPlatform,
  pid?: number,
): { detached: boolean; windowsHide: boolean; steps: KillStep[]; strays?: { env: string; signal: 'SIGKILL' } };

/** `resolveAgentCommand`'s answer when found: spawn `file` with `args` then the agent's, adding `env`. */
export interface AgentCommandFound extends ResolvedCommand {
  found: true;
  /** Every place looked at, in order. */
  searched: CommandCandidate[];
}

/** `resolveAgentCommand`'s answer when not found (or found but only cmd.exe could run it). */
export interface AgentCommandNotFound {
  found: false;
  kind: 'command_not_found' | 'spawn_failed';
  /** Lists every place searched. */
  message: string;
  searched: CommandCandidate[];
}

/**
 * Finds an agent's CLI: `PATH` (with `PATHEXT` on Windows), then (macOS,
 * Linux) the login shell's `PATH` (`$SHELL -ilc`, at most 5 s, once per
 * process), then the usual install folders; a Windows `.cmd` shim is read
 * and launched as its node + script (never through cmd.exe); in Electron's
 * main process with no node found, `process.execPath` with
 * `ELECTRON_RUN_AS_NODE=1` runs the script.
 */
export function resolveAgentCommand(
  agentType: AgentType,
  options?: {
    env?: Record<string, string | undefined>;
    platform?: AgentPlatform;
    /** Look for this command instead of the agent's default (`claude`, `codex`, `gemini`). */
    command?: string;
    loginShellTimeoutMs?: number;
    /** Stands in for node when none is found (default: `process.execPath` in Electron's main process). */
    electronExecPath?: string;
  },
): Promise<AgentCommandFound | AgentCommandNotFound>;
