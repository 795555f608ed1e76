//! The conversation, one thing: what a user sees as one chat, whatever
//! agent sessions it went through. Its record is one (format 2.0: a
//! `part` entry where the agent changes), its turns are numbered on
//! across parts, and one machine ([`Conversation`]) decides for it — which
//! agent runs its next turn (`fallback`, a handoff, a rebuild), what that
//! turn carries, what is recorded — for sessions and team members alike.
//! The host opens the agents' sessions, moves the bytes and keeps the
//! store.

mod events;
pub mod fallback;
mod fork;
mod machine;
pub mod request;
mod tracked;

pub use fallback::{agent_type_of, hands_off, Fallback};
pub use fork::fork_record;
pub use machine::{moved, Action, Conversation, Event, SessionRef, Setup};
pub use request::{prepare, CarriedContext, Prepared};
