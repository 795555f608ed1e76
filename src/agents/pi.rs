//! pi (`pi`, the npm package `@mariozechner/pi-coding-agent`). Layout:
//! Claude Code's (the instruction body goes to `systemFlag`, for
//! `--append-system-prompt`; the rest inline), under its own agent type.
//! Output: `--mode json` lines, its session's events. Over ACP through the
//! adapter `pi-acp`, which runs `pi --mode rpc` found on `PATH`.
//!
//! Its traps: its parser takes a flag's value only as the next argument
//! (`--model=m` is read as an unknown flag and dropped); a failed run exits
//! 0 (the failure is the last message's `stopReason: "error"`); it has no
//! permission prompts and no MCP; a model endpoint is a provider in its
//! `models.json`, whose key and header values it runs as a shell command
//! when they start with `!`.

use super::claude_code;
use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::prompt::layout::Layout;

pub const PI: Layout = Layout {
    agent_type: "pi",
    ..claude_code::CLAUDE
};

const NO_MCP: &str = "pi takes no MCP servers (it has no MCP client, and its ACP adapter accepts them in session/new without starting them)";

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "pi",
    name: "pi",
    layout: &PI,
    assembler_class: None,
    cli: Some(CliSpec {
        command: "pi",
        package: "@mariozechner/pi-coding-agent",
        output: OutputFormat::PiJson,
        // `-p` first: it takes the next argument as the prompt unless that
        // starts with `-` or `@`. The prompt is read from stdin.
        base_args: &["-p", "--mode", "json"],
        // Appended to its own system prompt. A value that names an existing
        // file is read from that file (relative to the working folder).
        system_prompt: SystemPromptArg::Append {
            inline: "--append-system-prompt",
            file: "--append-system-prompt",
        },
        // `provider/id`, or an id its settings' provider has.
        model_flag: "--model",
        // A session id or a prefix of one; an unknown one fails (`No
        // session found matching '…'`, exit 1) before any API call.
        session: SessionArg::Flag("--session"),
        // It never asks: its tools run. Read-only is its read tools alone.
        approval: ApprovalArg::Flags {
            read_only: &["--tools", "read,grep,find,ls"],
            yolo: &[],
            edits: &[],
        },
        trailing_args: &[],
        mcp: CliMcp::Unsupported(NO_MCP),
        attachments: Some(ATTACHMENTS),
        extras: CliExtras {
            values_apart: true,
            ..CliExtras::NONE
        },
    }),
    acp: Some(AcpLaunch {
        command: "pi-acp",
        package: "pi-acp",
        // Its settings' `defaultProvider` and `defaultModel` (the
        // endpoint's); the adapter takes no model at launch.
        model: AcpModel::Config,
        // pi reads and runs tools itself, never through the client, and
        // asks nothing.
        missing_file_is_empty: false,
        ask_mode: None,
        mcp: AcpMcp::Unsupported(NO_MCP),
        quirks: AcpQuirks {
            // 0.0.24 (and 0.0.34) drop a failed model call's error: the
            // turn ends `end_turn` without a word.
            silent_failures: true,
            // Its notices, sent as the reply's text.
            notice_texts: &[
                "Retrying (attempt ",
                "Retrying...",
                "Retry finished, resuming.",
                "Context nearing limit, running automatic compaction",
                "Automatic compaction finished",
                "Starting queued message.",
            ],
            ..AcpQuirks::NONE
        },
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "pi",
    signs: &SIGNS,
    // Its agent-level retries (`auto_retry_start` lines, 2 s doubling);
    // its model SDK's own hidden retries are turned off in the same file
    // (`RunHome::fixed`).
    own_retries: OwnRetries::HomeSettings {
        key: &["retry", "maxRetries"],
        plus: 0,
    },
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
        route: EndpointRoute::ModelsFile(ModelsFile {
            file: "models.json",
            id: "agent-context",
            apis: &[
                (ApiFamily::OpenaiChat, "openai-completions", ""),
                (ApiFamily::OpenaiResponses, "openai-responses", ""),
                (ApiFamily::AnthropicMessages, "anthropic-messages", ""),
                (ApiFamily::Gemini, "google-generative-ai", "/v1beta"),
            ],
            key_env: "AGENT_CONTEXT_ENDPOINT_KEY",
            header_env: "AGENT_CONTEXT_ENDPOINT_HEADER_",
            default_keys: ["defaultProvider", "defaultModel"],
        }),
        model: EndpointModel::Config,
    },
    // `PI_CODING_AGENT_DIR` names its folder (`~/.pi/agent`): settings,
    // `models.json`, `auth.json`, and its sessions in
    // `sessions/--<folder path>--/<time>_<id>.jsonl`.
    home: Some(RunHome {
        env: "PI_CODING_AGENT_DIR",
        folder: ".pi/agent",
        settings: "settings.json",
        kept: &["sessions"],
        names_folder: true,
        // `quietStartup`: else its ACP adapter sends pi's startup notice
        // as the reply's first text. Its model SDK's retries (2, silent)
        // off: its own retries, which it says, are `retry.maxRetries`.
        fixed: r#"{"quietStartup":true,"retry":{"provider":{"maxRetries":0}}}"#,
        // Its sessions written to the user's folder by its real path: its
        // ACP adapter keeps that path to load the session again.
        kept_setting: Some(("sessionDir", "sessions")),
    }),
    min_node: Some(NodeVersion {
        major: 20,
        minor: 6,
    }),
    env_flags: &[],
    start_env: &[],
};

/// How attachments reach it over its CLI (`docs/attachments.md`).
pub const ATTACHMENTS: CliAttachments = CliAttachments {
    // `@path` arguments: it reads the file and sends an image when its
    // model is declared to take images (the endpoint's is), else a line
    // saying it was left out.
    image: CliImage::AtArg,
    at_path: false,
    include_dir_flag: None,
};

/// pi 0.73.1 against the mock: a failed model call is the assistant
/// message's `stopReason: "error"` with `errorMessage` (`500 <the API's
/// message>`, `Connection error.` when nothing listens), and the run still
/// exits 0; before each retry it prints `auto_retry_start` (`errorMessage`,
/// `attempt`, `delayMs`), and `auto_retry_end` (`success`, `finalError`)
/// once it gives up. An unknown `--session` prints `No session found
/// matching '…'` on stderr and exits 1; one made in another folder prints
/// `Session found in different project: <folder>` and asks on stdin
/// whether to fork it, reading the prompt's first line as the answer
/// (`Aborted.`, exit 0, when it is not "y").
pub const SIGNS: Signs = Signs {
    unknown_session: &[
        "No session found matching",
        "Session found in different project",
    ],
    // Its retry announcements are not progress for the idle timeout.
    retry_lines: &["\"type\":\"auto_retry_start\""],
    ..NO_SIGNS
};
