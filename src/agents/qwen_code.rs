//! Qwen Code (`qwen`). Layout: Claude Code's (the instruction body goes to
//! `systemFlag`, for `--append-system-prompt`; the rest inline with
//! `[TEAM_TASK]`, `[CONTEXT]` and `[MESSAGE]`), under its own agent type.
//! Output: `-o stream-json` lines, Claude Code's kinds with Qwen's usage
//! (cumulative over the session in `result`) and API errors (an assistant
//! text `[API Error: …]`). No file flag for the system prompt.

use super::claude_code;
use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::error_kind::AgentErrorKind::*;
use crate::prompt::layout::Layout;

pub const QWEN: Layout = Layout {
    agent_type: "qwen-code",
    ..claude_code::CLAUDE
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "qwen-code",
    name: "Qwen Code",
    layout: &QWEN,
    assembler_class: None,
    cli: Some(CliSpec {
        command: "qwen",
        package: "@qwen-code/qwen-code",
        output: OutputFormat::QwenStreamJson,
        base_args: &["-o", "stream-json"],
        system_prompt: SystemPromptArg::AppendInline {
            inline: "--append-system-prompt",
        },
        model_flag: "--model",
        session: SessionArg::Flag("--resume"),
        approval: ApprovalArg::Mode {
            flag: "--approval-mode",
            read_only: "plan",
            yolo: "yolo",
            edits: "auto-edit",
        },
        trailing_args: &[],
        // Joins the servers of the user's settings for this run.
        mcp: CliMcp::JsonFlag {
            flag: "--mcp-config",
            shape: McpShape::Qwen,
            then: &[],
            env: &[],
        },
        attachments: Some(ATTACHMENTS),
        extras: CliExtras::NONE,
    }),
    acp: Some(AcpLaunch {
        command: "qwen",
        package: "@qwen-code/qwen-code",
        args: &["--acp"],
        model: AcpModel::Flag("--model"),
        ask_mode: Some("default"),
        // 0.24 starts the servers after answering `session/new` and does
        // not wait for them before the first prompt (seen: the first model
        // call offered none of their tools); this makes it start them
        // before it answers.
        mcp_env: &[("QWEN_CODE_LEGACY_MCP_BLOCKING", "1")],
        // The servers of `session/new` are hidden behind its `tool_search`
        // tool (ACP's `McpServer` cannot say `alwaysLoadTools`); those of
        // `--mcp-config` join every session's with `alwaysLoadTools`.
        mcp: AcpMcp::Launch,
        quirks: AcpQuirks {
            tool_name: AcpToolName::MetaToolName,
            ..AcpQuirks::NONE
        },
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "qwen",
    // Its SDK's and rate-limit retries; an outer loop of 7 attempts
    // (1.5 s, doubling to 30 s) has no setting, but its telemetry, written
    // to a file of the run's folder, records each of those retries with
    // the HTTP status: counted (`SIGNS.retry_lines`).
    signs: &SIGNS,
    own_retries: OwnRetries::SettingsFile {
        env: "QWEN_CODE_SYSTEM_SETTINGS_PATH",
        key: &["model", "generationConfig", "maxRetries"],
        plus: 0,
        log: Some(RetryLog {
            // Prompts stay out of the file (they are logged by default).
            keys: &[
                (&["telemetry", "enabled"], true),
                (&["telemetry", "logPrompts"], false),
            ],
            path: &["telemetry", "outfile"],
            file: "telemetry.json",
        }),
    },
    endpoint: EndpointSpec {
        families: &[FamilyUse {
            family: ApiFamily::OpenaiChat,
            env: &[],
        }],
        route: EndpointRoute::Env(EnvRoute {
            base_url: "OPENAI_BASE_URL",
            api_key: "OPENAI_API_KEY",
            model: Some("OPENAI_MODEL"),
            headers: HeaderRoute::Settings(&["model", "generationConfig", "customHeaders"]),
            fixed: &[],
            settings: Some(SettingsRoute {
                place: SettingsPlace::EnvPath("QWEN_CODE_SYSTEM_SETTINGS_PATH"),
                json: r#"{"security":{"auth":{"selectedType":"openai"}}}"#,
            }),
        }),
        model: EndpointModel::Option,
    },
    home: None,
    min_node: None,
    env_flags: &[],
    // Gemini CLI's relaunch, kept by its fork: ~1 s of CPU a start.
    start_env: &[("QWEN_CODE_NO_RELAUNCH", "true")],
};

/// How attachments reach it over its CLI (`docs/attachments.md`).
pub const ATTACHMENTS: CliAttachments = CliAttachments {
    // As Gemini CLI; Qwen Code sends the image re-encoded (`image_url`,
    // JPEG) after a line describing its size.
    image: CliImage::AtPath,
    at_path: true,
    include_dir_flag: Some("--include-directories"),
};

/// Qwen Code 0.24.4, seen through `runAgent` against the mock
/// (tests/cli/run_agent_openai_chat.test.cjs): an API error is the
/// assistant text and `result` `[API Error: 401 …]` (exit 1), after its own
/// retries for 429 and 5xx; an unknown `--resume` id prints `No saved
/// session found with ID …` (or `with title "…"` for an id that is no UUID)
/// on stderr and exits 1 before any API call; in its unattended mode
/// (`QWEN_CODE_UNATTENDED_RETRY`) it prints `Waiting for API capacity...`
/// on stderr while it retries; at `--max-session-turns` it
/// exits 53 without a `result` line (the parser's `incomplete`). Each retry
/// of its outer loop is a record of its telemetry (written, pretty-printed
/// JSON, to the run's file: `OwnRetries::SettingsFile`'s `log`) whose body
/// line is `"_body": "API retry attempt 2 for <model> (status 500).",` —
/// the quotes unescaped, so a prompt quoted in another record never
/// matches.
pub const SIGNS: Signs = Signs {
    status_prefixes: &["API Error: "],
    unknown_session: &["No saved session found"],
    // Its telemetry's retry record says `(status unknown)` when no HTTP
    // answer came (`connect ECONNREFUSED` in the record's `error`).
    markers: &[("(status unknown)", NetworkError)],
    retry_lines: &[
        "Waiting for API capacity",
        "\"_body\": \"API retry attempt ",
    ],
    retry_status: &["(status "],
    ..NO_SIGNS
};
