//! A store's records listed as conversations: what `listConversations`
//! gives over any store's `list()`. A 2.0 record is a conversation; 1.x
//! records (one agent session each, linked by `handedOff*`/`rebuilt*`) are
//! stitched into one conversation per chain, whose id is its root
//! session's; a 1.x chain that a 2.0 record continues is that record's.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::Obj;

/// `listConversations`' filter: `{ agentType?, cd?, teamId?, memberId?, kind? }`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub agent_type: Option<String>,
    pub cd: Option<String>,
    pub team_id: Option<String>,
    pub member_id: Option<String>,
    /// `conversation` (left out) or `team`.
    pub kind: Option<String>,
}

impl Filter {
    /// The filter as given (`filter.<key>` named in errors).
    pub fn read(value: &Value) -> Result<Filter> {
        if value.is_null() {
            return Ok(Filter::default());
        }
        let o = Obj::new(value, "filter")?;
        let text = |key: &str| o.opt_str(key).map(|s| s.map(str::to_owned));
        let kind = text("kind")?;
        if let Some(kind) = kind
            .as_deref()
            .filter(|k| !["conversation", "team"].contains(k))
        {
            return Err(AgentContextError::invalid(format!(
                "filter.kind must be 'conversation' or 'team', got \"{kind}\""
            )));
        }
        Ok(Filter {
            agent_type: text("agentType")?,
            cd: text("cd")?,
            team_id: text("teamId")?,
            member_id: text("memberId")?,
            kind,
        })
    }

    fn matches(&self, summary: &Value) -> bool {
        let is = |key: &str, want: &Option<String>| {
            want.as_deref().map_or(true, |w| {
                summary.get(key).and_then(Value::as_str) == Some(w)
            })
        };
        let kind = summary
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("conversation");
        kind == self.kind.as_deref().unwrap_or("conversation")
            && is("agentType", &self.agent_type)
            && is("cd", &self.cd)
            && is("teamId", &self.team_id)
            && is("memberId", &self.member_id)
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn is_v1(summary: &Value) -> bool {
    str_of(summary, "version").starts_with("1.") || summary.get("conversationId").is_none()
}

/// The relation of a 1.x record's first link (`handedOffFrom`, …).
fn link_from(summary: &Value) -> Option<(&str, &str)> {
    let link = summary.get("linkedFrom")?;
    Some((str_of(link, "relation"), str_of(link, "sessionId")))
}

/// The conversations `summaries` (a store's `list()`) hold, matching
/// `filter`, the latest updated first.
pub fn conversations(summaries: &[Value], filter: &Filter) -> Vec<Value> {
    let continued: HashSet<&str> = summaries
        .iter()
        .filter_map(|s| s.get("continues").and_then(Value::as_str))
        .collect();
    let by_session: HashMap<&str, &Value> = summaries
        .iter()
        .filter(|s| is_v1(s))
        .map(|s| (str_of(s, "sessionId"), s))
        .collect();
    // 1.x: the record each one goes on in (handed off or rebuilt).
    let mut next: HashMap<&str, &Value> = HashMap::new();
    for s in summaries.iter().filter(|s| is_v1(s)) {
        if let Some((relation, from)) = link_from(s) {
            if relation == "handedOffFrom" || relation == "rebuiltFrom" {
                next.insert(from, s);
            }
        }
    }
    let mut out = Vec::new();
    for s in summaries {
        if !is_v1(s) {
            out.push(s.clone());
            continue;
        }
        let root_link = link_from(s).filter(|(r, from)| {
            (*r == "handedOffFrom" || *r == "rebuiltFrom") && by_session.contains_key(from)
        });
        if root_link.is_some() || continued.contains(str_of(s, "sessionId")) {
            continue; // not a chain's root, or continued by a 2.0 record
        }
        out.push(chain(s, &next, &by_session));
    }
    out.retain(|s| filter.matches(s));
    out.sort_by(|a, b| {
        let at = |s: &Value| s.get("updatedAt").and_then(Value::as_u64).unwrap_or(0);
        at(b).cmp(&at(a))
    });
    out
}

/// A 1.x chain from its root `root`, as one conversation's summary.
fn chain(root: &Value, next: &HashMap<&str, &Value>, by_session: &HashMap<&str, &Value>) -> Value {
    let mut records = vec![root];
    let mut seen = HashSet::new();
    seen.insert(str_of(root, "sessionId"));
    while let Some(n) = next.get(str_of(records[records.len() - 1], "sessionId")) {
        if !seen.insert(str_of(n, "sessionId")) {
            break;
        }
        records.push(n);
    }
    let live = records[records.len() - 1];
    let mut from_turn = 1;
    let parts: Vec<Value> = records
        .iter()
        .map(|r| {
            let reason = match link_from(r).map(|l| l.0) {
                Some("handedOffFrom") => "handoff",
                Some("rebuiltFrom") => "rebuild",
                _ => "opened",
            };
            let part = json!({ "sessionId": str_of(r, "sessionId"), "agentType": str_of(r, "agentType"),
                "protocol": str_of(r, "protocol"), "reason": reason, "fromTurn": from_turn });
            from_turn += r.get("turns").and_then(Value::as_u64).unwrap_or(0);
            part
        })
        .collect();
    let mut summary = live.clone();
    let id = str_of(root, "sessionId");
    summary["conversationId"] = json!(id);
    summary["kind"] = json!(
        if str_of(root, "agentType") == super::entry::TEAM_AGENT_TYPE {
            "team"
        } else {
            "conversation"
        }
    );
    summary["title"] = root.get("title").cloned().unwrap_or(json!(""));
    summary["createdAt"] = root.get("createdAt").cloned().unwrap_or(json!(0));
    summary["turns"] = json!(records
        .iter()
        .map(|r| r.get("turns").and_then(Value::as_u64).unwrap_or(0))
        .sum::<u64>());
    summary["live"] =
        json!({ "sessionId": str_of(live, "sessionId"), "agentType": str_of(live, "agentType") });
    summary["parts"] = Value::Array(parts);
    if let Some(("forkedFrom", parent)) = link_from(root) {
        // The conversation of the session it forked from (the turn is not in a 1.x record).
        let mut top = parent;
        while let Some(p) = by_session
            .get(top)
            .and_then(|s| link_from(s))
            .filter(|(r, _)| *r != "forkedFrom")
        {
            top = p.1;
        }
        summary["forkedFrom"] = json!({ "conversationId": top, "atTurn": 0 });
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v1(id: &str, agent: &str, turns: u64, at: u64, from: Option<(&str, &str)>) -> Value {
        let mut s = json!({ "sessionId": id, "agentType": agent, "protocol": "acp", "cd": "/w", "title": format!("t {id}"),
            "createdAt": at, "updatedAt": at, "turns": turns, "status": "closed", "version": "1.1" });
        if let Some((relation, from)) = from {
            s["linkedFrom"] = json!({ "sessionId": from, "agentType": "x", "relation": relation });
        }
        s
    }

    #[test]
    fn a_1x_chain_is_one_conversation_named_by_its_root() {
        let list = vec![
            v1("a", "claude-code", 2, 1, None),
            v1("b", "openai-codex", 1, 2, Some(("handedOffFrom", "a"))),
            v1("f", "claude-code", 1, 3, Some(("forkedFrom", "b"))),
            json!({ "conversationId": "c2", "version": "2.0", "kind": "conversation", "updatedAt": 4, "agentType": "qwen-code" }),
            json!({ "conversationId": "t", "version": "2.0", "kind": "team", "updatedAt": 5 }),
        ];
        let all = conversations(&list, &Filter::default());
        let ids: Vec<&str> = all.iter().map(|s| str_of(s, "conversationId")).collect();
        assert_eq!(ids, ["c2", "f", "a"]);
        let a = &all[2];
        assert_eq!(a["turns"], 3);
        assert_eq!(a["live"]["sessionId"], "b");
        assert_eq!(a["parts"][1]["reason"], "handoff");
        assert_eq!(a["parts"][1]["fromTurn"], 3);
        assert_eq!(all[1]["forkedFrom"]["conversationId"], "a");
        let teams = conversations(&list, &Filter::read(&json!({ "kind": "team" })).unwrap());
        assert_eq!(teams.len(), 1);
        let qwen = conversations(
            &list,
            &Filter::read(&json!({ "agentType": "qwen-code" })).unwrap(),
        );
        assert_eq!(qwen.len(), 1);
        assert!(Filter::read(&json!({ "kind": "x" })).is_err());
    }
}
