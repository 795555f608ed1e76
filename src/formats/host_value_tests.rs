//! The readers on a JSON stand-in for the caller's values (`None`:
//! `undefined`; a key named `throws` is a getter that throws).

use serde_json::{json, Value};

use super::host_value::*;
use crate::prompt::host_input::assembler_input;
use crate::prompt::input::{ContextSource, ASSEMBLER_INPUT};
use crate::record::ReadOptions;
use crate::team::TurnInput;

struct J(Option<Value>);

impl HostValue for J {
    type Key = String;

    fn key(name: &str) -> String {
        name.to_owned()
    }

    fn shape(&self) -> Shape {
        match &self.0 {
            None => Shape::Undefined,
            Some(Value::Null) => Shape::Null,
            Some(Value::Bool(b)) => Shape::Bool(*b),
            Some(Value::Number(n)) => Shape::Number(n.as_f64().unwrap_or(f64::NAN)),
            Some(Value::String(_)) => Shape::String,
            Some(Value::Array(_)) => Shape::Array,
            Some(Value::Object(_)) => Shape::Object,
        }
    }

    fn text(&self) -> Option<String> {
        self.0.as_ref()?.as_str().map(str::to_owned)
    }

    fn field(&self, key: &String) -> Result<J, String> {
        match key.as_str() {
            "throws" if self.0.as_ref().is_some_and(|v| v.get("throws").is_some()) => {
                Err("boom".to_owned())
            }
            _ => Ok(J(self.0.as_ref().and_then(|v| v.get(key)).cloned())),
        }
    }

    fn item(&self, index: usize) -> Result<J, String> {
        Ok(J(self.0.as_ref().and_then(|v| v.get(index)).cloned()))
    }

    fn length(&self) -> usize {
        self.0
            .as_ref()
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    }

    fn own_keys(&self) -> Vec<String> {
        let keys = self.0.as_ref().and_then(Value::as_object);
        keys.map_or_else(Vec::new, |m| m.keys().cloned().collect())
    }

    fn json(&self, _what: &str) -> crate::error::Result<Value> {
        Ok(self.0.clone().unwrap_or(Value::Null))
    }
}

fn j(value: Value) -> J {
    J(Some(value))
}

fn message<T>(result: crate::error::Result<T>) -> String {
    result.err().expect("an error").message().to_owned()
}

#[test]
fn an_input_reads_its_fields_and_its_messages_on_demand() {
    let input = j(json!({
        "currentMessage": "Hi", "teamTask": null, "maxBytes": 100.7,
        "contextMessages": [{ "from": "a", "content": 1 }, { "from": "b", "to": "c", "content": "ok" }],
    }));
    let (fields, messages) = assembler_input(&input, &ASSEMBLER_INPUT).unwrap();
    assert_eq!(
        (fields.current_message.as_str(), fields.team_task.as_str()),
        ("Hi", "")
    );
    assert_eq!(fields.max_bytes, 100);
    assert_eq!(messages.count(), 2);
    assert_eq!(messages.message(1).unwrap().to.as_deref(), Some("c"));
    let bad = message(messages.message(0));
    assert_eq!(
        bad,
        "contextMessages[0].content must be a string, got a number"
    );
}

#[test]
fn every_error_names_the_field() {
    let cases: [(Value, &str); 4] = [
        (json!([]), "input must be an object, got an array"),
        (
            json!({ "maxBytes": "9" }),
            "maxBytes must be a finite number >= 0, got a string",
        ),
        (
            json!({ "maxBytes": -1 }),
            "maxBytes must be a finite number >= 0, got -1",
        ),
        (
            json!({ "contextMessages": {} }),
            "contextMessages must be an array, got an object",
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(
            message(assembler_input(&j(input), &ASSEMBLER_INPUT)),
            expected
        );
    }
    let options = j(json!({ "throws": 1 }));
    assert_eq!(
        message(field(&options, "options.", "throws")),
        "options.throws could not be read: boom"
    );
    let limit = || "options.limit".to_owned();
    assert_eq!(
        message(optional_count(j(json!(1.5)), 5, &limit)),
        "options.limit must be a whole number >= 0, got 1.5"
    );
    assert_eq!(optional_count(J(None), 5, &limit), Ok(5));
}

#[test]
fn options_read_as_given_or_their_defaults() {
    assert_eq!(ReadOptions::read(&J(None)), Ok(ReadOptions::default()));
    let read = ReadOptions::read(&j(json!({ "after": 3, "limit": 2 }))).unwrap();
    assert_eq!((read.after, read.limit), (3, Some(2)));
    assert_eq!(
        message(ReadOptions::read(&j(json!("x")))),
        "options must be an object, got a string"
    );
    let member = json!({ "id": "carol", "agentType": "claude-code", "maxBytes": -1 });
    let request = j(json!({ "transcript": [], "member": member }));
    let err = message(TurnInput::read(&request));
    assert_eq!(
        err,
        "request.member.maxBytes must be a finite number >= 0, got -1"
    );
    let request = j(
        json!({ "transcript": [], "member": { "id": "carol", "agentType": "claude-code" }, "mark": 0 }),
    );
    assert_eq!(TurnInput::read(&request).unwrap().member.id, "carol");
}
