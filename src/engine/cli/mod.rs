//! Sessions over an agent's own command line (`protocol: 'cli'`): the same
//! inputs and [`Action`](crate::engine::Action)s as the ACP engine, so the
//! one host (`js/engine-host.cjs`) drives both. A CLI that reads a message
//! a line on stdin (Claude Code) keeps one process for every turn; the
//! others start a process per turn, resuming the session with their
//! verified flag. Its tests script events against a fake clock (`tests.rs`).

mod config;
#[allow(clippy::module_inception)]
mod engine;
mod stream_input;
mod turn;
mod turns;

pub use config::CliSessionConfig;
pub use engine::{CliEngine, CLI_CANCEL_GRACE_MS, CLI_CLOSE_GRACE_MS};

#[cfg(test)]
mod run_more_agents_tests;
#[cfg(test)]
pub(crate) mod run_script;
#[cfg(test)]
mod run_tests;
#[cfg(test)]
mod tests;
