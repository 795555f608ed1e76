//! Records written whole, away from a running session: the lines that link
//! a record to another session ([`link_lines`]), and a whole session
//! recorded from an agent's ACP output ([`acp_session_record`], for the
//! benchmark).

use super::entry::{Header, Opened, Relation};
use super::recorder::{Recorder, TurnOutcome};
use crate::agent_output::{AgentOutputParser, Protocol, TextForm};
use crate::error::Result;

/// The lines that link the record `prior` to another session:
/// `interrupted` first for a turn it left unfinished, then the `link`
/// (`relation` as the record names it; another name is `INVALID_INPUT`).
/// For a record whose session is not running here (a rebuilt one's old
/// record).
pub fn link_lines(
    prior: &[u8],
    relation: &str,
    id: &str,
    agent_type: &str,
    now: u64,
) -> Result<String> {
    let relation = Relation::read(relation)?;
    let (mut recorder, mut lines) = Recorder::continuing(prior, now)?;
    lines.push_str(&recorder.link(now, relation, id, agent_type));
    Ok(lines)
}

/// A whole session recorded from an agent's ACP output (each turn's
/// `session/update` lines), as the record's text: `opened`, then per turn
/// its request, the reply's events and its end, then `closed`.
pub fn acp_session_record(agent_type: &str, turns: &[String], prompt: &str) -> String {
    let mut record = Header::new("bench-session", agent_type, 1).line();
    let mut recorder = Recorder::new();
    let mut at = 1;
    record += &recorder.opened(
        at,
        Opened {
            agent_type: agent_type.to_owned(),
            protocol: "acp".into(),
            cd: "/home/u/project".into(),
            ..Opened::default()
        },
    );
    for output in turns {
        at += 1;
        record += &recorder.request(at, prompt, &[]);
        let mut parser =
            AgentOutputParser::for_protocol(agent_type, Protocol::Acp, true, TextForm::Utf8);
        for event in parser.push(output.as_bytes()) {
            at += 1;
            record += &recorder.event(at, &event);
        }
        let reply = parser.finish();
        at += 1;
        let outcome = TurnOutcome {
            stop_reason: Some("end_turn".into()),
            usage: reply.usage,
            ..TurnOutcome::default()
        };
        record += &recorder.turn_end(at, &outcome);
    }
    record += &recorder.closed(at + 1);
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{read_record_str, summarize_read, ReadOptions};

    #[test]
    fn an_unknown_relation_is_refused_by_name() {
        let prior = Header::new("s1", "claude-code", 1).line();
        let err = link_lines(prior.as_bytes(), "sideways", "s2", "claude-code", 5).unwrap_err();
        assert_eq!(err.message(), "relation: unknown link \"sideways\"");
        let lines = link_lines(prior.as_bytes(), "forkedTo", "s2", "claude-code", 5).unwrap();
        assert!(lines.contains("\"forkedTo\""), "{lines}");
    }

    #[test]
    fn an_acp_session_reads_back_with_its_turns() {
        let update = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#;
        let turns = vec![format!("{update}\n"), format!("{update}\n")];
        let record = acp_session_record("claude-code", &turns, "hello");
        let read = read_record_str(&record, ReadOptions::default()).unwrap();
        assert_eq!(summarize_read(&read, false).turns, 2);
    }
}
