//! A served conversation's updates, numbered: the one sequence every
//! client of the conversation is sent, live and on `session/load`.
//!
//! `seq` counts the `session/update`s of the conversation the server has
//! made, from 1, in the order it made them: first those of the record it
//! found (when the conversation was not born on this server), then each
//! live one — a turn's text as the deltas the agent streamed, not the
//! record's coalesced text. So one number means one update for every
//! client, whichever way it came, and a client that loads or resumes
//! `after` the last `seq` it saw is sent exactly what follows. The record's
//! own cursor cannot serve: it numbers a turn's text once the turn has
//! written it, while clients see it streamed.
//!
//! The numbers hold while the server holds the conversation; they are
//! named by an `epoch` (the host's random id for this log). A client that
//! comes back with another epoch's `after` (the server was restarted) is
//! sent the whole conversation again, told by `reset: true`.

use serde::Serialize;
use serde_json::{json, Value};

use super::updates::{self, Audience, ToolCalls};

/// One update of the conversation, numbered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Item {
    pub seq: u64,
    /// `all`, `notices` (clients that take notices), `others` (not the prompting client).
    pub to: &'static str,
    /// The `session/update` notification's params, `_meta['agent-context']` included.
    pub params: Value,
}

/// What a `session/load` or `session/resume` is sent.
#[derive(Debug, PartialEq)]
pub struct Replay<'a> {
    pub items: &'a [Item],
    /// The client's `after` named another epoch: it is sent everything.
    pub reset: bool,
}

/// The numbered updates of one served conversation.
#[derive(Debug)]
pub struct ServedLog {
    conversation_id: String,
    epoch: String,
    items: Vec<Item>,
    turn: u64,
    session_id: Option<String>,
    agent_type: String,
    /// The record's cursor the log holds everything up to.
    record_cursor: u64,
    tools: ToolCalls,
    /// The running turn's id, as its prompting client named it.
    prompt_id: Option<String>,
}

impl ServedLog {
    /// A log for conversation `conversation_id`, named `epoch`, whose live
    /// part is agent session `session_id` of `agent_type`.
    pub fn new(
        conversation_id: &str,
        epoch: &str,
        session_id: Option<&str>,
        agent_type: &str,
    ) -> ServedLog {
        ServedLog {
            conversation_id: conversation_id.to_owned(),
            epoch: epoch.to_owned(),
            items: Vec::new(),
            turn: 0,
            session_id: session_id.map(str::to_owned),
            agent_type: agent_type.to_owned(),
            record_cursor: 0,
            tools: ToolCalls::default(),
            prompt_id: None,
        }
    }

    pub fn seq(&self) -> u64 {
        self.items.last().map_or(0, |i| i.seq)
    }

    pub fn turn(&self) -> u64 {
        self.turn
    }

    pub fn record_cursor(&self) -> u64 {
        self.record_cursor
    }

    pub fn epoch(&self) -> &str {
        &self.epoch
    }

    /// The conversation went on in agent session `session_id` of `agent_type`.
    pub fn live(&mut self, session_id: Option<&str>, agent_type: &str) {
        self.session_id = session_id.map(str::to_owned);
        self.agent_type = agent_type.to_owned();
    }

    /// `_meta['agent-context']` of the next update, and of responses: a
    /// running turn's updates carry the `promptId` its client gave.
    fn meta(&self, seq: u64) -> Value {
        let mut m = json!({ "seq": seq, "turn": self.turn, "agentType": self.agent_type });
        if let Some(id) = &self.session_id {
            m["sessionId"] = json!(id);
        }
        if let Some(id) = &self.prompt_id {
            m["promptId"] = json!(id);
        }
        m
    }

    /// The state a response carries: `{ epoch, seq, turn, sessionId?, agentType }`.
    pub fn state(&self) -> Value {
        let mut m = self.meta(self.seq());
        m["epoch"] = json!(self.epoch);
        m
    }

    fn push(&mut self, made: Vec<(Audience, Value)>) -> &[Item] {
        let from = self.items.len();
        for (audience, update) in made {
            let seq = self.seq() + 1;
            let params = json!({
                "sessionId": self.conversation_id,
                "update": update,
                "_meta": { "agent-context": self.meta(seq) },
            });
            self.items.push(Item {
                seq,
                to: audience.name(),
                params,
            });
        }
        &self.items[from..]
    }

    /// Turn `turn` starts with the user's `blocks` (ACP content blocks);
    /// `prompt_id`: the prompting client's name for it, carried by each of
    /// its updates (so a client tells its own turn from another's).
    pub fn begin_turn(&mut self, turn: u64, blocks: &Value, prompt_id: Option<&str>) -> &[Item] {
        self.turn = turn;
        self.prompt_id = prompt_id.map(str::to_owned);
        self.push(updates::of_prompt(blocks))
    }

    /// A live event of the running turn.
    pub fn event(&mut self, event: &Value) -> &[Item] {
        let made = updates::of_event(event, &mut self.tools);
        self.push(made)
    }

    /// An update of the session outside a turn's reply.
    pub fn outside(&mut self, update: &Value) -> &[Item] {
        let made = updates::of_outside(update).into_iter().collect();
        self.push(made)
    }

    /// The conversation moved to another agent session (`part`: its
    /// `sessionId`, `agentType`, `mode?`, `configOptions?`, `commands?`).
    pub fn part(&mut self, part: &Value) -> &[Item] {
        let agent = part
            .get("agentType")
            .and_then(Value::as_str)
            .unwrap_or(&self.agent_type)
            .to_owned();
        self.live(part.get("sessionId").and_then(Value::as_str), &agent);
        self.push(updates::of_part(part))
    }

    /// The running turn ended (`turn`: `{ success, error?, turn? }`, its
    /// number as the record has it, when the turn counted); the record
    /// holds it up to `cursor`, which the live updates stood for.
    pub fn end_turn(&mut self, turn: &Value, cursor: u64) -> &[Item] {
        self.record_cursor = self.record_cursor.max(cursor);
        let from = self.items.len();
        self.push(updates::of_turn_end(turn));
        self.prompt_id = None;
        if let Some(n) = turn.get("turn").and_then(Value::as_u64) {
            self.turn = n;
        }
        &self.items[from..]
    }

    /// The record's entries after the log's record cursor (written by
    /// another host, or before this server held the conversation), up to
    /// `cursor`: their updates.
    pub fn record(&mut self, entries: &[Value], cursor: u64) -> &[Item] {
        let mut made = Vec::new();
        for entry in entries {
            let seq = entry.get("seq").and_then(Value::as_u64).unwrap_or(0);
            if seq <= self.record_cursor {
                continue;
            }
            if let Some(t) = entry.get("turn").and_then(Value::as_u64) {
                self.turn = self.turn.max(t);
            }
            let first = self.record_cursor == 0 && made.is_empty() && seq <= 1;
            if entry.get("kind").and_then(Value::as_str) == Some("part") {
                let agent = entry
                    .get("agentType")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                self.live(entry.get("sessionId").and_then(Value::as_str), &agent);
            }
            let from = self.items.len();
            let updates = updates::of_entry(entry, &mut self.tools, first);
            self.push(updates);
            made.extend(from..self.items.len());
            self.record_cursor = seq;
        }
        self.record_cursor = self.record_cursor.max(cursor);
        let from = made.first().copied().unwrap_or(self.items.len());
        &self.items[from..]
    }

    /// What a client that loads (`resume` false) or resumes the
    /// conversation is sent: after `after` when given with this log's
    /// epoch (or none); everything when its epoch is another one; on a
    /// resume without `after`, nothing.
    pub fn replay(&self, after: Option<u64>, epoch: Option<&str>, resume: bool) -> Replay<'_> {
        let reset = epoch.is_some_and(|e| e != self.epoch);
        let from = match (after, reset) {
            (_, true) => 0,
            (Some(after), false) => after,
            (None, false) if resume => self.seq(),
            (None, false) => 0,
        };
        let start = self.items.partition_point(|i| i.seq <= from);
        Replay {
            items: &self.items[start..],
            reset,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> ServedLog {
        ServedLog::new("conv-1", "e1", Some("s1"), "claude-code")
    }

    fn seqs(items: &[Item]) -> Vec<u64> {
        items.iter().map(|i| i.seq).collect()
    }

    #[test]
    fn every_update_is_numbered_and_says_where_it_belongs() {
        let mut l = log();
        let user = l
            .begin_turn(1, &json!([{"type": "text", "text": "Hi"}]), None)
            .to_vec();
        assert_eq!(user[0].to, "others");
        let t = l
            .event(&json!({"type": "text", "text": "He", "attempt": 1}))
            .to_vec();
        assert_eq!(
            t[0].params,
            json!({
                "sessionId": "conv-1",
                "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "He"}},
                "_meta": {"agent-context": {"seq": 2, "turn": 1, "sessionId": "s1", "agentType": "claude-code"}},
            })
        );
        l.event(&json!({"type": "text", "text": "llo"}));
        assert!(l
            .event(&json!({"type": "status", "status": "success"}))
            .is_empty());
        assert!(l.end_turn(&json!({"success": true}), 4).is_empty());
        assert_eq!(l.record_cursor(), 4);
        assert_eq!(
            l.state(),
            json!({"seq": 3, "turn": 1, "sessionId": "s1", "agentType": "claude-code", "epoch": "e1"})
        );
    }

    #[test]
    fn a_client_coming_back_after_a_seq_gets_exactly_what_follows() {
        let mut l = log();
        l.begin_turn(1, &json!([{"type": "text", "text": "Hi"}]), None);
        for piece in ["a", "b", "c", "d"] {
            l.event(&json!({"type": "text", "text": piece}));
        }
        assert_eq!(seqs(l.replay(None, None, false).items), [1, 2, 3, 4, 5]);
        assert_eq!(seqs(l.replay(Some(3), Some("e1"), false).items), [4, 5]);
        assert_eq!(seqs(l.replay(Some(3), None, true).items), [4, 5]);
        assert_eq!(
            seqs(l.replay(Some(5), Some("e1"), true).items),
            Vec::<u64>::new()
        );
        assert!(
            l.replay(None, None, true).items.is_empty(),
            "a resume replays nothing"
        );
        let other = l.replay(Some(3), Some("e0"), true);
        assert!(other.reset);
        assert_eq!(seqs(other.items), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn the_record_is_numbered_once_and_live_turns_are_not_replayed_from_it() {
        let mut l = log();
        let entries = [
            json!({"seq": 1, "kind": "part", "sessionId": "s0", "agentType": "claude-code", "reason": "opened"}),
            json!({"seq": 2, "kind": "request", "turn": 1, "text": "Hi"}),
            json!({"seq": 3, "kind": "text", "turn": 1, "text": "Hello"}),
            json!({"seq": 4, "kind": "turnEnd", "turn": 1}),
        ];
        assert_eq!(seqs(l.record(&entries, 4)), [1, 2]);
        assert_eq!(l.turn(), 1);
        assert_eq!(l.record_cursor(), 4);
        assert!(l.record(&entries, 4).is_empty(), "read again, nothing new");
        l.begin_turn(2, &json!([{"type": "text", "text": "More"}]), Some("p-7"));
        assert_eq!(
            l.event(&json!({"type": "text", "text": "x"}))[0].params["_meta"]["agent-context"]
                ["promptId"],
            "p-7"
        );
        l.event(&json!({"type": "text", "text": "Sure"}));
        l.end_turn(&json!({"success": true, "turn": 2}), 8);
        assert!(
            l.state().get("promptId").is_none(),
            "a turn's id ends with it"
        );
        // Another host wrote turn 3 after ours: only it is added.
        let later = [
            json!({"seq": 7, "kind": "text", "turn": 2, "text": "Sure"}),
            json!({"seq": 9, "kind": "request", "turn": 3, "text": "Elsewhere"}),
        ];
        let added = l.record(&later, 9).to_vec();
        assert_eq!(seqs(&added), [6]);
        assert_eq!(added[0].params["_meta"]["agent-context"]["turn"], 3);
    }

    #[test]
    fn a_new_part_is_said_with_its_state_and_named_in_what_follows() {
        let mut l = log();
        l.begin_turn(1, &json!([{"type": "text", "text": "Hi"}]), None);
        l.event(&json!({"type": "handoff", "reason": "quota_exceeded", "from": {"agentType": "claude-code"}, "to": {"agentType": "openai-codex"}}));
        let part = l.part(&json!({"sessionId": "c1", "agentType": "openai-codex", "configOptions": [], "commands": []})).to_vec();
        assert_eq!(part.len(), 2);
        let t = l
            .event(&json!({"type": "text", "text": "From Codex"}))
            .to_vec();
        assert_eq!(
            t[0].params["_meta"]["agent-context"],
            json!({"seq": 5, "turn": 1, "sessionId": "c1", "agentType": "openai-codex"})
        );
    }
}
