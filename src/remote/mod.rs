//! Agents on other machines (pure): an agent run through a channel the
//! user already has — OpenSSH, `docker exec` (or podman), `kubectl exec`,
//! or the host application's own function — with nothing of ours installed
//! there but a POSIX `sh` script given as an argument ([`channel::BOOTSTRAP`]).
//!
//! The host (`js/remote/remote-channel.cjs`) starts what [`RemoteRun`] says and
//! hands it the answers; every decision is here:
//!
//! 1. [`RemoteRun::probe`]: the other side's home (the run's folder goes
//!    under it) and `cd`, checked there, with the caller's variables.
//! 2. [`RemoteRun::stage_files`], [`RemoteRun::stage_home`]: what the run
//!    owns (the endpoint's settings, the run's home) is made there before
//!    each process starts.
//! 3. [`RemoteRun::spawn`]: what the engine would spawn locally becomes the
//!    bootstrap's preamble on stdin (the variables, the files, the folder,
//!    the command and its arguments: no value in any argument list), the
//!    agent's own stdin after it; the command is resolved there.
//! 4. [`RemoteRun::reap`], [`RemoteRun::reaped`]: after the channel ended,
//!    the agent's process group swept, its status and the files it wrote
//!    for the reply read back; a channel cut while it ran is a lost
//!    transport ([`end::TRANSPORT_LOST`]).
//! 5. [`RemoteRun::kill`], [`RemoteRun::clean`], [`RemoteRun::end_shared`]:
//!    nothing left running or written there, the shared SSH connection ended.

pub mod channel;
pub mod end;
pub mod host;
mod host_json;
mod run;
pub mod wire;

pub use channel::Local;
pub use end::{transport_lost_in, ChannelEnd, ProcessEnd, TRANSPORT_LOST};
pub use host::RemoteHost;
pub use host_json::string_pairs;
pub use run::{exec_answer, GotBytes, LocalSpawn, Op, ProbeProblem, Probed, RemoteRun};

#[cfg(test)]
mod tests;
