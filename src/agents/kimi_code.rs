//! Kimi Code (`kimi`, the npm package `@moonshot-ai/kimi-code`, the Kimi
//! CLI's successor). Layout: Codex's, everything inline (it has no system
//! prompt flag), under its own agent type. Output: `--output-format
//! stream-json` lines, one message each (`role`: `assistant`, `tool`,
//! `meta`). Over ACP: `kimi acp`. It needs Node.js 22.19 or newer.
//!
//! Its traps: in its headless mode it reads no prompt on stdin (`-p -` is
//! the prompt "-"), so the prompt goes in `--prompt=…`; that mode approves
//! every tool call by itself ("Auto permission mode") and refuses `--plan`; over ACP a failed
//! model call ends the turn `end_turn` with nothing sent and no error (the
//! cause is only in its session's log); `--model` names one of its
//! configuration's aliases, not a model; sessions belong to the folder
//! they were made in.

use super::openai_codex;
use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::error_kind::AgentErrorKind::*;
use crate::prompt::layout::Layout;

pub const KIMI_CODE: Layout = Layout {
    agent_type: "kimi-code",
    ..openai_codex::CODEX
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "kimi-code",
    name: "Kimi Code",
    layout: &KIMI_CODE,
    assembler_class: None,
    cli: Some(CliSpec {
        command: "kimi",
        package: "@moonshot-ai/kimi-code",
        output: OutputFormat::KimiStreamJson,
        base_args: &["--output-format", "stream-json"],
        system_prompt: SystemPromptArg::None,
        // An alias of its `config.toml` (`default_model` when none); an
        // endpoint's model goes in `KIMI_MODEL_NAME` instead.
        model_flag: "--model",
        // Its id (`session_<uuid>`), made in the same folder: an unknown
        // one is `Session "…" not found.`, one of another folder `… was
        // created under a different directory.` (exit 1, no API call).
        session: SessionArg::Flag("--session"),
        // Its headless mode approves every call ("Auto permission mode").
        approval: ApprovalArg::AllApproved(
            "its headless mode approves every tool call itself and refuses `--plan` with `--prompt`; over ACP (protocol 'acp') it asks before edits and commands",
        ),
        trailing_args: &[],
        mcp: CliMcp::Unsupported(
            "Kimi Code reads MCP servers only from its own configuration folder (its `/mcp-config`): give them over ACP, where session/new carries them",
        ),
        attachments: Some(ATTACHMENTS),
        extras: CliExtras {
            prompt_flag: Some("--prompt"),
            ..CliExtras::NONE
        },
    }),
    acp: Some(AcpLaunch {
        command: "kimi",
        package: "@moonshot-ai/kimi-code",
        args: &["acp"],
        // The endpoint's (`KIMI_MODEL_NAME`), else its configuration's.
        model: AcpModel::Config,
        // Its default mode, `default`, asks before edits and commands.
        ask_mode: None,
        // It advertises `mcpCapabilities { http, sse }`.
        mcp: AcpMcp::Session,
        quirks: AcpQuirks {
            silent_failures: true,
            ..AcpQuirks::NONE
        },
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "kimi",
    signs: &SIGNS,
    // Attempts per step, the first included (10 by default, 0.5 s doubling
    // to ~40 s between them), over its CLI and over ACP.
    own_retries: OwnRetries::Env {
        name: "KIMI_LOOP_MAX_ATTEMPTS_PER_STEP",
        plus: 1,
    },
    // Its model from the environment (`KIMI_MODEL_*`), which wins over its
    // `config.toml` for the process: `openai` is its OpenAI-compatible
    // chat completions client, `anthropic` the Messages API.
    endpoint: EndpointSpec {
        families: &[
            FamilyUse {
                family: ApiFamily::OpenaiChat,
                env: &[("KIMI_MODEL_PROVIDER_TYPE", "openai")],
            },
            FamilyUse {
                family: ApiFamily::AnthropicMessages,
                env: &[("KIMI_MODEL_PROVIDER_TYPE", "anthropic")],
            },
        ],
        route: EndpointRoute::Env(EnvRoute {
            base_url: "KIMI_MODEL_BASE_URL",
            api_key: "KIMI_MODEL_API_KEY",
            model: Some("KIMI_MODEL_NAME"),
            headers: HeaderRoute::EnvLines("KIMI_CODE_CUSTOM_HEADERS"),
            fixed: &[],
            settings: None,
        }),
        model: EndpointModel::Config,
    },
    home: None,
    min_node: Some(NodeVersion {
        major: 22,
        minor: 19,
    }),
    env_flags: &[],
    start_env: &[],
};

/// How attachments reach it over its CLI (`docs/attachments.md`): its
/// headless prompt is text; over ACP it takes image blocks.
pub const ATTACHMENTS: CliAttachments = CliAttachments {
    image: CliImage::Refused(
        "its headless prompt is text only; over ACP (protocol 'acp') it takes image blocks",
    ),
    at_path: false,
    include_dir_flag: None,
};

/// Kimi Code 2.1.0 against the mock: a failed run exits 1 with `error:
/// failed to run prompt: provider.api_error: 400 <the API's message>` on
/// stderr (`provider.rate_limit: 429 …`, `provider.connection_error:
/// Connection error.`); before each retry it prints a `meta` line
/// `turn.step.retrying` with `status_code` (none for a connection error).
pub const SIGNS: Signs = Signs {
    status_prefixes: &["provider.api_error: ", "provider.rate_limit: "],
    unknown_session: &["\" not found.", "was created under a different directory"],
    markers: &[("provider.connection_error", NetworkError)],
    retry_lines: &["\"type\":\"turn.step.retrying\""],
    // The line after its error names its log file: not why it failed.
    chatter: &["See log: "],
    ..NO_SIGNS
};
