//! The Agent Client Protocol's pieces that are pure rules: which request
//! opens a session from the agent's capabilities and the session asked for
//! ([`session`]), permission answers by the sandbox policy ([`permission`]),
//! the client `fs` methods confined to `cd` ([`fs`]), what the client
//! offers and the trace context ([`client`]), elicitations
//! ([`elicitation`]), client terminals ([`terminals`]), and an agent
//! served elsewhere reached over HTTP or WebSocket ([`transport`]). The session
//! engine ([`crate::engine`]) speaks the protocol with them.

pub mod client;
pub mod elicitation;
pub mod fs;
pub mod permission;
pub mod session;
pub mod terminals;
pub mod transport;

pub use permission::{Decision, Policy};
pub use session::SessionStep;

/// JSON-RPC's "method not found": the answer to a request the client does
/// not serve (Qwen's `craft/drainMidTurnQueue`, `terminal/*` unless the app
/// enabled terminals).
pub const METHOD_NOT_FOUND: i64 = -32601;
/// ACP's `resourceNotFound`: a file that does not exist.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// JSON-RPC's "invalid params": a path outside `cd`, a write refused.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC's "request cancelled": the answer to a request its sender
/// cancelled (`$/cancel_request`).
pub const REQUEST_CANCELLED: i64 = -32800;
/// The `protocolVersion` this client speaks (every agent answers 1).
pub const PROTOCOL_VERSION: u64 = 1;
