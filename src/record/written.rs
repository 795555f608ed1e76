//! Records written whole, away from a running session: a whole
//! conversation recorded from an agent's ACP output
//! ([`acp_session_record`], for the benchmark).

use super::entry::{Header, Part};
use super::recorder::{Recorder, TurnOutcome};
use crate::agent_output::{AgentOutputParser, Protocol, TextForm};

/// A whole conversation recorded from an agent's ACP output (each turn's
/// `session/update` lines), as the record's text: its `part`, then per
/// turn its request, the reply's events and its end, then `closed`.
pub fn acp_session_record(agent_type: &str, turns: &[String], prompt: &str) -> String {
    let mut record = Header::new("bench-conversation", 1).line();
    let mut recorder = Recorder::new();
    let mut at = 1;
    record += &recorder.part(
        at,
        Part {
            session_id: Some("bench-session".into()),
            agent_type: agent_type.to_owned(),
            protocol: "acp".into(),
            from_turn: 1,
            cd: "/home/u/project".into(),
            ..Part::default()
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
    fn an_acp_session_reads_back_with_its_turns() {
        let update = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#;
        let turns = vec![format!("{update}\n"), format!("{update}\n")];
        let record = acp_session_record("claude-code", &turns, "hello");
        let read = read_record_str(&record, ReadOptions::default()).unwrap();
        assert_eq!(summarize_read(&read, false).unwrap().turns, 2);
    }
}
