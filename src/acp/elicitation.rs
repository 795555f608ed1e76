//! `elicitation/create`: the agent asks the user for input, in a form
//! (`mode: 'form'`, a `requestedSchema` of flat properties) or at a URL
//! (`mode: 'url'`, an `elicitationId` and a `url`). The rules here are
//! pure: what a request must hold, what the client advertises, and what
//! the host's answer (the app's `onElicitation`) may be — `{ action:
//! 'accept', content }`, `{ action: 'decline' }` or `{ action: 'cancel' }`.
//! Without a handler every request is declined at once; a request of a
//! cancelled turn is answered `cancel`.

use serde_json::{json, Map, Value};

use crate::formats::json_read::type_name;

/// `clientCapabilities.elicitation` when the app answers: both modes.
pub fn capability() -> Value {
    json!({"form": {}, "url": {}})
}

/// The answer to a request nobody answers (no `onElicitation`).
pub fn declined() -> Value {
    json!({"action": "decline"})
}

/// The answer to a request whose turn was cancelled.
pub fn cancelled() -> Value {
    json!({"action": "cancel"})
}

/// What a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Form,
    Url,
}

/// The request's mode, once its params hold what that mode needs; `Err`
/// says what is wrong (answered as invalid params). A mode this client
/// does not know is `Ok(None)`: declined.
pub fn read_request(params: &Value) -> Result<Option<Mode>, String> {
    let Value::Object(p) = params else {
        return Err(format!(
            "params must be an object, got {}",
            type_name(params)
        ));
    };
    if !p.get("message").is_some_and(Value::is_string) {
        return Err("params.message must be a string".to_owned());
    }
    match p.get("mode").and_then(Value::as_str) {
        Some("form") => match p.get("requestedSchema") {
            Some(Value::Object(_)) => Ok(Some(Mode::Form)),
            other => Err(format!(
                "params.requestedSchema must be an object, got {}",
                other.map_or("nothing", type_name)
            )),
        },
        Some("url") => {
            if !p.get("url").is_some_and(Value::is_string) {
                return Err("params.url must be a string".to_owned());
            }
            if !p.get("elicitationId").is_some_and(Value::is_string) {
                return Err("params.elicitationId must be a string".to_owned());
            }
            Ok(Some(Mode::Url))
        }
        Some(_) => Ok(None),
        None => Err("params.mode must be a string ('form' or 'url')".to_owned()),
    }
}

/// The response to the agent for the host's `answer` to `params` (a
/// request [`read_request`] accepted). `Err` names what is wrong with the
/// answer; the agent is then answered `cancel`.
pub fn response(params: &Value, answer: &Value) -> Result<Value, String> {
    let Value::Object(a) = answer else {
        return Err(format!(
            "onElicitation must resolve {{ action, content? }}, got {}",
            type_name(answer)
        ));
    };
    match a.get("action").and_then(Value::as_str) {
        Some("decline") => Ok(declined()),
        Some("cancel") => Ok(cancelled()),
        Some("accept") => {
            if params.get("mode").and_then(Value::as_str) == Some("url") {
                return Ok(json!({"action": "accept"}));
            }
            let content = match a.get("content") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(c)) => c.clone(),
                Some(other) => {
                    return Err(format!(
                        "onElicitation's content must be an object, got {}",
                        type_name(other)
                    ))
                }
            };
            check_content(params.get("requestedSchema"), &content)?;
            Ok(json!({"action": "accept", "content": content}))
        }
        other => Err(format!(
            "onElicitation's action must be 'accept', 'decline' or 'cancel', got {}",
            other.map_or_else(|| "none".to_owned(), |o| format!("\"{o}\""))
        )),
    }
}

/// The content of a form: each value a string, number, boolean or list of
/// strings (ACP's `ElicitationContentValue`), a property of the form, and
/// every required one there.
fn check_content(schema: Option<&Value>, content: &Map<String, Value>) -> Result<(), String> {
    let properties = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    for (key, value) in content {
        let fits = match value {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
            Value::Array(items) => items.iter().all(Value::is_string),
            _ => false,
        };
        if !fits {
            return Err(format!(
                "onElicitation's content.{key} must be a string, a number, a boolean or an array of strings, got {}",
                type_name(value)
            ));
        }
        if properties.is_some_and(|p| !p.contains_key(key)) {
            return Err(format!(
                "onElicitation's content.{key} is not a field of the form (fields: {})",
                properties
                    .map(|p| p.keys().cloned().collect::<Vec<_>>().join(", "))
                    .unwrap_or_default()
            ));
        }
    }
    let required = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if !content.contains_key(name) {
            return Err(format!(
                "onElicitation's content lacks the required field {name}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> Value {
        json!({
            "sessionId": "s", "mode": "form", "message": "Which database?",
            "requestedSchema": {
                "type": "object",
                "properties": {"db": {"type": "string", "enum": ["pg", "sqlite"]}, "tags": {"type": "array"}},
                "required": ["db"]
            }
        })
    }

    #[test]
    fn requests_are_read_by_mode() {
        assert_eq!(read_request(&form()), Ok(Some(Mode::Form)));
        let url = json!({"sessionId": "s", "mode": "url", "message": "Sign in", "url": "https://x", "elicitationId": "e1"});
        assert_eq!(read_request(&url), Ok(Some(Mode::Url)));
        assert_eq!(
            read_request(&json!({"mode": "_custom", "message": "m"})),
            Ok(None)
        );
        assert_eq!(
            read_request(&json!({"mode": "form", "message": "m"})),
            Err("params.requestedSchema must be an object, got nothing".to_owned())
        );
        assert_eq!(
            read_request(&json!({"mode": "url", "message": "m", "url": "u"})),
            Err("params.elicitationId must be a string".to_owned())
        );
        assert!(read_request(&json!({"mode": "form"})).is_err());
        assert!(read_request(&json!("x")).is_err());
    }

    #[test]
    fn answers_are_checked_against_the_form() {
        assert_eq!(
            response(
                &form(),
                &json!({"action": "accept", "content": {"db": "pg", "tags": ["a"]}})
            ),
            Ok(json!({"action": "accept", "content": {"db": "pg", "tags": ["a"]}}))
        );
        assert_eq!(
            response(&form(), &json!({"action": "decline"})),
            Ok(declined())
        );
        assert_eq!(
            response(&form(), &json!({"action": "cancel"})),
            Ok(cancelled())
        );
        assert_eq!(
            response(
                &form(),
                &json!({"action": "accept", "content": {"tags": []}})
            ),
            Err("onElicitation's content lacks the required field db".to_owned())
        );
        assert_eq!(
            response(
                &form(),
                &json!({"action": "accept", "content": {"db": "pg", "x": 1}})
            ),
            Err(
                "onElicitation's content.x is not a field of the form (fields: db, tags)"
                    .to_owned()
            )
        );
        assert_eq!(
            response(&form(), &json!({"action": "accept", "content": {"db": {"a": 1}}})),
            Err("onElicitation's content.db must be a string, a number, a boolean or an array of strings, got an object".to_owned())
        );
        assert_eq!(
            response(&form(), &json!({"action": "yes"})),
            Err(
                "onElicitation's action must be 'accept', 'decline' or 'cancel', got \"yes\""
                    .to_owned()
            )
        );
        assert!(response(&form(), &json!("accept")).is_err());
        let url = json!({"mode": "url", "message": "m", "url": "u", "elicitationId": "e"});
        assert_eq!(
            response(
                &url,
                &json!({"action": "accept", "content": {"ignored": true}})
            ),
            Ok(json!({"action": "accept"}))
        );
    }
}
