//! Sessions over an agent's own command line (`protocol: 'cli'`): the
//! engine's steps for it (`wire.rs`) — a CLI that reads a message a line on
//! stdin (Claude Code) keeps one process for every turn; the others start
//! a process per turn, resuming the session with their verified flag — and
//! what such a session is opened with (`config.rs`). The turn machine is
//! the engine's own, the same as over ACP.

mod config;
mod stream_input;
mod wire;

pub use config::CliSessionConfig;
pub use wire::prompt_text;
pub(in crate::engine) use wire::CliRefusal;

#[cfg(test)]
mod per_turn_tests;
#[cfg(test)]
mod run_launch_tests;
#[cfg(test)]
mod run_more_agents_tests;
#[cfg(test)]
pub(crate) mod run_script;
#[cfg(test)]
mod run_tests;
#[cfg(test)]
mod tests;
