//! The session engine (sans-IO): one agent process, its sessions and
//! their turns, over the Agent Client Protocol. The host (the Node executor, `js/engine-host.cjs`)
//! spawns, writes, kills, keeps the clock and asks the user's callbacks;
//! every decision is here. Modelled on `quinn-proto`: events and the time
//! go in, [`Action`]s come out of `poll()`, and `poll_timeout()` says when
//! to wake the engine. Its tests script events against a fake clock, with
//! no process (`tests.rs`).

mod action;
pub mod cli;
mod client_side;
pub mod config;
#[allow(clippy::module_inception)]
mod engine;
mod fork;
mod host;
mod inbound;
pub mod judge;
mod messages;
mod ops;
mod prompt_attachments;
mod quiet;
mod sessions;
mod setup;
mod state;
mod turn;
mod turns;

pub use action::{Action, HostRequest, Outcome, Snapshot};
pub use config::{McpServer, SessionConfig};
pub use engine::{Engine, AUTH_REQUIRED, CANCEL_GRACE_MS, CLOSE_GRACE_MS, DEFAULT};
pub use turn::{Due, TurnError, TurnLimits, TurnResult, TurnTimes};

#[cfg(test)]
mod client_tests;
#[cfg(test)]
mod lifecycle_tests;
#[cfg(test)]
mod process_tests;
#[cfg(test)]
mod start_tests;
#[cfg(test)]
mod tests;
