//! Claude Code (`claude`). Layout (ClaudeContextAssembler): the instruction
//! body goes to `systemFlag` (for `--append-system-prompt`), the rest inline
//! with `[TEAM_TASK]`, `[CONTEXT]` and `[MESSAGE]`; context lines
//! `- {from} -> {to}: {content}`. Output: `stream-json` lines.

use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::error_kind::AgentErrorKind::*;
use crate::prompt::layout::{InstructionPlacement, Layout};

pub const CLAUDE: Layout = Layout {
    agent_type: "claude-code",
    instructions: InstructionPlacement::SystemFlag,
    team_header: "[TEAM_TASK]\n",
    context_header: "[CONTEXT]\n",
    line_prefix: "- ",
    line_shows_recipient: true,
    message_header: "[MESSAGE]\n",
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "claude-code",
    name: "Claude Code",
    layout: &CLAUDE,
    assembler_class: Some("ClaudeContextAssembler"),
    cli: Some(CliSpec {
        command: "claude",
        package: "@anthropic-ai/claude-code",
        output: OutputFormat::ClaudeStreamJson,
        base_args: &["-p", "--output-format", "stream-json", "--verbose"],
        system_prompt: SystemPromptArg::Append {
            inline: "--append-system-prompt",
            file: "--append-system-prompt-file",
        },
        model_flag: "--model",
        session: SessionArg::Flag("--resume"),
        approval: ApprovalArg::Mode {
            flag: "--permission-mode",
            read_only: "plan",
            yolo: "bypassPermissions",
            edits: "acceptEdits",
        },
        trailing_args: &[],
        mcp: CliMcp::JsonFlag {
            flag: "--mcp-config",
            shape: McpShape::Claude,
            // Only the run's servers, not the user's or the project's.
            then: &["--strict-mcp-config"],
            // 2.1.33x shows MCP tools to the model only through its
            // ToolSearch tool unless this is off.
            env: &[("ENABLE_TOOL_SEARCH", "false")],
        },
        attachments: Some(ATTACHMENTS),
        extras: CliExtras {
            // One `{"type":"user",…}` line per turn, a `result` line at its
            // end; `control_request` `interrupt` ends the running turn.
            stream_input: Some(&["--input-format", "stream-json"]),
            // Its "local" install (`claude migrate-installer`).
            install_dirs: &[".claude/local"],
            // The model answers through a tool Claude Code checks against
            // the schema (retrying itself); `result.structured_output`.
            output_schema: Some(OutputSchemaArg::Inline("--json-schema")),
            // The process keeps a turn's prompt when its model call fails.
            failed_prompt: FailedPrompt::Kept,
            ..CliExtras::NONE
        },
    }),
    acp: Some(AcpLaunch {
        command: "claude-agent-acp",
        package: "@agentclientprotocol/claude-agent-acp",
        model: AcpModel::Env("ANTHROPIC_MODEL"),
        system_prompt_meta: true,
        // 0.101.0 opens sessions in `auto` (Claude decides, and edits
        // without asking); `default` ("Manual") asks before edits and
        // commands. Zed's 0.23.1 opens in `default`.
        ask_mode: Some("default"),
        exits_on_eof: false,
        // The adapter's Claude Code hides MCP tools behind its ToolSearch
        // tool too.
        mcp_env: &[("ENABLE_TOOL_SEARCH", "false")],
        // `_meta.claudeCode` names its tools and marks its notices.
        quirks: AcpQuirks {
            tool_name: AcpToolName::ClaudeCodeMeta,
            informational_notices: true,
            // The session keeps a turn's prompt when its model call fails.
            failed_prompt: FailedPrompt::Kept,
            ..AcpQuirks::NONE
        },
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "claude",
    signs: &SIGNS,
    own_retries: OwnRetries::Env {
        name: "CLAUDE_CODE_MAX_RETRIES",
        plus: 0,
    },
    endpoint: EndpointSpec {
        families: &[FamilyUse {
            family: ApiFamily::AnthropicMessages,
            env: &[],
        }],
        route: EndpointRoute::Env(EnvRoute {
            base_url: "ANTHROPIC_BASE_URL",
            api_key: "ANTHROPIC_API_KEY",
            model: None,
            headers: HeaderRoute::EnvLines("ANTHROPIC_CUSTOM_HEADERS"),
            fixed: &[],
            settings: None,
        }),
        model: EndpointModel::Option,
    },
    home: None,
    min_node: None,
    // Its ACP adapter offers the bypass mode, and asks Claude Code to allow
    // it, when IS_SANDBOX holds any value; Claude Code as root then starts
    // only with `1`, and reads `1`, `true`, `yes` and `on` as set elsewhere.
    env_flags: &[EnvFlag {
        name: "IS_SANDBOX",
        on: "1",
        on_words: &["1", "true", "yes", "on"],
        off: "",
    }],
    start_env: &[],
};

/// How attachments reach it over its CLI (`docs/attachments.md`).
pub const ATTACHMENTS: CliAttachments = CliAttachments {
    // Base64 image blocks in the user message; seen reaching the model.
    image: CliImage::StreamJson(&["--input-format", "stream-json"]),
    at_path: false,
    include_dir_flag: None,
};

/// Claude Code 2.1: the final `result` says `is_error`, the assistant
/// message before it names the cause (`api_error_type`:
/// `authentication_error`, `rate_limit_error`, `api_error`, …), its text is
/// `API Error: 500 …`; an
/// unknown `--resume` id prints `No conversation found with session ID: …`
/// on stderr and a failed `result` (exit 1); an id that is no UUID is
/// refused on stderr.
pub const SIGNS: Signs = Signs {
    error_codes: &[
        ("authentication_error", AuthError),
        ("authentication_failed", AuthError),
        ("permission_error", AuthError),
        ("billing_error", QuotaExceeded),
        ("rate_limit_error", QuotaExceeded),
        ("rate_limit", QuotaExceeded),
        ("request_too_large", ContextTooLong),
        ("api_error", UpstreamError),
        ("overloaded_error", UpstreamError),
        ("server_error", UpstreamError),
    ],
    status_prefixes: &["API Error: ", "Request rejected ("],
    unknown_session: &[
        "No conversation found with session ID",
        "--resume requires a valid session ID",
    ],
    markers: &[
        ("Invalid API key", AuthError),
        ("Please run /login", AuthError),
        ("Credit balance is too low", QuotaExceeded),
        ("Prompt is too long", ContextTooLong),
    ],
    // 2.1 as root refuses bypassPermissions (`yolo`, sandbox
    // `danger-full-access`) unless IS_SANDBOX is set, and exits 1.
    hints: &[(
        "cannot be used with root/sudo privileges",
        "as root Claude Code skips permissions only with IS_SANDBOX=1 in its environment: run it as another user, or set IS_SANDBOX=1 in options.env where the machine is a sandbox, or leave options.yolo and sandbox 'danger-full-access' out",
    )],
    ..NO_SIGNS
};
