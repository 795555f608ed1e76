//! What an agent file says about its agent: one [`AgentSpec`], a table, no
//! code. The modules that assemble, parse, build command lines and run read
//! these tables instead of matching on agent types.

pub use super::acp_launch::{AcpLaunch, AcpMcp, AcpModel, AcpQuirks, AcpToolName};
pub use super::endpoint_spec::{
    EndpointModel, EndpointRoute, EndpointSpec, EnvRoute, FamilyUse, FileRoute, HeaderRoute,
    ModelsFile, SettingsPlace, SettingsRoute,
};
pub use super::failed_prompt::FailedPrompt;
use crate::prompt::layout::Layout;

/// Everything the library knows about one agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentSpec {
    /// The agent type callers pass (`'claude-code'`).
    pub agent_type: &'static str,
    /// The product's own name, for messages and help (`"Claude Code"`).
    pub name: &'static str,
    /// How its prompt is laid out (`layout.agent_type == agent_type`).
    pub layout: &'static Layout,
    /// The JS class that assembles for it alone (`ClaudeContextAssembler`),
    /// when the package exports one.
    pub assembler_class: Option<&'static str>,
    /// How its CLI is invoked and what it prints; `None` for an agent the
    /// library drives over the Agent Client Protocol only (its CLI mode is
    /// not modelled: `buildCliInvocation`, `parseAgentOutput` over the CLI
    /// and runs with `protocol: 'cli'` are `INVALID_INPUT` naming it, and
    /// its runs default to ACP). [`AgentSpec::cli`] says so.
    pub cli: Option<CliSpec>,
    /// How it is started for the Agent Client Protocol; `None` until the
    /// library drives it over ACP. An agent has a CLI, an ACP launch, or both.
    pub acp: Option<AcpLaunch>,
    /// The tool name the MCP server gives it (`claude`).
    pub mcp_tool: &'static str,
    /// How `maxRetries` reaches the agent's own retries of a failed API
    /// call, over the CLI and over ACP (SPEC §21).
    pub own_retries: OwnRetries,
    /// How it says why a run failed (exit codes, error codes, wording,
    /// retry lines), read by the run's classifier.
    pub signs: &'static super::signs::Signs,
    /// How it is pointed at a model endpoint (`options.endpoint`).
    pub endpoint: EndpointSpec,
    /// A home folder the run can make for it, where the agent reads its
    /// user settings from (`None`: it has none the run uses).
    pub home: Option<RunHome>,
    /// The oldest Node.js it runs on, for an agent that is a Node program
    /// (`None`: not one, or any Node the package runs on): a start that
    /// fails on an older one says so ([`NodeVersion`]).
    pub min_node: Option<NodeVersion>,
    /// Variables of the caller's environment its parts read differently
    /// (Claude Code's `IS_SANDBOX`): the run gives them the value every
    /// part reads alike.
    pub env_flags: &'static [EnvFlag],
    /// Variables the run sets for the agent unless the caller's
    /// environment names them: what makes a driven run start as the agent
    /// would for it (Gemini CLI's `GEMINI_CLI_NO_RELAUNCH`: without it the
    /// CLI starts itself again, in a second Node process with a larger
    /// heap, which doubles its start).
    pub start_env: &'static [(&'static str, &'static str)],
}

/// A Node.js release, `major.minor`.
///
/// An agent run by a Node older than its [`AgentSpec::min_node`] fails at
/// once, in words of its own (Kimi Code on Node 20: `SyntaxError: The
/// requested module 'node:zlib' does not provide an export named
/// 'createZstdDecompress'`), and Node ends an uncaught error with its own
/// version (`Node.js v20.20.2`): the run's classifier reads that line and
/// says which Node ran it and which it needs (`crate::attempt::classify`).
/// Read from what the failed start printed, it costs nothing when the
/// agent starts and names the Node that really ran it, wherever it ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NodeVersion {
    pub major: u32,
    pub minor: u32,
}

/// A variable of the caller's environment that the agent's parts read
/// differently, so that a value set for the whole machine could fail a run
/// that asked nothing of it: Claude Code's `IS_SANDBOX`, which its ACP
/// adapter takes as "a sandbox" whatever the value, while Claude Code's
/// check as root takes only `1` (and its other checks `1`, `true`, `yes`
/// or `on`), so that as root `IS_SANDBOX=yes` had the adapter ask for a
/// permission mode Claude Code then refused at the start. The run gives
/// the agent the value all its parts read as the caller's value means
/// ([`crate::launch::env_flags`]): `on` for one of `on_words` (any case,
/// spaces around), `off` for any other value; a value already `on` or
/// `off`, or none, is left as it is (`docs/agents.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnvFlag {
    pub name: &'static str,
    /// The value every part reads as set (`1`).
    pub on: &'static str,
    /// The values, lowercase, that the agent itself reads as set.
    pub on_words: &'static [&'static str],
    /// The value every part reads as unset (`""`).
    pub off: &'static str,
}

impl AgentSpec {
    /// Its CLI, or `INVALID_INPUT` naming the agent when it is driven over
    /// ACP only: `agentType 'x': X is driven over the Agent Client Protocol
    /// only (the library does not drive its command line): {purpose} is not
    /// available; use protocol 'acp'`.
    pub fn cli(&self, purpose: &str) -> crate::error::Result<&CliSpec> {
        self.cli.as_ref().ok_or_else(|| {
            crate::error::AgentContextError::invalid(format!(
                "agentType '{}': {} is driven over the Agent Client Protocol only (the library does not drive its command line): {purpose} is not available; use protocol 'acp'",
                self.agent_type, self.name
            ))
        })
    }

    /// The protocols it is driven over, the default first: `cli` when it
    /// has a CLI, then `acp` when it has an ACP launch.
    pub fn protocols(&self) -> &'static [&'static str] {
        match (self.cli.is_some(), self.acp.is_some()) {
            (true, true) => &["cli", "acp"],
            (true, false) => &["cli"],
            (false, _) => &["acp"],
        }
    }

    /// The executable's usual name: its CLI's, else what runs over ACP.
    pub fn command(&self) -> &'static str {
        match (&self.cli, &self.acp) {
            (Some(cli), _) => cli.command,
            (None, Some(acp)) => acp.command,
            (None, None) => "",
        }
    }

    /// The npm package that installs it: its CLI's, else what runs over ACP.
    pub fn package(&self) -> &'static str {
        match (&self.cli, &self.acp) {
            (Some(cli), _) => cli.package,
            (None, Some(acp)) => acp.package,
            (None, None) => "",
        }
    }

    /// What its CLI prints; [`OutputFormat::PlainText`] for an agent that
    /// has none (the Rust API reads such output as text).
    pub fn output(&self) -> OutputFormat {
        self.cli.map_or(OutputFormat::PlainText, |cli| cli.output)
    }
}

/// A home folder of the run's own for the agent, named by the variable
/// `env`: its settings file `{folder}/{settings}` is the user's own one
/// merged with the run's keys (an endpoint's choice, MCP servers, a retry
/// bound: [`SettingsPlace::Home`], [`CliMcp::HomeSettings`],
/// [`OwnRetries::HomeSettings`]), every other entry of the user's
/// `{folder}` is linked there, so sessions, credentials and history stay
/// where they are (`crate::launch::run_home`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunHome {
    /// The variable that names the home (`GEMINI_CLI_HOME`); a caller's
    /// own value of it is the user's home.
    pub env: &'static str,
    /// The agent's folder in a home (`.gemini`).
    pub folder: &'static str,
    /// Its settings file in that folder (`settings.json`).
    pub settings: &'static str,
    /// Folders of the user's `{folder}` the agent keeps its sessions in,
    /// made when missing so that they are linked and outlive the run
    /// (`tmp`, `history`).
    pub kept: &'static [&'static str],
    /// True when the variable names the agent's folder itself (pi's
    /// `PI_CODING_AGENT_DIR`, whose default is `~/.pi/agent`), not a home
    /// holding `{folder}` (Gemini CLI's `GEMINI_CLI_HOME`).
    pub names_folder: bool,
    /// Settings (a JSON object) merged into the settings file on every run,
    /// under the run's own keys (pi's `quietStartup`, whose startup notice
    /// its ACP adapter would send as the reply's first text).
    pub fixed: &'static str,
    /// A setting given the real path of one of `kept` in the user's folder,
    /// unless the user's settings set it: `(key, folder)`. pi's ACP adapter
    /// remembers a session by the path of its file, which through the run's
    /// link would be a path inside the run's home, gone with it (pi's
    /// `sessionDir`).
    pub kept_setting: Option<(&'static str, &'static str)>,
}

/// How the agent's own retries of a failed API call are bounded, through
/// configuration the run owns (never the user's files).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnRetries {
    /// An environment variable of the child holding `maxRetries + plus`
    /// (Claude Code's `CLAUDE_CODE_MAX_RETRIES`).
    Env { name: &'static str, plus: u32 },
    /// A settings file the run writes and removes, named by the environment
    /// variable `env`, that the agent merges over the user's own settings,
    /// key by key; it holds `maxRetries + plus` at `key` (Qwen Code's
    /// system settings: `model.generationConfig.maxRetries`).
    SettingsFile {
        env: &'static str,
        key: &'static [&'static str],
        plus: u32,
        /// Settings in the same file that make the agent tell of each of
        /// its retries in a file of the run's folder, when no setting
        /// bounds them all.
        log: Option<RetryLog>,
    },
    /// At `key` of the settings in the run's home ([`RunHome`]), holding
    /// `maxRetries + plus` (Gemini CLI's `general.maxAttempts`).
    HomeSettings {
        key: &'static [&'static str],
        plus: u32,
    },
    /// No setting reaches them, but the agent logs each failed model call
    /// (with its HTTP status) to a file the variable `env` names: the run
    /// names `file` in its folder, the host reads it as it grows, and the
    /// run counts the records holding one of
    /// [`super::signs::Signs::retry_lines`] past `maxRetries` as it counts
    /// retry lines (Factory Droid's `FACTORY_LOG_FILE`). The agent's log of
    /// the run goes there instead of its usual place.
    LogFile {
        env: &'static str,
        file: &'static str,
    },
    /// No setting the run can own reaches them, but each retry prints a
    /// line with the HTTP status (its output format's
    /// `Signs::retry_status`): the run counts them and stops the agent once
    /// it retried more than `maxRetries` times (`crate::attempt::RetryCount`);
    /// why no setting (`docs/agents.md`).
    Counted(&'static str),
    /// No setting the run can own reaches them; why (`docs/agents.md`).
    Unbounded(&'static str),
}

/// A file of the run's folder the agent writes a record to for each of its
/// own retries (Qwen Code's telemetry, `telemetry.outfile`), turned on by
/// keys of its settings file ([`OwnRetries::SettingsFile`]). The host reads
/// it as it grows and hands it to the run, which counts the records holding
/// one of [`super::signs::Signs::retry_lines`] with an HTTP status after one
/// of `Signs::retry_status` and stops the agent past `maxRetries`
/// (`crate::attempt::RetryCount`). Nothing of the file is the agent's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryLog {
    /// Keys set to `true` or `false` (`telemetry.enabled`).
    pub keys: &'static [(&'static [&'static str], bool)],
    /// The key that names the file (`telemetry.outfile`).
    pub path: &'static [&'static str],
    /// The file's name in the run's folder.
    pub file: &'static str,
}

impl OwnRetries {
    /// The environment variable the run sets for it, if any: a caller's
    /// environment that already sets it keeps its own value.
    pub fn env_name(&self) -> Option<&'static str> {
        match self {
            OwnRetries::Env { name, .. } => Some(name),
            OwnRetries::SettingsFile { env, .. } | OwnRetries::LogFile { env, .. } => Some(env),
            OwnRetries::HomeSettings { .. } | OwnRetries::Counted(_) | OwnRetries::Unbounded(_) => {
                None
            }
        }
    }
}

/// What an agent CLI prints, by agent type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// Claude Code `-p --output-format stream-json --verbose`.
    ClaudeStreamJson,
    /// Codex `exec --json`.
    CodexJson,
    /// Gemini CLI `-o stream-json`.
    GeminiStreamJson,
    /// Qwen Code `-o stream-json`: Claude Code's lines, with Qwen's usage
    /// and errors.
    QwenStreamJson,
    /// GitHub Copilot CLI `--output-format json`: dotted event types, the
    /// session id on the last line only.
    CopilotJson,
    /// opencode `run --format json`: parts, no final line.
    OpencodeJson,
    /// pi `--mode json -p`: its session's events (`session`,
    /// `message_end`, `tool_execution_end`, `agent_end`, `auto_retry_*`).
    PiJson,
    /// Kimi Code `--output-format stream-json`: one message a line
    /// (`role`: `assistant`, `tool`, `meta`), no usage.
    KimiStreamJson,
    /// Text, ANSI escapes removed: what the Rust API reads for an agent
    /// type it does not know.
    PlainText,
}

/// How an agent CLI is invoked headless, with the prompt on stdin. The
/// arguments come in this order: `base_args`, the system prompt, the model,
/// a session flag, the approval flag, the caller's extra arguments, a
/// session subcommand, `trailing_args`. Values are attached with `=`
/// (apart, for a CLI that takes them so: [`CliExtras::values_apart`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CliSpec {
    /// The executable's usual name (`claude`).
    pub command: &'static str,
    /// The npm package that installs it.
    pub package: &'static str,
    /// What it prints in headless JSON mode.
    pub output: OutputFormat,
    /// First, always: headless JSON output and the flags every run needs.
    pub base_args: &'static [&'static str],
    pub system_prompt: SystemPromptArg,
    /// The flag that names the model (`--model`).
    pub model_flag: &'static str,
    pub session: SessionArg,
    pub approval: ApprovalArg,
    /// Last, after any extra arguments (Codex's `-`: read the prompt from stdin).
    pub trailing_args: &'static [&'static str],
    /// How the run's MCP servers (`mcpServers`) reach the CLI.
    pub mcp: CliMcp,
    /// What only some CLIs need.
    /// How it takes attachments on its command line (`None`: it takes none).
    pub attachments: Option<CliAttachments>,
    pub extras: CliExtras,
}

/// How one agent CLI takes attachments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CliAttachments {
    pub image: CliImage,
    /// True when the CLI reads a file named `@path` in the prompt and sends
    /// its content (images included) to the model (Gemini CLI, Qwen Code).
    pub at_path: bool,
    /// The flag that lets it read a folder outside its working directory,
    /// given once per folder of an `@path` file (`--include-directories`).
    pub include_dir_flag: Option<&'static str>,
}

/// How an image reaches the model through the CLI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CliImage {
    /// `{flag}=path`, once per image (Codex `--image`, Copilot
    /// `--attachment`, opencode `--file`).
    FileFlag(&'static str),
    /// `@path` in the prompt text ([`CliAttachments::at_path`]).
    AtPath,
    /// A base64 image block in a stream-json user message on stdin, which
    /// these arguments turn on (Claude Code's `--input-format stream-json`).
    StreamJson(&'static [&'static str]),
    /// `@path` as an argument of its own, once per image (pi reads the file
    /// and sends it when the model is declared to take images).
    AtArg,
    /// It takes none over its command line; why (`INVALID_INPUT`).
    Refused(&'static str),
}

/// How a run hands its MCP servers to the CLI, for that run only and never
/// through the user's own configuration files (`docs/mcp-servers.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CliMcp {
    /// `{flag}=<json>` (the servers as `{"mcpServers":{name:…}}` in
    /// `shape`), followed by `then`, after the approval flags; `env` is
    /// added to the child's environment (the caller's own value wins).
    JsonFlag {
        flag: &'static str,
        shape: McpShape,
        then: &'static [&'static str],
        env: &'static [(&'static str, &'static str)],
    },
    /// One `-c mcp_servers.<name>={…}` configuration override (a TOML
    /// inline table) per server, after the approval flags (Codex).
    CodexOverrides,
    /// Under `key` of the JSON configuration the CLI reads from the
    /// environment variable `env`, merged into the caller's own value of it
    /// (opencode's `OPENCODE_CONFIG_CONTENT`).
    EnvJson {
        env: &'static str,
        key: &'static str,
        shape: McpShape,
    },
    /// Under `key` of the settings in the run's home ([`RunHome`]), in
    /// `shape` (Gemini CLI's `mcpServers`).
    HomeSettings { key: &'static str, shape: McpShape },
    /// No per-run way that leaves the user's files alone; why (refused
    /// with `INVALID_INPUT`).
    Unsupported(&'static str),
}

/// The JSON each CLI reads one MCP server from. Which transports a shape
/// can say is [`crate::launch::mcp_servers::cli`]'s to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpShape {
    /// `{type: "stdio", command, args, env}`, `{type: "http"|"sse", url, headers}`.
    Claude,
    /// `{type: "local", command, args, env, tools: ["*"]}`,
    /// `{type: "http"|"sse", url, headers, tools: ["*"]}`.
    Copilot,
    /// `{command, args, env}`, `{httpUrl, headers}` (streamable HTTP),
    /// `{url, headers}` (SSE), each with `alwaysLoadTools: true`.
    Qwen,
    /// `{command, args, env}`, `{httpUrl, headers}` (streamable HTTP),
    /// `{url, headers}` (SSE), each with `trust` when the run approves
    /// every tool call.
    Gemini,
    /// `{type: "local", command: [command, …args], environment, enabled}`,
    /// `{type: "remote", url, headers, enabled}` (streamable HTTP, then SSE).
    Opencode,
}

/// What only some CLIs need; [`CliExtras::NONE`] for the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CliExtras {
    /// The flag that names a file the CLI writes its token usage to when
    /// the run ends (Copilot's `--usage-output-file`: usage is not on
    /// stdout), placed after the approval flags.
    pub usage_file: Option<&'static str>,
    /// False when the CLI mangles an argument holding whitespace (opencode
    /// wraps it in literal quotes), so no argument may hold any.
    pub args_may_hold_spaces: bool,
    /// A session flag that resumes only an existing session, failing on an
    /// unknown id, when the usual one ([`SessionArg::Flag`]) creates a new
    /// session for it instead (Copilot: `--session-id` creates, `--resume`
    /// fails with "No session, task, or name matched"). `runAgent` uses it:
    /// SPEC §10 wants an unknown id to be `session_not_found`.
    pub resume_existing: Option<ResumeExisting>,
    /// Arguments that make the CLI read one JSON message a line on stdin and
    /// keep running between turns (Claude Code's `--input-format
    /// stream-json`): a session over the CLI then keeps one process.
    /// `None`: a process per turn, resumed with [`CliSpec::session`].
    pub stream_input: Option<&'static [&'static str]>,
    /// Folders under the home folder where the agent's own installer puts
    /// its executable, looked at after the usual ones (Claude Code's
    /// `.claude/local`, from `claude migrate-installer`); `/`-separated.
    pub install_dirs: &'static [&'static str],
    /// How the CLI holds its last answer to a JSON Schema (`outputSchema`
    /// on a run); `None`: the schema is stated in the prompt.
    pub output_schema: Option<OutputSchemaArg>,
    /// The flag the prompt goes in, `{flag}=<prompt>`, for a CLI that reads
    /// no prompt on stdin in its headless mode (Kimi Code's `--prompt`):
    /// a prompt that cannot be one argument is `INVALID_INPUT`, and the
    /// prompt shows in the process list. `None`: on stdin.
    pub prompt_flag: Option<&'static str>,
    /// Each flag's value is the argument after it (`--model m`), not
    /// attached (`--model=m`): pi reads `--model=m` as a flag of an
    /// extension and drops it.
    pub values_apart: bool,
    /// What the session it resumes (or its one process) keeps of a prompt
    /// whose turn failed.
    pub failed_prompt: FailedPrompt,
}

/// The CLI's own way to hold its answer to a JSON Schema
/// ([`CliExtras::output_schema`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputSchemaArg {
    /// `flag '<schema JSON>'`; the value comes back apart from the text
    /// (Claude Code's `--json-schema`, its `result` line's `structured_output`).
    Inline(&'static str),
    /// `flag <file>`, the schema written to a file of the run's folder; the
    /// answer's text is the JSON (Codex's `--output-schema`).
    File(&'static str),
}

/// How to resume only an existing session ([`CliExtras::resume_existing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResumeExisting {
    /// `--flag=id`.
    pub flag: &'static str,
    /// Arguments that keep the resumed session in the folder the CLI is
    /// started in (Copilot's `--resume` moves back to the session's first
    /// folder unless `-C .` says otherwise).
    pub here: &'static [&'static str],
}

impl CliExtras {
    pub const NONE: CliExtras = CliExtras {
        usage_file: None,
        args_may_hold_spaces: true,
        resume_existing: None,
        stream_input: None,
        install_dirs: &[],
        output_schema: None,
        failed_prompt: FailedPrompt::Dropped,
        prompt_flag: None,
        values_apart: false,
    };
}

/// Whether and how the CLI takes a system prompt apart from the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemPromptArg {
    /// No flag: the layout puts the instructions in the prompt.
    None,
    /// `{inline}=text`, or `{file}=path` when the text cannot be an argument.
    Append {
        inline: &'static str,
        file: &'static str,
    },
    /// `{inline}=text`; no file flag, so a text that cannot be an argument
    /// is `INVALID_INPUT` (Qwen Code's `--append-system-prompt`).
    AppendInline { inline: &'static str },
}

/// How a session is resumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionArg {
    /// `--flag=id`.
    Flag(&'static str),
    /// `word id`, after the options (Codex's `resume <id>`).
    Subcommand(&'static str),
}

/// How `sandbox` and `yolo` reach the CLI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalArg {
    /// One mode flag (SPEC §7's mapping): `read-only` → `read_only`; else
    /// `yolo` → `yolo`; else `edits`. Nothing when neither is given.
    Mode {
        flag: &'static str,
        read_only: &'static str,
        yolo: &'static str,
        edits: &'static str,
    },
    /// The sandbox's own name (`--sandbox=workspace-write`); the CLI never
    /// asks for approval, so `yolo` changes nothing.
    Sandbox { flag: &'static str },
    /// Whole arguments per case, same mapping as `Mode` (Copilot's
    /// `--allow-all-tools`, opencode's `--agent=plan`); nothing when neither
    /// `sandbox` nor `yolo` is given.
    Flags {
        read_only: &'static [&'static str],
        yolo: &'static [&'static str],
        edits: &'static [&'static str],
    },
    /// Its headless mode approves every tool call by itself and has no
    /// read-only mode (Kimi Code refuses `--plan` with `--prompt`): `yolo`
    /// and edits change nothing, `sandbox: 'read-only'` is `INVALID_INPUT`
    /// saying why.
    AllApproved(&'static str),
}
