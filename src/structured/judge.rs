//! What a turn asked for structured output comes to: the value read from
//! the reply (the agent's own structured value, else the JSON in its
//! text), checked against the schema, and then one of three: accepted
//! (`reply.structured`), a corrective turn (the errors, and the schema
//! again), or `invalid_output` once `maxRetries` corrective turns are
//! spent. Pure: the run driver only sends the turns it is told to.

use serde_json::{json, Value};

use super::schema::Schema;
use super::validate::validate;

/// What follows a turn.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// The reply holds a value that matches: `reply.structured`.
    Accept(Value),
    /// Send this prompt as the next turn of the same session.
    Correct(String),
    /// No matching value, and no corrective turn left: these errors.
    Fail(Vec<String>),
}

/// The schema stated in a prompt, for an agent that has no way of its own
/// to be held to one.
pub fn schema_instructions(schema: &Schema) -> String {
    format!(
        "Answer with one JSON value that matches this JSON Schema, and nothing else (no prose, no code fence):\n{}",
        schema.source
    )
}

/// `prompt` with the schema stated after it.
pub fn with_schema(prompt: &str, schema: &Schema) -> String {
    format!("{prompt}\n\n{}", schema_instructions(schema))
}

/// The prompt of a corrective turn.
pub fn corrective_prompt(errors: &[String], schema: &Schema) -> String {
    let mut text =
        String::from("Your last answer did not match the JSON Schema it had to match:\n");
    for e in errors {
        text.push_str("- ");
        text.push_str(e);
        text.push('\n');
    }
    text.push('\n');
    text.push_str(&schema_instructions(schema));
    text
}

/// The JSON value a reply's text holds: the whole text, else the last
/// fenced code block that parses, else the text from its first `{` or `[`
/// to its last `}` or `]`. `None` when none parses.
pub fn value_in_text(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return Some(v);
    }
    let mut fenced = None;
    let mut rest = trimmed;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let body_at = after.find('\n').map_or(after.len(), |n| n + 1);
        let Some(end) = after[body_at..].find("```") else {
            break;
        };
        let body = &after[body_at..body_at + end];
        if let Ok(v) = serde_json::from_str::<Value>(body.trim()) {
            fenced = Some(v);
        }
        rest = &after[body_at + end + 3..];
    }
    if fenced.is_some() {
        return fenced;
    }
    let start = trimmed.find(['{', '['])?;
    let end = trimmed.rfind(['}', ']'])?;
    (end > start)
        .then(|| serde_json::from_str::<Value>(&trimmed[start..=end]).ok())
        .flatten()
}

/// The decision for a reply: `own` is the agent's own structured value
/// (Claude Code's `structured_output`), `text` its reply text;
/// `corrections` corrective turns were sent so far, at most `max`.
pub fn next(schema: &Schema, own: Option<&Value>, text: &str, corrections: u32, max: u32) -> Next {
    let value = own.cloned().or_else(|| value_in_text(text));
    let errors = match &value {
        None => vec![if text.trim().is_empty() {
            "$: the reply is empty, not a JSON value".to_owned()
        } else {
            "$: the reply is not JSON".to_owned()
        }],
        Some(v) => validate(schema, v),
    };
    match value {
        Some(v) if errors.is_empty() => Next::Accept(v),
        _ if corrections < max => Next::Correct(corrective_prompt(&errors, schema)),
        _ => Next::Fail(errors),
    }
}

/// A finished turn (an `AgentRun` or `AgentTurn` as JSON) judged: a
/// successful one gets `reply.structured`, or ends `invalid_output` with
/// `error.validationErrors`; the corrective prompt when one follows. A
/// failed turn is left as it is.
pub fn judge_turn(schema: &Schema, turn: &mut Value, corrections: u32, max: u32) -> Option<String> {
    if turn.get("success") != Some(&Value::Bool(true)) {
        return None;
    }
    let own = turn.pointer("/reply/structured").cloned();
    let text = turn
        .pointer("/reply/text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    // A corrective turn goes on the same session: none without one.
    let max = if turn.get("sessionId").is_some_and(Value::is_string) {
        max
    } else {
        corrections
    };
    match next(schema, own.as_ref(), &text, corrections, max) {
        Next::Accept(value) => {
            if let Some(reply) = turn.get_mut("reply").and_then(Value::as_object_mut) {
                reply.insert("structured".into(), value);
            }
            None
        }
        Next::Correct(prompt) => Some(prompt),
        Next::Fail(errors) => {
            let tried = if corrections == 0 {
                String::new()
            } else {
                format!(
                    " after {corrections} corrective turn{}",
                    if corrections == 1 { "" } else { "s" }
                )
            };
            let message = format!(
                "the reply does not match outputSchema{tried}: {}",
                errors.join("; ")
            );
            if let Some(t) = turn.as_object_mut() {
                t.insert("success".into(), Value::Bool(false));
                t.insert(
                    "error".into(),
                    json!({
                        "kind": "invalid_output",
                        "message": message,
                        "retryable": false,
                        "exitCode": null,
                        "lastLines": [],
                        "validationErrors": errors,
                    }),
                );
            }
            if let Some(reply) = turn.get_mut("reply").and_then(Value::as_object_mut) {
                reply.remove("structured");
            }
            None
        }
    }
}

/// The turn that follows `earlier` (a corrective one): its own result,
/// with the time and the attempts of both, and the usage both spent.
/// `session_cost`: the cost an agent reports is the session's so far (ACP's
/// `usage_update`), so the later one stands.
pub fn carry_over(earlier: &Value, later: &mut Value, session_cost: bool) {
    let add = |key: &str, later: &mut Value| {
        let sum = earlier.get(key).and_then(Value::as_u64).unwrap_or(0)
            + later.get(key).and_then(Value::as_u64).unwrap_or(0);
        if let Some(t) = later.as_object_mut() {
            t.insert(key.into(), json!(sum));
        }
    };
    add("durationMs", later);
    add("attempts", later);
    let (Some(a), Some(b)) = (
        earlier.pointer("/reply/usage"),
        later.pointer_mut("/reply/usage"),
    ) else {
        return;
    };
    let (Value::Object(a), Value::Object(b)) = (a, b) else {
        return;
    };
    for (key, value) in a {
        // Levels, not amounts: the later report stands.
        if matches!(key.as_str(), "contextTokens" | "contextWindow" | "models")
            || (session_cost && key == "costUsd" && b.contains_key(key))
        {
            continue;
        }
        let summed = match (value, b.get(key)) {
            (Value::Number(x), Some(Value::Number(y))) => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => json!(x + y),
                _ => json!(x.as_f64().unwrap_or(0.0) + y.as_f64().unwrap_or(0.0)),
            },
            (v, None) => v.clone(),
            (_, Some(y)) => y.clone(),
        };
        b.insert(key.clone(), summed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        Schema::read(
            &json!({"type": "object", "properties": {"verdict": {"enum": ["ship", "hold"]}}, "required": ["verdict"]}),
            "outputSchema",
        )
        .unwrap()
    }

    #[test]
    fn the_json_of_a_reply_is_found_in_its_text() {
        assert_eq!(value_in_text(" {\"a\": 1} "), Some(json!({"a": 1})));
        assert_eq!(
            value_in_text("Here it is:\n```json\n{\"a\": 2}\n```\nDone."),
            Some(json!({"a": 2}))
        );
        assert_eq!(
            value_in_text("```\n[1]\n```\nand\n```json\n{\"b\": 3}\n```"),
            Some(json!({"b": 3}))
        );
        assert_eq!(
            value_in_text("The answer: {\"c\": [1, 2]}."),
            Some(json!({"c": [1, 2]}))
        );
        assert_eq!(value_in_text("no json here"), None);
        assert_eq!(value_in_text("\"a string\""), Some(json!("a string")));
    }

    #[test]
    fn accept_correct_then_fail() {
        let s = schema();
        assert_eq!(
            next(&s, None, "{\"verdict\":\"ship\"}", 0, 2),
            Next::Accept(json!({"verdict": "ship"}))
        );
        // The agent's own value wins over its text.
        assert_eq!(
            next(&s, Some(&json!({"verdict": "hold"})), "", 0, 2),
            Next::Accept(json!({"verdict": "hold"}))
        );
        let Next::Correct(prompt) = next(&s, None, "{\"verdict\":\"maybe\"}", 1, 2) else {
            panic!("a corrective turn")
        };
        assert!(
            prompt.starts_with("Your last answer did not match"),
            "{prompt}"
        );
        assert!(
            prompt.contains("- $.verdict: expected one of \"ship\", \"hold\"\n"),
            "{prompt}"
        );
        assert!(prompt.contains("\"required\":[\"verdict\"]"), "{prompt}");
        assert_eq!(
            next(&s, None, "I think we should ship.", 2, 2),
            Next::Fail(vec!["$: the reply is not JSON".to_owned()])
        );
        assert_eq!(
            next(&s, None, "  ", 0, 0),
            Next::Fail(vec!["$: the reply is empty, not a JSON value".to_owned()])
        );
    }

    #[test]
    fn a_turn_is_judged_in_place() {
        let s = schema();
        let mut ok = json!({"success": true, "sessionId": "s", "reply": {"text": "{\"verdict\": \"ship\"}"}});
        assert_eq!(judge_turn(&s, &mut ok, 0, 1), None);
        assert_eq!(ok["reply"]["structured"], json!({"verdict": "ship"}));

        let mut bad = json!({"success": true, "sessionId": "s", "reply": {"text": "{}"}});
        assert!(judge_turn(&s, &mut bad, 0, 1).is_some());
        let mut alone = json!({"success": true, "reply": {"text": "{}"}});
        assert_eq!(
            judge_turn(&s, &mut alone, 0, 1),
            None,
            "no session to correct in"
        );
        assert_eq!(alone["error"]["kind"], "invalid_output");
        assert_eq!(
            bad["success"],
            json!(true),
            "untouched while a corrective turn follows"
        );
        assert_eq!(judge_turn(&s, &mut bad, 1, 1), None);
        assert_eq!(bad["success"], json!(false));
        assert_eq!(bad["error"]["kind"], "invalid_output");
        assert_eq!(
            bad["error"]["message"],
            "the reply does not match outputSchema after 1 corrective turn: $: the required property \"verdict\" is missing"
        );
        assert_eq!(
            bad["error"]["validationErrors"],
            json!(["$: the required property \"verdict\" is missing"])
        );

        let mut failed =
            json!({"success": false, "reply": {"text": ""}, "error": {"kind": "timeout"}});
        assert_eq!(judge_turn(&s, &mut failed, 0, 3), None);
        assert_eq!(failed["error"]["kind"], "timeout");
    }

    #[test]
    fn a_corrective_turn_carries_the_time_attempts_and_usage_of_the_first() {
        let first = json!({"durationMs": 100, "attempts": 1, "reply": {"usage": {"inputTokens": 10, "costUsd": 0.5, "contextTokens": 900}}});
        let mut second = json!({"durationMs": 50, "attempts": 1, "reply": {"usage": {"inputTokens": 4, "outputTokens": 2, "costUsd": 0.25, "contextTokens": 950}}});
        let mut acp = second.clone();
        carry_over(&first, &mut second, false);
        assert_eq!(second["durationMs"], 150);
        assert_eq!(second["attempts"], 2);
        assert_eq!(
            second["reply"]["usage"],
            json!({"inputTokens": 14, "outputTokens": 2, "costUsd": 0.75, "contextTokens": 950})
        );
        carry_over(&first, &mut acp, true);
        assert_eq!(acp["reply"]["usage"]["costUsd"], 0.25);
        assert_eq!(acp["reply"]["usage"]["inputTokens"], 14);
    }
}
