//! Cline (`cline --acp`), driven over the Agent Client Protocol only: its
//! headless `--json` mode is not modelled. Layout: Codex's, everything
//! inline (it takes no system prompt over ACP), under its own agent type.
//! Its traps: `session/new` needs a sign-in or `CLINE_API_KEY` (any value);
//! it starts a background hub daemon outside its process group unless its
//! session backend is `local`; it keeps running after stdin closes; a
//! failed model call is a JSON-RPC error carrying the API's message and no
//! HTTP status; it reports no usage.

use super::openai_codex;
use super::signs::{Signs, NO_SIGNS};
use super::spec::*;
use super::ApiFamily;
use crate::error_kind::AgentErrorKind::*;
use crate::prompt::layout::Layout;

pub const CLINE: Layout = Layout {
    agent_type: "cline",
    ..openai_codex::CODEX
};

pub const AGENT: AgentSpec = AgentSpec {
    agent_type: "cline",
    name: "Cline",
    layout: &CLINE,
    assembler_class: None,
    cli: None,
    acp: Some(AcpLaunch {
        command: "cline",
        package: "cline",
        args: &["--acp"],
        // The model is its provider settings' (the endpoint's); over ACP it
        // takes a model its provider's catalog lists.
        model: AcpModel::Config,
        // It reads files itself, never through the client.
        missing_file_is_empty: false,
        // Its default mode, `act`, asks before reads and commands.
        ask_mode: None,
        // In its default (`auto`) backend a session with a tool call starts
        // `cline --cline-hub-daemon`, reparented to PID 1, which outlives
        // the run; `local` keeps every session in the ACP process.
        env: &[("CLINE_SESSION_BACKEND_MODE", "local")],
        exits_on_eof: false,
        // Neither advertises mcpCapabilities; a stdio server goes in
        // `session/new` as for any agent (not tried).
        mcp: AcpMcp::Session,
        ..AcpLaunch::DEFAULT
    }),
    mcp_tool: "cline",
    signs: &SIGNS,
    own_retries: OwnRetries::Unbounded(
        "its retries of a failed model call have no setting over ACP (`--retries` is its headless mode's)",
    ),
    // Its provider settings file (what `cline auth -p openai-compatible`
    // writes to ~/.cline/data/settings/providers.json), named for the run
    // by CLINE_PROVIDER_SETTINGS_PATH; CLINE_PROVIDER picks that provider
    // over ACP, and CLINE_MODEL its model. Over ACP the key it sends is
    // CLINE_API_KEY's, not the provider's (that variable is also what lets
    // `session/new` start without a sign-in): the endpoint's key goes there. Without `updatedAt` on the
    // provider, Cline 3.0.65 never answers the prompt (no model call, no
    // error: the turn hangs).
    endpoint: EndpointSpec {
        families: &[FamilyUse {
            family: ApiFamily::OpenaiChat,
            env: &[("CLINE_PROVIDER", "openai-compatible")],
        }],
        route: EndpointRoute::File(FileRoute {
            env: "CLINE_PROVIDER_SETTINGS_PATH",
            file: "providers.json",
            template: r#"{"version":1,"lastUsedProvider":"openai-compatible","modes":{},"providers":{"openai-compatible":{"settings":{"provider":"openai-compatible","apiKey":"{apiKey}","model":"{model}","baseUrl":"{baseUrl}"},"tokenSource":"manual","updatedAt":"2026-01-01T00:00:00.000Z"}}}"#,
            fixed: &[("CLINE_MODEL", "{model}"), ("CLINE_API_KEY", "{apiKey}")],
        }),
        model: EndpointModel::Config,
    },
    home: None,
    min_node: None,
    env_flags: &[],
    start_env: &[],
};

/// Cline 3.0.65 over ACP against the mock: a failed model call answers the
/// prompt with JSON-RPC `-32603 Internal error: <the API's message>`, no
/// status; a 5xx body's usual wording makes it an upstream error.
pub const SIGNS: Signs = Signs {
    markers: &[
        ("server error", UpstreamError),
        ("service unavailable", UpstreamError),
        ("overloaded", UpstreamError),
    ],
    // A failed model call answers the prompt with JSON-RPC -32603 and the
    // API's message alone (read as the error's code when `data` names no
    // other).
    api_error_codes: &["-32603"],
    ..NO_SIGNS
};
