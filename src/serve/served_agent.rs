//! What a served conversation's agent answers that is not a conversation's
//! update: its `initialize` (what it advertises), a page of `session/list`
//! (the conversations of the store, each as ACP's `SessionInfo`), and a
//! prompt's outcome (a turn as the response to `session/prompt`, or the
//! JSON-RPC error of a failed one).

use serde_json::{json, Value};

/// The protocol version served (ACP v1).
pub const PROTOCOL_VERSION: u64 = 1;
/// Conversations in one page of `session/list`.
pub const LIST_PAGE: usize = 100;
/// JSON-RPC's "internal error", for a turn that failed.
const INTERNAL_ERROR: i64 = -32603;

/// `initialize`'s result: load, list, resume and close advertised, fork as
/// the unstable `sessionCapabilities.fork`; the package's name and version;
/// the folder conversations work in (`cd`, which a client's `cwd` lies
/// inside) in `_meta['agent-context']`.
pub fn initialize_result(requested: Option<u64>, cd: &str) -> Value {
    let version = env!("CARGO_PKG_VERSION");
    let protocol = requested.unwrap_or(PROTOCOL_VERSION).min(PROTOCOL_VERSION);
    json!({
        "protocolVersion": protocol,
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": { "image": true, "audio": false, "embeddedContext": true },
            "mcpCapabilities": { "http": true, "sse": true },
            "sessionCapabilities": { "list": {}, "resume": {}, "close": {}, "fork": {} },
        },
        "agentInfo": { "name": "agent-context", "title": "agent-context", "version": version },
        "authMethods": [],
        "_meta": { "agent-context": { "cd": cd } },
    })
}

/// Milliseconds since the epoch as ISO 8601 (`2026-11-30T08:15:00.000Z`).
pub fn iso_time(ms: i64) -> String {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1_000 % 60,
        rem % 1_000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// A page of `session/list` from the store's conversation summaries
/// (`listConversations()`, the latest updated first): those in `cwd` when
/// given, from `cursor` (an offset this function wrote), each as
/// `SessionInfo` with the conversation's own in `_meta['agent-context']`.
pub fn list_page(
    summaries: &[Value],
    cwd: Option<&str>,
    cursor: Option<&str>,
) -> Result<Value, String> {
    let from = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .map_err(|_| format!("params.cursor {c:?} is not a cursor this agent gave"))?,
    };
    let listed: Vec<&Value> = summaries
        .iter()
        .filter(|s| s.get("conversationId").and_then(Value::as_str).is_some())
        .filter(|s| cwd.map_or(true, |c| s.get("cd").and_then(Value::as_str) == Some(c)))
        .collect();
    let page: Vec<Value> = listed
        .iter()
        .skip(from)
        .take(LIST_PAGE)
        .map(|s| session_info(s))
        .collect();
    let mut result = json!({ "sessions": page });
    if from + LIST_PAGE < listed.len() {
        result["nextCursor"] = json!((from + LIST_PAGE).to_string());
    }
    Ok(result)
}

fn session_info(s: &Value) -> Value {
    let mut info = json!({
        "sessionId": s["conversationId"],
        "cwd": s.get("cd").and_then(Value::as_str).unwrap_or(""),
    });
    if let Some(title) = s
        .get("title")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
    {
        info["title"] = json!(title);
    }
    if let Some(at) = s.get("updatedAt").and_then(Value::as_i64) {
        info["updatedAt"] = json!(iso_time(at));
    }
    let mut own = json!({});
    for key in [
        "turns",
        "status",
        "live",
        "parts",
        "forkedFrom",
        "createdAt",
    ] {
        if let Some(v) = s.get(key).filter(|v| !v.is_null()) {
            own[key] = v.clone();
        }
    }
    info["_meta"] = json!({ "agent-context": own });
    info
}

/// A turn (`AgentTurn`) as `session/prompt`'s outcome: `Ok` its result
/// (`stopReason`: the agent's, `cancelled` for an aborted turn), or `Err`
/// the JSON-RPC error of a failed one (its kind and message). `state`: the
/// conversation's, carried in `_meta['agent-context']` with `success` and
/// `handedOffTo`.
pub fn prompt_outcome(turn: &Value, state: &Value) -> Result<Value, Value> {
    let mut meta = state.clone();
    meta["success"] = json!(turn.get("success").and_then(Value::as_bool) == Some(true));
    if let Some(to) = turn.get("handedOffTo").filter(|v| v.is_object()) {
        meta["handedOffTo"] = to.clone();
    }
    let kind = turn.pointer("/error/kind").and_then(Value::as_str);
    let stop = match (turn.get("success").and_then(Value::as_bool), kind) {
        (Some(true), _) => turn
            .get("stopReason")
            .and_then(Value::as_str)
            .unwrap_or("end_turn"),
        (_, Some("aborted")) => "cancelled",
        _ => {
            let kind = kind.unwrap_or("unknown");
            let message = turn
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("");
            let retryable = turn
                .pointer("/error/retryable")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            return Err(json!({
                "code": INTERNAL_ERROR,
                "message": format!("{kind}: {message}"),
                "data": { "kind": kind, "retryable": retryable, "agent-context": meta },
            }));
        }
    };
    Ok(json!({ "stopReason": stop, "_meta": { "agent-context": meta } }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_advertises_what_a_conversation_can_do() {
        let r = initialize_result(Some(1), "/srv/w");
        assert_eq!(r["protocolVersion"], 1);
        assert_eq!(r["agentCapabilities"]["loadSession"], true);
        assert_eq!(
            r["agentCapabilities"]["sessionCapabilities"],
            json!({"list": {}, "resume": {}, "close": {}, "fork": {}})
        );
        assert_eq!(r["_meta"]["agent-context"]["cd"], "/srv/w");
        assert_eq!(initialize_result(Some(7), "/")["protocolVersion"], 1);
        assert_eq!(initialize_result(None, "/")["protocolVersion"], 1);
    }

    #[test]
    fn times_read_as_iso() {
        assert_eq!(iso_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_time(1_795_908_427_094), "2026-11-28T23:27:07.094Z");
        assert_eq!(iso_time(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn conversations_list_in_pages_as_sessions() {
        let summaries: Vec<Value> = (0..150)
            .map(|i| json!({"conversationId": format!("c{i}"), "cd": if i % 2 == 0 { "/w" } else { "/x" }, "title": "Hi", "updatedAt": 0, "turns": 2, "status": "open", "live": {"sessionId": "s", "agentType": "claude-code"}}))
            .chain([json!({"sessionId": "old-1.x"})])
            .collect();
        let first = list_page(&summaries, None, None).unwrap();
        assert_eq!(first["sessions"].as_array().unwrap().len(), 100);
        assert_eq!(first["nextCursor"], "100");
        assert_eq!(
            first["sessions"][0],
            json!({
                "sessionId": "c0", "cwd": "/w", "title": "Hi", "updatedAt": "1970-01-01T00:00:00.000Z",
                "_meta": {"agent-context": {"turns": 2, "status": "open", "live": {"sessionId": "s", "agentType": "claude-code"}}},
            })
        );
        let second = list_page(&summaries, None, Some("100")).unwrap();
        assert_eq!(second["sessions"].as_array().unwrap().len(), 50);
        assert!(second.get("nextCursor").is_none());
        assert_eq!(
            list_page(&summaries, Some("/x"), None).unwrap()["sessions"]
                .as_array()
                .unwrap()
                .len(),
            75
        );
        assert!(list_page(&summaries, None, Some("x"))
            .unwrap_err()
            .contains("params.cursor"));
    }

    #[test]
    fn a_turn_is_a_stop_reason_or_an_error() {
        let state = json!({"seq": 4, "epoch": "e"});
        let ok =
            prompt_outcome(&json!({"success": true, "stopReason": "end_turn"}), &state).unwrap();
        assert_eq!(
            ok,
            json!({"stopReason": "end_turn", "_meta": {"agent-context": {"seq": 4, "epoch": "e", "success": true}}})
        );
        let cancelled = prompt_outcome(
            &json!({"success": false, "error": {"kind": "aborted", "message": "x"}}),
            &state,
        )
        .unwrap();
        assert_eq!(cancelled["stopReason"], "cancelled");
        let moved = prompt_outcome(
            &json!({"success": true, "handedOffTo": {"agentType": "openai-codex"}}),
            &state,
        )
        .unwrap();
        assert_eq!(
            moved["_meta"]["agent-context"]["handedOffTo"]["agentType"],
            "openai-codex"
        );
        let failed = prompt_outcome(&json!({"success": false, "error": {"kind": "quota_exceeded", "message": "HTTP 429", "retryable": true}}), &state).unwrap_err();
        assert_eq!(failed["code"], -32603);
        assert_eq!(failed["message"], "quota_exceeded: HTTP 429");
        assert_eq!(failed["data"]["retryable"], true);
    }
}
