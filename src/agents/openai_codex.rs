//! Codex (`codex exec`). Layout (CodexContextAssembler): everything inline,
//! `[SYSTEM]` first, then `[TEAM_TASK]`, `[CONTEXT]` and `[MESSAGE]`; context
//! lines `- {from} -> {to}: {content}`. Output: `exec --json` lines.
//! `--skip-git-repo-check`: outside a git repository it refuses to start,
//! and the host chose the working directory.

use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::error_kind::AgentErrorKind::*;
use crate::prompt::layout::{InstructionPlacement, Layout};

pub const CODEX: Layout = Layout {
    agent_type: "openai-codex",
    instructions: InstructionPlacement::Inline {
        header: "[SYSTEM]\n",
    },
    // Claude Code's sections and lines.
    ..super::claude_code::CLAUDE
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "openai-codex",
    name: "Codex",
    layout: &CODEX,
    assembler_class: Some("CodexContextAssembler"),
    cli: Some(CliSpec {
        command: "codex",
        package: "@openai/codex",
        output: OutputFormat::CodexJson,
        base_args: &["exec", "--json", "--skip-git-repo-check"],
        system_prompt: SystemPromptArg::None,
        model_flag: "--model",
        session: SessionArg::Subcommand("resume"),
        approval: ApprovalArg::Sandbox { flag: "--sandbox" },
        trailing_args: &["-"],
        mcp: CliMcp::CodexOverrides,
        attachments: Some(ATTACHMENTS),
        // The schema goes to the API as the answer's format; the last
        // message's text is the JSON.
        extras: CliExtras {
            output_schema: Some(OutputSchemaArg::File("--output-schema")),
            // `exec resume` of a session whose turn failed finds its prompt
            // in the session.
            failed_prompt: FailedPrompt::Kept,
            ..CliExtras::NONE
        },
    }),
    acp: Some(AcpLaunch {
        command: "codex-acp",
        package: "@agentclientprotocol/codex-acp",
        model: AcpModel::CodexConfig,
        // 2.6.0 opens sessions in `agent` ("Auto review": it edits inside
        // the folder unasked); `read-only` asks before every edit and
        // command outside its read-only sandbox. Zed's 0.16.0 opens in
        // `read-only`.
        ask_mode: Some("read-only"),
        exits_on_eof: false,
        // 2.6.0 (its Codex 0.166) offers the servers' tools to a model it
        // knows only through its client-side `tool_search` tool (seen with
        // gpt-5.5: the request offers `tool_search`, and the tools come in
        // the search's output); a model it does not know gets them at once.
        // No setting turns the deferral off (`features.tool_search=false`
        // did not), and a model that searches finds them.
        mcp: AcpMcp::Session,
        quirks: AcpQuirks {
            // An MCP call: kind `execute`, title `mcp.notes.record_note`,
            // `rawInput` `{server, tool, arguments}`.
            tool_name: AcpToolName::McpTitle("mcp."),
            system_error_info: true,
            // The thread keeps a turn's prompt when its model call fails.
            failed_prompt: FailedPrompt::Kept,
            ..AcpQuirks::NONE
        },
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "codex",
    signs: &SIGNS,
    own_retries: OwnRetries::Unbounded(
        "request_max_retries and stream_max_retries belong to a model provider: the built-in `openai` one cannot be overridden (Codex refuses the configuration), and a custom provider's are the user's",
    ),
    // A custom model provider: Codex ignores OPENAI_BASE_URL.
    endpoint: EndpointSpec {
        families: &[FamilyUse {
            family: ApiFamily::OpenaiResponses,
            env: &[],
        }],
        route: EndpointRoute::CodexProvider {
            id: "agent_context",
            key_env: "AGENT_CONTEXT_ENDPOINT_KEY",
        },
        model: EndpointModel::Option,
    },
    home: None,
    min_node: None,
    env_flags: &[],
    start_env: &[],
};

/// How attachments reach it over its CLI (`docs/attachments.md`).
pub const ATTACHMENTS: CliAttachments = CliAttachments {
    // `--image=path`, once per image: sent as a data URL (`input_image`).
    image: CliImage::FileFlag("--image"),
    at_path: false,
    include_dir_flag: None,
};

/// Codex 0.169: `turn.failed` ends a failed turn, after `Reconnecting... N/5`
/// errors while it retries; an HTTP error reads
/// `unexpected status 401 Unauthorized: …`, but a 500 reads only "We're
/// currently experiencing high demand", a 429 "Quota exceeded", and a 400
/// is the API's JSON body alone; an
/// unknown `resume` id that is a UUID fails on stderr (`no rollout found
/// for thread id`, exit 1), while one that is no UUID silently starts a new
/// thread (caught by the session id check, not here).
pub const SIGNS: Signs = Signs {
    status_prefixes: &["unexpected status "],
    unknown_session: &["no rollout found", "thread/resume failed"],
    markers: &[
        ("experiencing high demand", UpstreamError),
        ("Quota exceeded", QuotaExceeded),
        ("--skip-git-repo-check was not specified", UntrustedFolder),
        ("Not inside a trusted directory", UntrustedFolder),
        ("context window", ContextTooLong),
        // A 400 is passed on as the API's JSON body, without the status.
        ("invalid_request_error", RequestRejected),
    ],
    // `{"type":"error","message":"Reconnecting... 2/5 (We're currently
    // experiencing high demand, …)"}` on stdout before each retry of a 5xx.
    retry_lines: &["Reconnecting... "],
    retry_status: &["unexpected status "],
    ..NO_SIGNS
};
