//! Gemini CLI (`gemini`). Layout (GeminiContextAssembler, seed 000):
//! natural-language headings, no brackets, context lines `- {from}: {content}`
//! (the recipient is left out), no `systemFlag`. Output: `-o stream-json`
//! lines. `--skip-trust`: a headless run in an untrusted folder exits 55,
//! and the host chose the working directory.

use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::error_kind::AgentErrorKind::*;
use crate::prompt::layout::{InstructionPlacement, Layout};

pub const GEMINI: Layout = Layout {
    agent_type: "google-gemini",
    instructions: InstructionPlacement::Inline {
        header: "Instructions:\n",
    },
    team_header: "Team Task:\n",
    context_header: "Conversation so far:\n",
    line_prefix: "- ",
    line_shows_recipient: false,
    message_header: "Your task:\n",
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "google-gemini",
    name: "Gemini CLI",
    layout: &GEMINI,
    assembler_class: Some("GeminiContextAssembler"),
    cli: Some(CliSpec {
        command: "gemini",
        package: "@google/gemini-cli",
        output: OutputFormat::GeminiStreamJson,
        base_args: &["-o", "stream-json", "--skip-trust"],
        system_prompt: SystemPromptArg::None,
        model_flag: "--model",
        session: SessionArg::Flag("--resume"),
        approval: ApprovalArg::Mode {
            flag: "--approval-mode",
            read_only: "plan",
            yolo: "yolo",
            edits: "auto_edit",
        },
        trailing_args: &[],
        // No flag takes a server: its settings do, in the run's home. (A
        // system settings file is skipped unless it and every folder above
        // it are owned by root and writable by no one else: seen "Security
        // Warning: Skipping system settings file … Parent directory '/tmp'
        // is insecure".)
        mcp: CliMcp::HomeSettings {
            key: "mcpServers",
            shape: McpShape::Gemini,
        },
        attachments: Some(ATTACHMENTS),
        extras: CliExtras {
            // A session resumed after a failed turn holds no trace of its
            // prompt: the retry sends it again.
            failed_prompt: FailedPrompt::Dropped,
            ..CliExtras::NONE
        },
    }),
    acp: Some(AcpLaunch {
        command: "gemini",
        package: "@google/gemini-cli",
        args: &["--acp"],
        model: AcpModel::Flag("-m"),
        load_broken: Some(
            "Gemini CLI 0.61 erases the session's history when asked to load it after a restart",
        ),
        missing_file_is_empty: true,
        context_as_text_with_images: ACP_CONTEXT_AS_TEXT_WITH_IMAGES,
        // 0.61 starts no MCP server in a folder it does not trust (folder
        // trust is on by default; seen: the model was offered no tool of
        // the server), and over ACP nothing asks: the run's servers are the
        // caller's, so the folder is trusted for the run, as `--skip-trust`
        // does over its CLI.
        mcp_env: &[("GEMINI_CLI_TRUST_WORKSPACE", "true")],
        quirks: AcpQuirks {
            tool_name: AcpToolName::IdPrefix("__"),
            input_in_first_content: true,
            // Its chat forgets a turn's prompt when its model call fails.
            failed_prompt: FailedPrompt::Dropped,
            ..AcpQuirks::NONE
        },
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "gemini",
    signs: &SIGNS,
    // Its retries (10 attempts at most, 5 s doubling to 30 s): the
    // settings' `general.maxAttempts` counts the first attempt too, over
    // the CLI and over ACP (where it prints nothing while it retries). Over
    // the CLI each retry also prints `Attempt N failed with status 500.
    // Retrying with backoff...` on stderr, which the run counts as well.
    own_retries: OwnRetries::HomeSettings {
        key: &["general", "maxAttempts"],
        plus: 1,
    },
    // GOOGLE_GEMINI_BASE_URL alone makes it pick a "gateway" auth that
    // headless runs reject: its settings choose the API-key auth.
    endpoint: EndpointSpec {
        families: &[FamilyUse {
            family: ApiFamily::Gemini,
            env: &[],
        }],
        route: EndpointRoute::Env(EnvRoute {
            base_url: "GOOGLE_GEMINI_BASE_URL",
            api_key: "GEMINI_API_KEY",
            model: None,
            headers: HeaderRoute::EnvCommas("GEMINI_CLI_CUSTOM_HEADERS"),
            fixed: &[],
            settings: Some(SettingsRoute {
                place: SettingsPlace::Home,
                json: r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
            }),
        }),
        model: EndpointModel::Option,
    },
    // `GEMINI_CLI_HOME` is what its `homedir()` returns: the user settings
    // are `$GEMINI_CLI_HOME/.gemini/settings.json`, its sessions live in
    // `.gemini/tmp/<project>/chats` (projects found again by the marker in
    // their folder there), shell history in `.gemini/history`.
    home: Some(RunHome {
        env: "GEMINI_CLI_HOME",
        folder: ".gemini",
        settings: "settings.json",
        kept: &["tmp", "history"],
        names_folder: false,
        fixed: "{}",
        kept_setting: None,
    }),
    min_node: None,
    env_flags: &[],
    // It starts itself again in a second Node process (a heap of half the
    // machine's memory) unless told not to: twice the start-up's CPU, ~1 s.
    start_env: &[("GEMINI_CLI_NO_RELAUNCH", "true")],
};

/// How attachments reach it over its CLI (`docs/attachments.md`).
pub const ATTACHMENTS: CliAttachments = CliAttachments {
    // `@path` in the prompt: read in and sent inline (`inlineData`); a
    // file outside the folder needs its folder included.
    image: CliImage::AtPath,
    at_path: true,
    include_dir_flag: Some("--include-directories"),
};

/// Over ACP, Gemini CLI 0.61 drops a prompt's image blocks when the prompt
/// also holds an embedded resource or a link to a file (it rebuilds the
/// prompt from its text and the files it reads; seen on a real run): beside
/// an image, those are sent as text.
pub const ACP_CONTEXT_AS_TEXT_WITH_IMAGES: bool = true;

/// Gemini CLI 0.61: while it retries a 429 or 5xx it prints `Attempt N
/// failed with status 500. Retrying with backoff...` (or `Retrying after
/// N ms...`) with the error on stderr. A failed `result` holds the API's JSON (`"code":500`),
/// the exit code is the HTTP status mod 256; exit 41 is missing
/// credentials, 55 an untrusted folder; an unknown `--resume` prints
/// `Error resuming session: …` on stderr and exits 42 before any API call.
pub const SIGNS: Signs = Signs {
    exit_codes: &[(41, AuthError), (55, UntrustedFolder)],
    exit_is_http_status: true,
    status_prefixes: &["\"code\":", "\\\"code\\\":", "status: "],
    unknown_session: &["Error resuming session"],
    markers: &[
        ("not running in a trusted directory", UntrustedFolder),
        ("empty response", EmptyResponse),
    ],
    retry_lines: &["Retrying with backoff", "Retrying after "],
    retry_status: &["failed with status "],
    ..NO_SIGNS
};
