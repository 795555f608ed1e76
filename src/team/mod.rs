//! A team conversation with incremental context: which prompt a member's
//! agent session is sent on its turn.
//!
//! A team is a transcript (every message, in the order it was written) and
//! members, each an agent with its own instructions, byte budget and session.
//! The core is stateless and deterministic: a turn is planned from the
//! transcript, the member, its *mark* (how many transcript messages its
//! session has been through) and whether its session is fresh, and the plan
//! says what to send and the member's next mark. The host stores the
//! transcript and the marks (they are plain data) and moves the bytes.
//!
//! - **Full prompt** — the member's first turn, or any turn on a session that
//!   does not hold the conversation (a new one, or one that was lost): what
//!   [`assemble_for_agent`] gives for the member's agent type, instructions,
//!   the team task, the transcript messages that concern the member (sent to
//!   it, by it, or to everyone — never what was addressed to another member)
//!   and the turn's message, within the member's budget. Every message that
//!   concerns it is a candidate, not only the last few: the budget bounds the
//!   prompt, and what it drops is reported.
//! - **Delta prompt** — a later turn on the same session: the messages
//!   written since the mark that concern the member, except its own (its
//!   replies, which its session holds already), rendered exactly as
//!   [`assemble_for_agent`] renders them for its layout, *without* the
//!   sections the session holds (instructions and team task): the context
//!   section with its heading, then the turn's message section. With nothing
//!   new and no message there is nothing to send, and that is an error.
//!
//! So, turn after turn, the prompts a session was sent plus its own replies
//! hold exactly the messages a full prompt on the whole transcript would
//! hold, in the same order, save what a budget dropped — and every dropped
//! message is named in the plan ([`TeamTurn::dropped`]).
//!
//! ```
//! use agent_context::team::{plan_turn, Member, TurnKind, TurnRequest};
//! use agent_context::ContextMessage;
//!
//! let carol = Member::new("carol", "google-gemini");
//! let mut transcript = vec![
//!     ContextMessage::new("kailai", Some("carol"), "Write the parser"),
//!     ContextMessage::new("kailai", Some("max"), "Review the tests"),
//! ];
//! let first = plan_turn(&TurnRequest::new("Ship 1.0", &carol, None, ""), &transcript).unwrap();
//! assert_eq!(first.kind, TurnKind::Full);
//! assert_eq!(first.output.prompt, "Team Task:\nShip 1.0\n\nConversation so far:\n- kailai: Write the parser");
//! transcript.push(ContextMessage::new("carol", None, "Done: parser.rs"));
//! transcript.push(ContextMessage::new("max", Some("carol"), "Add a test for empty input"));
//! let next = plan_turn(&TurnRequest::new("Ship 1.0", &carol, Some(first.mark), ""), &transcript).unwrap();
//! assert_eq!(next.kind, TurnKind::Delta);
//! assert_eq!(next.output.prompt, "Conversation so far:\n- max: Add a test for empty input");
//! assert_eq!((next.sent.as_slice(), next.mark), (&[3][..], 4));
//! ```
//!
//! [`assemble_for_agent`]: crate::agents::assembly::assemble_for_agent

mod events;
mod machine;
#[cfg(test)]
mod machine_restore_tests;
#[cfg(test)]
mod machine_tests;
mod members;
mod record;
mod state;
mod turn;
mod turn_input;
mod view;

pub use events::{Action, Cause, Event};
pub use machine::TeamMachine;
pub use members::{EndpointChoice, MemberRecord, Runs, TeamConfig, SESSION_OPTIONS};
pub use record::{team_json, TeamRecorder, TEAM_AGENT_TYPE};
pub use state::{message_json, read_message, Seat, TeamState, JSON_VERSION};
pub use turn::{plan_turn, Member, TeamTurn, TurnKind, TurnRequest};
pub use turn_input::{TurnInput, REQUEST_KEYS};
pub use view::{concerns, Selected};
