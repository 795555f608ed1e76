//! The session engine (sans-IO): one agent process, its sessions and
//! their turns, over the Agent Client Protocol or the agent's own command
//! line — one turn machine for both. The host (the Node executor,
//! `js/host/engine-host.cjs`) spawns, writes, kills, keeps the clock and asks
//! the user's callbacks; every decision is here. Modelled on
//! `quinn-proto`: events and the time go in, [`Action`]s come out of
//! `poll()`, and `poll_timeout()` says when to wake the engine. Its tests
//! script events against a fake clock, with no process.

mod acp_turns;
mod action;
pub mod cli;
mod client_side;
pub mod config;
#[allow(clippy::module_inception)]
mod engine;
mod events;
mod fork;
mod host;
mod host_input;
mod inbound;
pub mod judge;
mod messages;
mod open;
mod ops;
mod probe;
mod prompt_attachments;
mod quiet;
mod recording;
mod result;
mod retry_prompt;
mod sessions;
mod setup;
mod state;
mod timers;
mod turn;
mod turns;

pub use action::{Action, HostRequest, Outcome, Polled, Snapshot};
pub use cli::CliSessionConfig;
pub use config::{McpServer, Resolved, SessionConfig};
pub use engine::{
    invalid as invalid_failure, Engine, AUTH_REQUIRED, CANCEL_GRACE_MS, CLOSE_GRACE_MS, DEFAULT,
};
pub use host_input::HostInput;
pub use open::{run_protocol, Plan, Purpose};
pub use result::{TurnError, TurnResult};
pub use state::Config;
pub use timers::{Timer, TimerTable};
pub use turn::TurnLimits;

#[cfg(test)]
mod client_tests;
#[cfg(test)]
mod lifecycle_tests;
#[cfg(test)]
mod parity_tests;
#[cfg(test)]
mod probe_tests;
#[cfg(test)]
mod process_tests;
#[cfg(test)]
mod recording_tests;
#[cfg(test)]
mod retry_tests;
#[cfg(test)]
mod schema_1_25_tests;
#[cfg(test)]
mod session_state_tests;
#[cfg(test)]
mod start_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod transport_tests;
