//! Factory Droid (`droid exec --output-format acp`), driven over the Agent
//! Client Protocol only: its headless `exec -o json|stream-json` mode is not
//! modelled. Layout: Codex's, everything inline, under its own agent type.
//! Its traps: `session/new` needs a Factory sign-in or `FACTORY_API_KEY`
//! (any value passes offline); a model endpoint is a "custom model" of its
//! settings, chosen by an id it makes up (`custom:<displayName>-<index>`);
//! a failed model call is both an agent message `Error: 400 …` and a
//! JSON-RPC error `Internal error: Agent error` with the status in `data`;
//! it reports no usage.

use super::openai_codex;
use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::error_kind::AgentErrorKind::*;
use crate::prompt::layout::Layout;

pub const DROID: Layout = Layout {
    agent_type: "factory-droid",
    ..openai_codex::CODEX
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "factory-droid",
    name: "Factory Droid",
    layout: &DROID,
    assembler_class: None,
    cli: None,
    acp: Some(AcpLaunch {
        command: "droid",
        package: "@factory/cli",
        args: &["exec", "--output-format", "acp"],
        // Its settings' session default (the endpoint's custom model).
        model: AcpModel::Config,
        // It reads files itself, never through the client.
        missing_file_is_empty: false,
        // Its default autonomy, `normal`, asks before commands and edits.
        ask_mode: None,
        // Neither advertises mcpCapabilities; a stdio server goes in
        // `session/new` as for any agent (not tried).
        mcp: AcpMcp::Session,
        quirks: AcpQuirks {
            error_text_prefix: Some("Error: "),
            ..AcpQuirks::NONE
        },
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "droid",
    signs: &SIGNS,
    // No setting for its retries of a failed model call was found in its
    // settings or variables (0.225.2 tries an overloaded call 10 times, 5
    // to 30 s apart, and says nothing over ACP meanwhile); it logs each
    // failed call, with its status, to the file FACTORY_LOG_FILE names.
    own_retries: OwnRetries::LogFile {
        env: "FACTORY_LOG_FILE",
        file: "droid.log",
    },
    // A custom model in its runtime settings (`--settings`, which it merges
    // over ~/.factory/settings.json for the process only), made the
    // session's default; the id it gives a custom model is
    // `custom:<displayName>-<index>`. Cloud session sync off: the session
    // stays on the machine.
    endpoint: EndpointSpec {
        families: &[FamilyUse {
            family: ApiFamily::OpenaiChat,
            env: &[],
        }],
        route: EndpointRoute::File(FileRoute {
            env: "FACTORY_RUNTIME_SETTINGS_PATH",
            file: "droid-settings.json",
            template: r#"{"customModels":[{"model":"{model}","displayName":"AgentContextEndpoint","baseUrl":"{baseUrl}","apiKey":"{apiKey}","provider":"generic-chat-completion-api","maxOutputTokens":16384}],"sessionDefaultSettings":{"model":"custom:AgentContextEndpoint-0"},"cloudSessionSync":false}"#,
            fixed: &[],
        }),
        model: EndpointModel::Config,
    },
    home: None,
    min_node: None,
    env_flags: &[],
    start_env: &[],
};

/// Factory Droid 0.225.2 over ACP against the mock: a failed model call is
/// the agent message `Error: <status> <the API's message>` and the prompt's
/// JSON-RPC error `-32603 Internal error: Agent error` with
/// `data: "<status> <message>"`.
pub const SIGNS: Signs = Signs {
    status_prefixes: &["Agent error: ", "Error: "],
    markers: &[
        ("server error", UpstreamError),
        ("service unavailable", UpstreamError),
        ("overloaded", UpstreamError),
    ],
    // Each failed model call in its log (`OwnRetries::LogFile`): `WARN:
    // [LLM] LLM error | Context: {"attempt":2,…,"statusCode":500,…}`, the
    // first try `"attempt":1` (its title call and the turn's are logged
    // alike).
    retry_lines: &["[LLM] LLM error"],
    retry_status: &["\"statusCode\":"],
    not_retries: &["\"attempt\":1,"],
    // Meanwhile its stderr gets telemetry it cannot send offline: not
    // progress for the idle timeout.
    chatter: &["Error flushing telemetry events"],
    ..NO_SIGNS
};
