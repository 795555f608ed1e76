//! GitHub Copilot CLI (`copilot`). Layout: Codex's, everything inline (no
//! system-prompt flag), under its own agent type. Output: `--output-format
//! json` lines with dotted types. Its traps: the prompt goes on stdin and
//! `-p` is never given (with `-p`, stdin is dropped silently); the session
//! id is only on the last line; token usage is only in the file named by
//! `--usage-output-file` (the invocation's `outputs`, merged into the reply
//! with `mergeAgentOutputFile`). `--no-ask-user`: nobody is there to answer.

use super::openai_codex;
use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::error_kind::AgentErrorKind::*;
use crate::prompt::layout::Layout;

pub const COPILOT: Layout = Layout {
    agent_type: "github-copilot",
    ..openai_codex::CODEX
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "github-copilot",
    name: "GitHub Copilot CLI",
    layout: &COPILOT,
    assembler_class: None,
    cli: Some(CliSpec {
        command: "copilot",
        package: "@github/copilot",
        output: OutputFormat::CopilotJson,
        base_args: &["--output-format", "json", "--no-ask-user"],
        system_prompt: SystemPromptArg::None,
        model_flag: "--model",
        // Creates the session when it does not exist yet, resumes it else;
        // `--resume` (runAgent's) fails on an unknown id.
        session: SessionArg::Flag("--session-id"),
        approval: ApprovalArg::Flags {
            read_only: &["--mode=plan"],
            yolo: &["--allow-all-tools"],
            edits: &["--allow-tool=write"],
        },
        trailing_args: &[],
        // Added to the user's ~/.copilot/mcp-config.json for this run.
        mcp: CliMcp::JsonFlag {
            flag: "--additional-mcp-config",
            shape: McpShape::Copilot,
            then: &[],
            env: &[],
        },
        attachments: Some(ATTACHMENTS),
        extras: CliExtras {
            usage_file: Some("--usage-output-file"),
            args_may_hold_spaces: true,
            // `--resume` works in the session's first folder, not the one
            // it is started in, unless `-C .` is given.
            resume_existing: Some(ResumeExisting {
                flag: "--resume",
                here: &["-C", "."],
            }),
            stream_input: None,
            install_dirs: &[],
            ..CliExtras::NONE
        },
    }),
    acp: Some(AcpLaunch {
        command: "copilot",
        package: "@github/copilot",
        args: &["--acp"],
        model: AcpModel::Flag("--model"),
        // 1.0.102 offers the model no tool of a server given in
        // `session/new` (seen: none even 8 s after it opened), and the
        // tools of `--additional-mcp-config` at once.
        mcp: AcpMcp::Launch,
        quirks: AcpQuirks {
            error_text_prefix: Some("Error: "),
            // 1.0.102 when nothing listens on the endpoint's port, after
            // its own retries.
            error_text_words: &["Could not connect to"],
            ..AcpQuirks::NONE
        },
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "copilot",
    signs: &SIGNS,
    own_retries: OwnRetries::Counted(
        "no setting or environment variable for its retries of a model call (5 retries over about 15 s, 60 s for a 429); over its CLI each failed call is a `model.call_failure` line",
    ),
    // Its "bring your own key" mode: no GitHub sign-in needed.
    endpoint: EndpointSpec {
        families: &[
            FamilyUse {
                family: ApiFamily::OpenaiChat,
                env: &[
                    ("COPILOT_PROVIDER_TYPE", "openai"),
                    ("COPILOT_PROVIDER_WIRE_API", "completions"),
                ],
            },
            FamilyUse {
                family: ApiFamily::OpenaiResponses,
                env: &[
                    ("COPILOT_PROVIDER_TYPE", "openai"),
                    ("COPILOT_PROVIDER_WIRE_API", "responses"),
                ],
            },
            FamilyUse {
                family: ApiFamily::AnthropicMessages,
                env: &[("COPILOT_PROVIDER_TYPE", "anthropic")],
            },
        ],
        route: EndpointRoute::Env(EnvRoute {
            base_url: "COPILOT_PROVIDER_BASE_URL",
            api_key: "COPILOT_PROVIDER_API_KEY",
            model: Some("COPILOT_MODEL"),
            headers: HeaderRoute::EnvLines("COPILOT_PROVIDER_HEADERS"),
            fixed: &[],
            settings: None,
        }),
        model: EndpointModel::Required,
    },
    home: None,
    min_node: None,
    env_flags: &[],
    start_env: &[],
};

/// How attachments reach it over its CLI (`docs/attachments.md`).
pub const ATTACHMENTS: CliAttachments = CliAttachments {
    // `--attachment=path` ("image or native document"), once per file; an
    // `@path` in a headless prompt stays text.
    image: CliImage::FileFlag("--attachment"),
    at_path: false,
    include_dir_flag: None,
};

/// GitHub Copilot CLI 1.0.102, seen through `runAgent` against the mock: a
/// failed run ends with `session.error` (exit 1) whose `statusCode` the
/// parser keeps as the code `http_401`, `http_429`, … (read as the status
/// for every agent, see [`super::classify`]); its `errorType` (the code when
/// there is no status) says `authentication`, `rate_limit`, `query`. It
/// retries 401 twice ("transient_auth_error") and 429 and 5xx five times
/// (a 429 took 66 s) before giving up. `--resume=<id>` (runAgent's, see
/// `CliExtras::resume_existing`) of an unknown id prints `Error: No session,
/// task, or name matched '<id>'.` on stderr, exit 1, before any API call;
/// `--session-id` would have created that session.
pub const SIGNS: Signs = Signs {
    error_codes: &[("authentication", AuthError), ("rate_limit", QuotaExceeded)],
    status_prefixes: &["Last error: ", "(HTTP "],
    unknown_session: &["No session, task, or name matched"],
    markers: &[("Authentication failed with provider", AuthError)],
    // Over its CLI each failed model call is a `model.call_failure` line
    // with the API's `statusCode` (or, when nothing answered, an
    // `errorMessage` naming the connection failure) and its
    // `retryAttempt`, 0 for the first try.
    retry_lines: &["\"type\":\"model.call_failure\""],
    retry_status: &["\"statusCode\":"],
    not_retries: &["\"retryAttempt\":0,"],
    ..NO_SIGNS
};
