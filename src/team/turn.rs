//! Planning one member's turn: the full prompt or the delta, its new mark,
//! and what the budget dropped.

use crate::agents::assembly::assemble_for_agent;
use crate::error::{AgentContextError, Result};
use crate::prompt::budget::AssembleOptions;
use crate::prompt::input::{ContextSource, PromptFields, DEFAULT_MAX_BYTES};
use crate::prompt::output::{AssemblerOutput, TrimReport};

use super::view::Selected;

/// A member of the team: an agent with its instructions and byte budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its name in the transcript (`from` of its replies, `to` of messages to it).
    pub id: String,
    /// The agent type whose layout its prompts take.
    pub agent_type: String,
    pub system_instruction: String,
    pub instruction_file_text: String,
    /// Budget of each prompt, in UTF-8 bytes.
    pub max_bytes: u64,
}

impl Member {
    /// A member without instructions, with the default budget.
    pub fn new(id: &str, agent_type: &str) -> Self {
        Member {
            id: id.to_owned(),
            agent_type: agent_type.to_owned(),
            system_instruction: String::new(),
            instruction_file_text: String::new(),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// What one turn is planned from (besides the transcript).
#[derive(Clone, Copy, Debug)]
pub struct TurnRequest<'a> {
    pub team_task: &'a str,
    pub member: &'a Member,
    /// The member's mark: how many transcript messages its session has been
    /// through. `None`: it never had a turn.
    pub mark: Option<usize>,
    /// Whether the member's session is fresh (new, or a replacement for one
    /// that was lost): it then holds nothing, whatever the mark says.
    pub fresh: bool,
    /// This turn's message (the prompt's message section); it is not part of
    /// the transcript.
    pub message: &'a str,
}

impl<'a> TurnRequest<'a> {
    /// A turn on the member's current session (fresh when `mark` is `None`).
    pub fn new(
        team_task: &'a str,
        member: &'a Member,
        mark: Option<usize>,
        message: &'a str,
    ) -> Self {
        TurnRequest {
            team_task,
            member,
            mark,
            fresh: false,
            message,
        }
    }
}

/// Whether a turn sends the whole view or only what is new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnKind {
    Full,
    Delta,
}

impl TurnKind {
    /// `'full'` or `'delta'`, as JS sees it.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnKind::Full => "full",
            TurnKind::Delta => "delta",
        }
    }
}

/// The plan of one turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeamTurn {
    pub kind: TurnKind,
    /// What to send: `prompt`, and for a full prompt of an agent that takes
    /// its instructions apart, `systemFlag`.
    pub output: AssemblerOutput,
    /// The member's mark once this prompt is sent: the transcript's length.
    pub mark: usize,
    /// Transcript indices of the messages the prompt holds, in order.
    pub sent: Vec<usize>,
    /// Transcript indices of the messages that concern the member and are
    /// left out for the budget (the oldest), in order. Never silent.
    pub dropped: Vec<usize>,
    pub report: TrimReport,
    /// One line per trimming decision.
    pub decisions: Vec<String>,
    /// Set when the agent type is unknown and plain text was used.
    pub warning: Option<String>,
}

/// Plans the member's turn on `transcript` (oldest first).
pub fn plan_turn(request: &TurnRequest<'_>, transcript: &dyn ContextSource) -> Result<TeamTurn> {
    let member = request.member;
    if member.id.is_empty() {
        return Err(AgentContextError::invalid("member.id must not be empty"));
    }
    let count = transcript.count();
    let kind = match request.mark {
        Some(mark) if mark > count => {
            return Err(AgentContextError::invalid(format!(
                "the mark of member \"{}\" is {mark}, but the transcript has only {count} messages",
                member.id
            )))
        }
        Some(_) if !request.fresh => TurnKind::Delta,
        _ => TurnKind::Full,
    };
    let (context, fields) = match kind {
        TurnKind::Full => (
            Selected::concerning(transcript, &member.id, 0, true)?,
            PromptFields {
                current_message: request.message.to_owned(),
                team_task: request.team_task.to_owned(),
                system_instruction: member.system_instruction.clone(),
                instruction_file_text: member.instruction_file_text.clone(),
                max_bytes: member.max_bytes,
            },
        ),
        // The session holds the instructions, the team task and the
        // member's own replies.
        TurnKind::Delta => (
            Selected::concerning(transcript, &member.id, request.mark.unwrap_or(0), false)?,
            PromptFields {
                current_message: request.message.to_owned(),
                max_bytes: member.max_bytes,
                ..PromptFields::default()
            },
        ),
    };
    let assembly = assemble_for_agent(
        &member.agent_type,
        &fields,
        &context,
        AssembleOptions::default(),
    )?;
    let assembled = assembly.assembled;
    if assembled.output.byte_len() == 0 {
        return Err(AgentContextError::invalid(format!(
            "nothing to send to member \"{}\": no message since its last turn concerns it, \
             and the turn has no message",
            member.id
        )));
    }
    let dropped_count = assembled.report.messages_dropped as usize;
    let mut sent = context.indices;
    let dropped: Vec<usize> = sent.drain(..dropped_count).collect();
    Ok(TeamTurn {
        kind,
        output: assembled.output,
        mark: count,
        sent,
        dropped,
        report: assembled.report,
        decisions: assembled.decisions,
        warning: assembly.warning,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::input::ContextMessage;

    fn transcript() -> Vec<ContextMessage> {
        vec![
            ContextMessage::new("kailai", Some("carol"), "Write the parser"),
            ContextMessage::new("kailai", Some("max"), "Review the tests"),
            ContextMessage::new("carol", None, "Parser written"),
            ContextMessage::new("max", Some("all"), "Tests pass"),
        ]
    }

    fn claude() -> Member {
        Member {
            system_instruction: "You are Carol".into(),
            ..Member::new("carol", "claude-code")
        }
    }

    #[test]
    fn a_first_turn_is_the_full_prompt_for_the_member() {
        let t = transcript();
        let m = claude();
        let turn = plan_turn(&TurnRequest::new("Ship", &m, None, "Go on"), &t).unwrap();
        assert_eq!(turn.kind, TurnKind::Full);
        assert_eq!(
            turn.output.prompt,
            "[TEAM_TASK]\nShip\n\n[CONTEXT]\n- kailai -> carol: Write the parser\n\
             - carol: Parser written\n- max -> all: Tests pass\n\n[MESSAGE]\nGo on"
        );
        assert_eq!(turn.output.system_flag.as_deref(), Some("You are Carol"));
        assert_eq!((turn.sent, turn.mark), (vec![0, 2, 3], 4));
        assert!(turn.dropped.is_empty());
    }

    #[test]
    fn a_later_turn_holds_only_what_is_new_and_not_its_own() {
        let t = transcript();
        let m = claude();
        let turn = plan_turn(&TurnRequest::new("Ship", &m, Some(1), ""), &t).unwrap();
        assert_eq!(turn.kind, TurnKind::Delta);
        assert_eq!(turn.output.prompt, "[CONTEXT]\n- max -> all: Tests pass");
        assert_eq!(turn.output.system_flag, None);
        assert_eq!(turn.sent, vec![3]);
        let fresh = TurnRequest {
            fresh: true,
            ..TurnRequest::new("Ship", &m, Some(1), "")
        };
        assert_eq!(plan_turn(&fresh, &t).unwrap().kind, TurnKind::Full);
    }

    #[test]
    fn nothing_new_and_no_message_is_an_error_and_a_message_alone_is_sent() {
        let t = transcript();
        let m = claude();
        let err = plan_turn(&TurnRequest::new("Ship", &m, Some(4), ""), &t).unwrap_err();
        assert!(
            err.message()
                .starts_with("nothing to send to member \"carol\""),
            "{err}"
        );
        let turn = plan_turn(&TurnRequest::new("Ship", &m, Some(4), "  Next?\n"), &t).unwrap();
        assert_eq!(turn.output.prompt, "[MESSAGE]\nNext?");
        assert!(turn.sent.is_empty());
    }

    #[test]
    fn a_mark_beyond_the_transcript_is_refused() {
        let t = transcript();
        let m = claude();
        let err = plan_turn(&TurnRequest::new("", &m, Some(5), "x"), &t).unwrap_err();
        assert_eq!(
            err.message(),
            "the mark of member \"carol\" is 5, but the transcript has only 4 messages"
        );
        let nameless = Member::new("", "claude-code");
        assert!(plan_turn(&TurnRequest::new("", &nameless, None, "x"), &t).is_err());
    }

    #[test]
    fn budget_cuts_name_the_dropped_messages() {
        let t = transcript();
        let m = Member {
            max_bytes: 60,
            ..Member::new("carol", "openai-codex")
        };
        let turn = plan_turn(&TurnRequest::new("", &m, None, ""), &t).unwrap();
        assert_eq!(
            turn.output.prompt,
            "[CONTEXT]\n- carol: Parser written\n- max -> all: Tests pass"
        );
        assert_eq!((turn.dropped, turn.sent), (vec![0], vec![2, 3]));
        assert_eq!(turn.report.messages_dropped, 1);
    }
}
