//! How an agent file says its agent is started and driven over the Agent
//! Client Protocol: [`AcpLaunch`] and what it does differently there
//! ([`AcpQuirks`]). Part of the agent's table ([`super::AgentSpec`]).

use super::failed_prompt::FailedPrompt;

/// How an agent is started for the Agent Client Protocol (SPEC §12):
/// `command args…` speaking JSON-RPC on its stdio, and what it does and
/// does not do there (each seen on a real run, `docs/acp.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcpLaunch {
    /// The executable (`gemini`, or an adapter such as `claude-agent-acp`).
    pub command: &'static str,
    /// The npm package that installs it.
    pub package: &'static str,
    /// Always, first (`--acp`, `acp`).
    pub args: &'static [&'static str],
    pub model: AcpModel,
    /// True when `session/new` takes the system prompt as
    /// `_meta.systemPrompt: { append }` (Claude's adapter); else the
    /// instructions open the prompt (inline layout).
    pub system_prompt_meta: bool,
    /// Why `session/load` must not be tried even when advertised (Gemini
    /// CLI 0.61 erases the history it was asked to load), or `None`.
    pub load_broken: Option<&'static str>,
    /// True when a file the agent reads through the client's `fs` and that
    /// does not exist must be answered with empty content (Gemini CLI
    /// creates files that way); else `resourceNotFound` (-32002).
    pub missing_file_is_empty: bool,
    /// The session mode in which it asks the client before every edit and
    /// command, set with `session/set_mode` when its default mode approves
    /// some by itself (Qwen Code's `auto` asks a classifier model): the
    /// policy of `sandbox`/`yolo` then answers. `None`: its default asks.
    pub ask_mode: Option<&'static str>,
    /// An environment variable that makes it ask the client before edits
    /// and commands it would otherwise run unasked (opencode's
    /// `OPENCODE_PERMISSION`), set unless the caller's environment has it.
    pub ask_env: Option<(&'static str, &'static str)>,
    /// Variables it is always started with, unless the caller's environment
    /// has them (Cline's `CLINE_SESSION_BACKEND_MODE=local`: no background
    /// daemon that would outlive the run).
    pub env: &'static [(&'static str, &'static str)],
    /// Whether, beside an image, embedded resources and file links must go
    /// as text: the agent drops a prompt's images when they come with those.
    pub context_as_text_with_images: bool,
    /// False when it keeps running after its stdin closes (Claude's and
    /// Codex's adapters): it is killed at the end of the run.
    pub exits_on_eof: bool,
    /// Variables set when the session is given MCP servers, unless the
    /// caller's environment has them.
    pub mcp_env: &'static [(&'static str, &'static str)],
    /// Where the run's MCP servers go: `session/new` or the command line
    /// the agent is started with.
    pub mcp: AcpMcp,
    /// How what it sends differs in a way the reply cares about.
    pub quirks: AcpQuirks,
}

impl AcpLaunch {
    /// What an agent's launch is when its table says nothing else: started
    /// with no fixed arguments, its model from its own settings, the
    /// instructions opening the prompt, loads trusted where advertised, a
    /// missing file `resourceNotFound`, its own default mode and
    /// environment, images beside other context, exiting when its stdin
    /// ends, MCP servers in `session/new`, no quirks. `command` and
    /// `package` are always the agent's own.
    pub const DEFAULT: AcpLaunch = AcpLaunch {
        command: "",
        package: "",
        args: &[],
        model: AcpModel::Config,
        system_prompt_meta: false,
        load_broken: None,
        missing_file_is_empty: false,
        ask_mode: None,
        ask_env: None,
        env: &[],
        context_as_text_with_images: false,
        exits_on_eof: true,
        mcp_env: &[],
        mcp: AcpMcp::Session,
        quirks: AcpQuirks::NONE,
    };
}

/// Where an agent started for ACP gets the run's MCP servers
/// (`docs/mcp-servers.md`), each seen on a real run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcpMcp {
    /// In `session/new`, `session/load` and `session/resume` (ACP's
    /// `McpServer`).
    Session,
    /// On its command line, as its CLI takes them ([`CliSpec::mcp`](super::CliSpec::mcp), a
    /// [`CliMcp::JsonFlag`](super::CliMcp::JsonFlag)): what `session/new` carries does not reach
    /// its model (the reason is the agent's file's). `session/new` then
    /// carries none (the agent would start each server twice), and the
    /// servers are the process's: a session on it cannot have others.
    Launch,
    /// It takes none over ACP (it would accept them in `session/new` and
    /// never start them); why: a run given some is `INVALID_INPUT`.
    Unsupported(&'static str),
}

/// How an agent's ACP updates differ from the plain protocol in a way the
/// reply reader ([`crate::agent_output`]) cares about, each seen on a real
/// run (`docs/acp.md`). [`AcpQuirks::NONE`]: it follows ACP plainly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcpQuirks {
    /// Where a tool call names the agent's own tool; else the ACP `kind`
    /// (or the title) names it.
    pub tool_name: AcpToolName,
    /// Message chunks with `_meta.claudeCode.kind: "informational"` are the
    /// agent's notices, not the answer (Claude's adapter).
    pub informational_notices: bool,
    /// `session_info_update` with `_meta.codex.threadStatus.type:
    /// systemError` says the turn broke, and the text until the turn ends is
    /// the error's (Codex's adapter).
    pub system_error_info: bool,
    /// A failed model call comes as the turn's text starting with this
    /// prefix and an HTTP status (`Error: 400 …`), the turn ending
    /// `end_turn`: an error, not the reply (Copilot).
    pub error_text_prefix: Option<&'static str>,
    /// Words that, after `error_text_prefix`, make such a text an error
    /// though it names no status (Copilot's `Error: Could not connect to
    /// local model provider at …` when nothing listens).
    pub error_text_words: &'static [&'static str],
    /// `usage.inputTokens` leaves the cached tokens out; the reply's input
    /// count adds them back (opencode).
    pub input_excludes_cached: bool,
    /// Tool calls carry no `rawInput`; the text of a call's content on
    /// its first sight, when it is a JSON object, is its input (Gemini CLI:
    /// an MCP server's tool shows its arguments so).
    pub input_in_first_content: bool,
    /// What its session keeps of a prompt whose turn failed.
    pub failed_prompt: FailedPrompt,
    /// A failed model call ends the turn `end_turn` having sent nothing,
    /// with no error (Kimi Code, pi's adapter): a turn that ends so,
    /// without a word, a thought or a tool call, failed.
    pub silent_failures: bool,
    /// Message chunks starting with one of these are the agent's notices,
    /// not the reply (pi's adapter: `Retrying (attempt 1/3, waiting
    /// 2s)...`, `Retry finished, resuming.`).
    pub notice_texts: &'static [&'static str],
}

impl AcpQuirks {
    pub const NONE: AcpQuirks = AcpQuirks {
        tool_name: AcpToolName::Kind,
        informational_notices: false,
        system_error_info: false,
        error_text_prefix: None,
        error_text_words: &[],
        input_excludes_cached: false,
        input_in_first_content: false,
        failed_prompt: FailedPrompt::Dropped,
        silent_failures: false,
        notice_texts: &[],
    };
}

/// Where a tool call's update names the agent's own tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcpToolName {
    /// Nowhere: the ACP `kind` (`read`, `execute`, …) or the title.
    Kind,
    /// `_meta.claudeCode.toolName` (Claude's adapter).
    ClaudeCodeMeta,
    /// `_meta.toolName` (Qwen Code).
    MetaToolName,
    /// The call id's part before this separator, on the first sight
    /// (Gemini CLI's ids are `<tool>__<tool>_<time>_<n>`).
    IdPrefix(&'static str),
    /// The ACP `kind`, but an MCP server's tool (a `rawInput` of
    /// `{ server, tool, arguments }`) by its title, which starts with this
    /// prefix (Codex's adapter: `mcp.<server>.<tool>`).
    McpTitle(&'static str),
}

/// How the model reaches an agent started for ACP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AcpModel {
    /// `flag value` on the command line (`-m`, `--model`).
    Flag(&'static str),
    /// `-c model="value"` (Codex's config override, Zed's codex-acp) and
    /// `CODEX_CONFIG={"model":"value"}` (`@agentclientprotocol/codex-acp`,
    /// which ignores its arguments).
    CodexConfig,
    /// An environment variable of the child (`ANTHROPIC_MODEL`).
    Env(&'static str),
    /// Not settable at launch: the agent's own configuration decides.
    Config,
}
