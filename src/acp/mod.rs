//! Running an agent over the Agent Client Protocol (SPEC §12), every
//! decision sans IO: how each agent is started ([`crate::agents::AcpLaunch`]),
//! which session request to send from the agent's capabilities and the
//! `sessionId` asked for ([`session`]), the params of each request
//! (Claude's `_meta.systemPrompt.append`, the inline layout elsewhere),
//! permission answers by `onPermission` or by the sandbox policy
//! ([`permission`]), the client `fs` methods confined to `cd` ([`fs`]), the
//! answer to requests the client does not serve, the deadlines (cancel, then
//! kill after [`CANCEL_GRACE_MS`]) and the [`crate::run::AgentRun`], the
//! same as over the CLI ([`AcpRunner`]).
//!
//! The Node runner (`js/acp-run.cjs`) spawns, moves the JSON-RPC messages
//! with the official SDK, does the file IO the core allowed, times and kills.

pub mod fs;
pub mod permission;
mod runner;
pub mod session;
#[cfg(test)]
mod tests;

pub use permission::{Decision, Policy};
pub use runner::{AcpPlan, AcpRunner, Stage, CANCEL_GRACE_MS};
pub use session::SessionStep;

/// JSON-RPC's "method not found": the answer to a request the client does
/// not serve (Qwen's `craft/drainMidTurnQueue`, any `terminal/*`).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// ACP's `resourceNotFound`: a file that does not exist.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// JSON-RPC's "invalid params": a path outside `cd`, a write refused.
pub const INVALID_PARAMS: i64 = -32602;
/// The `protocolVersion` this client speaks (every agent answers 1).
pub const PROTOCOL_VERSION: u64 = 1;
