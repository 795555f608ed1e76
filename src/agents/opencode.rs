//! opencode (`opencode run`). Layout: Codex's, everything inline (no
//! system-prompt flag), under its own agent type. Output: `--format json`
//! lines (`step_start`, `text`, `tool_use`, `step_finish`, `error`), with no
//! final line: a run ends with `step_finish` reason `stop`. Its traps: it
//! always waits for stdin (the prompt goes there, closed), and an argument
//! holding whitespace reaches the model wrapped in literal quotes, so no
//! argument may hold any.

use super::openai_codex;
use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::error_kind::AgentErrorKind::*;
use crate::prompt::layout::Layout;

pub const OPENCODE: Layout = Layout {
    agent_type: "opencode",
    ..openai_codex::CODEX
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "opencode",
    name: "opencode",
    layout: &OPENCODE,
    assembler_class: None,
    cli: Some(CliSpec {
        command: "opencode",
        package: "opencode-ai",
        output: OutputFormat::OpencodeJson,
        // Its error log on stderr: a line per failed model call, which the
        // run counts (`SIGNS.retry_lines`); it prints nothing else per retry.
        base_args: &["run", "--format", "json", "--print-logs", "--log-level", "ERROR"],
        system_prompt: SystemPromptArg::None,
        // `provider/model`.
        model_flag: "--model",
        session: SessionArg::Flag("--session"),
        // Edits and `bash` are allowed by default; `plan` is its read-only
        // agent; `--auto` approves the rest.
        approval: ApprovalArg::Flags {
            read_only: &["--agent=plan"],
            yolo: &["--auto"],
            edits: &[],
        },
        trailing_args: &[],
        // Merged over its other configuration (the user's files included).
        mcp: CliMcp::EnvJson {
            env: "OPENCODE_CONFIG_CONTENT",
            key: "mcp",
            shape: McpShape::Opencode,
        },
        attachments: Some(ATTACHMENTS),
        extras: CliExtras {
            usage_file: None,
            args_may_hold_spaces: false,
            resume_existing: None,
            stream_input: None,
            install_dirs: &[],
            ..CliExtras::NONE
        },
    }),
    acp: Some(AcpLaunch {
        command: "opencode",
        package: "opencode-ai",
        args: &["acp", "--print-logs", "--log-level", "ERROR"],
        ask_env: Some((
            "OPENCODE_PERMISSION",
            r#"{"edit":"ask","bash":"ask","external_directory":"ask","webfetch":"ask"}"#,
        )),
        quirks: AcpQuirks {
            input_excludes_cached: true,
            ..AcpQuirks::NONE
        },
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "opencode",
    signs: &SIGNS,
    own_retries: OwnRetries::Counted(
        "its session retries 5 times (2 s, doubling to 30 s, or the server's retry-after) with no setting; its error log (`--print-logs --log-level ERROR`) has a `stream error` line per failed call",
    ),
    // A provider of its own configuration, made by the AI SDK package of
    // the family (each built into opencode), with the base URL that
    // package takes.
    endpoint: EndpointSpec {
        families: &[
            FamilyUse {
                family: ApiFamily::OpenaiChat,
                env: &[],
            },
            FamilyUse {
                family: ApiFamily::OpenaiResponses,
                env: &[],
            },
            FamilyUse {
                family: ApiFamily::AnthropicMessages,
                env: &[],
            },
            FamilyUse {
                family: ApiFamily::Gemini,
                env: &[],
            },
        ],
        route: EndpointRoute::JsonProvider {
            id: "agent-context",
            env: "OPENCODE_CONFIG_CONTENT",
            packages: &[
                (ApiFamily::OpenaiChat, "@ai-sdk/openai-compatible", ""),
                (ApiFamily::OpenaiResponses, "@ai-sdk/openai", ""),
                (ApiFamily::AnthropicMessages, "@ai-sdk/anthropic", "/v1"),
                (ApiFamily::Gemini, "@ai-sdk/google", "/v1beta"),
            ],
            fixed: &[],
        },
        model: EndpointModel::Config,
    },
    home: None,
    min_node: None,
    env_flags: &[],
    start_env: &[],
};

/// How attachments reach it over its CLI (`docs/attachments.md`).
pub const ATTACHMENTS: CliAttachments = CliAttachments {
    // `--file=path`, once per file: sent as an image part when the model
    // is declared to take images (`modalities.input`), else replaced by an
    // error text.
    image: CliImage::FileFlag("--file"),
    at_path: false,
    include_dir_flag: None,
};

/// opencode 1.18.33, seen through `runAgent` against the mock: a failed run
/// prints an `error` line (`error.name` `APIError`, `data.statusCode` kept
/// by the parser as the code `http_NNN`) and exits 1; 429 and 5xx are
/// retried for 1–2 minutes first. An unknown `--session` id (any form)
/// prints `Error: Session not found` on stderr and exits 1 after ~20 s,
/// before any API call. A run that ends without `step_finish` reason `stop`
/// is the parser's `incomplete`. `ProviderAuthError` and
/// `ContextOverflowError` are error names in its binary, not seen offline.
pub const SIGNS: Signs = Signs {
    error_codes: &[
        ("ProviderAuthError", AuthError),
        ("ContextOverflowError", ContextTooLong),
    ],
    unknown_session: &["Session not found"],
    // Over ACP a failed call is a JSON-RPC `Internal error: <the API's
    // message>` with no status: a 5xx body's usual wording, as opencode's
    // own retry rule reads it.
    markers: &[
        ("server error", UpstreamError),
        ("service unavailable", UpstreamError),
        ("overloaded", UpstreamError),
    ],
    // Each failed model call in its error log on stderr:
    // `level=ERROR … message="stream error" … small=false agent=build …
    // error.error="AI_APICallError: <the API's message>"`, the first try's
    // too, and its title call's (`small=true`, after that call's own
    // retries); no status: the message's words say what failed.
    retry_lines: &["message=\"stream error\""],
    not_retries: &["small=true"],
    first_failure_counted: true,
    // Its model catalogue, fetched from its own host at start, fails
    // offline: nothing to do with the endpoint.
    chatter: &["Failed to fetch models.dev"],
    // Over ACP a failed call's JSON-RPC error names the error's class
    // (`data.errorName`): `APIError` is the API's answer.
    api_error_codes: &["APIError"],
    ..NO_SIGNS
};
