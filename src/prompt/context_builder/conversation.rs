//! `ConversationMessage` in (camelCase or OpenAI snake_case tool calls),
//! `OpenAIChatMessage` out (OpenAI's wire format, `arguments` a JSON string).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::{type_name, Obj};
use crate::formats::json_text::to_js_json;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    System,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Tool => "tool",
        }
    }
}

/// One tool call of an assistant message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall<'a> {
    pub id: &'a str,
    pub name: &'a str,
    /// Always a JSON string: kept as given when it is a string, serialised otherwise.
    pub arguments: Cow<'a, str>,
}

/// A persisted conversation message. Fields other than these are ignored.
#[derive(Clone, Debug, PartialEq)]
pub struct ConversationMessage<'a> {
    pub role: Role,
    /// A string, an array of content parts, or `null` (assistant only).
    pub content: &'a Value,
    pub name: Option<&'a str>,
    pub tool_calls: Vec<ToolCall<'a>>,
    pub tool_call_id: Option<&'a str>,
    /// `false` only when `includeInContext === false`.
    pub include_in_context: bool,
}

static NULL: Value = Value::Null;

fn tool_call<'a>(value: &'a Value, path: &str) -> Result<ToolCall<'a>> {
    let o = Obj::new(value, path)?;
    let id = o.req_str("id")?;
    // OpenAI's shape { id, type, function: { name, arguments } } or the flat { id, name, arguments }.
    let function_path = o.path_of("function");
    let holder = match o.get("function") {
        Some(f) => Obj::new(f, &function_path)?,
        None => o,
    };
    let name = holder.req_str("name")?;
    let arguments = match holder.get("arguments") {
        None => Cow::Borrowed("{}"),
        Some(Value::String(s)) => Cow::Borrowed(s.as_str()),
        // As `JSON.stringify(arguments)` would write it, numbers included.
        Some(other) => Cow::Owned(to_js_json(other)),
    };
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

impl<'a> ConversationMessage<'a> {
    /// Reads the message at `path` (`messages[3]`, or `message`).
    pub fn read(value: &'a Value, path: &str) -> Result<ConversationMessage<'a>> {
        let o = Obj::new(value, path)?;
        let role = match o.req_str("role")? {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "system" => Role::System,
            "tool" => Role::Tool,
            other => {
                return Err(AgentContextError::invalid(format!(
                    "{} must be 'user', 'assistant', 'system' or 'tool', got {other:?}",
                    o.path_of("role")
                )))
            }
        };
        let content = o.get("content").unwrap_or(&NULL);
        let content_path = o.path_of("content");
        match content {
            Value::String(_) => {}
            Value::Null if role == Role::Assistant => {}
            Value::Array(parts) => {
                for (i, part) in parts.iter().enumerate() {
                    let part_path = format!("{content_path}[{i}]");
                    Obj::new(part, &part_path)?.req_str("type")?;
                }
            }
            other => {
                let allowed = if role == Role::Assistant {
                    "a string, an array of content parts or null"
                } else {
                    "a string or an array of content parts"
                };
                return Err(AgentContextError::invalid(format!(
                    "{content_path} must be {allowed}, got {}",
                    type_name(other)
                )));
            }
        }

        let mut tool_calls = Vec::new();
        if let Some((key, calls)) = o.get_any(&["toolCalls", "tool_calls"]) {
            let calls_path = o.path_of(key);
            let calls = calls.as_array().ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "{calls_path} must be an array, got {}",
                    type_name(calls)
                ))
            })?;
            if role != Role::Assistant && !calls.is_empty() {
                return Err(AgentContextError::invalid(format!(
                    "{calls_path} is only allowed on assistant messages, not on a {} message",
                    role.as_str()
                )));
            }
            for (i, call) in calls.iter().enumerate() {
                tool_calls.push(tool_call(call, &format!("{calls_path}[{i}]"))?);
            }
        }

        let tool_call_id = match o.get_any(&["toolCallId", "tool_call_id"]) {
            None => None,
            Some((key, Value::String(id))) => {
                if role != Role::Tool {
                    return Err(AgentContextError::invalid(format!(
                        "{} is only allowed on tool messages, not on a {} message",
                        o.path_of(key),
                        role.as_str()
                    )));
                }
                Some(id.as_str())
            }
            Some((key, other)) => {
                return Err(AgentContextError::invalid(format!(
                    "{} must be a string, got {}",
                    o.path_of(key),
                    type_name(other)
                )))
            }
        };
        if role == Role::Tool && tool_call_id.is_none() {
            return Err(AgentContextError::invalid(format!(
                "{path} is a tool message without toolCallId (the id of the call it answers)"
            )));
        }

        Ok(ConversationMessage {
            role,
            content,
            name: o.opt_str("name")?,
            tool_calls,
            tool_call_id,
            include_in_context: o.opt_bool("includeInContext")? != Some(false),
        })
    }

    /// The message in OpenAI's chat format.
    pub fn to_openai(&self) -> OpenAIChatMessage<'_> {
        OpenAIChatMessage {
            role: self.role.as_str(),
            content: OpenAIContent::Given(self.content),
            name: self.name,
            tool_calls: (!self.tool_calls.is_empty()).then(|| {
                self.tool_calls
                    .iter()
                    .map(|c| OpenAIToolCall {
                        id: c.id,
                        kind: "function",
                        function: OpenAIFunction {
                            name: c.name,
                            arguments: &c.arguments,
                        },
                    })
                    .collect()
            }),
            tool_call_id: self.tool_call_id,
        }
    }
}

/// Content as given, or text the builder wrote (the system prompt).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum OpenAIContent<'a> {
    Given(&'a Value),
    Text(String),
}

/// `{ role, content, name?, tool_calls?, tool_call_id? }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpenAIChatMessage<'a> {
    pub role: &'static str,
    pub content: OpenAIContent<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<OpenAIToolCall<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<&'a str>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpenAIToolCall<'a> {
    pub id: &'a str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: OpenAIFunction<'a>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpenAIFunction<'a> {
    pub name: &'a str,
    pub arguments: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn openai(v: Value) -> Result<Value> {
        let m = ConversationMessage::read(&v, "message")?;
        Ok(serde_json::to_value(m.to_openai()).unwrap())
    }

    #[test]
    fn camel_and_snake_case_tool_calls_give_the_wire_format() {
        let camel = json!({"role":"assistant","content":null,"toolCalls":[{"id":"c1","name":"read","arguments":{"path":"a.txt"}}],"id":"m1","extra":1});
        let snake = json!({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.txt\"}"}}]});
        let want = json!({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.txt\"}"}}]});
        assert_eq!(openai(camel).unwrap(), want);
        assert_eq!(openai(snake).unwrap(), want);
        let tool = json!({"role":"tool","content":"42","tool_call_id":"c1","name":"read"});
        assert_eq!(
            openai(tool).unwrap(),
            json!({"role":"tool","content":"42","name":"read","tool_call_id":"c1"})
        );
        let no_args =
            json!({"role":"assistant","content":"","toolCalls":[{"id":"c","name":"now"}]});
        assert_eq!(
            openai(no_args).unwrap()["tool_calls"][0]["function"]["arguments"],
            "{}"
        );
        let parts = json!({"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"u"}}]});
        assert_eq!(openai(parts.clone()).unwrap()["content"], parts["content"]);
    }

    #[test]
    fn bad_messages_name_the_path() {
        let cases = [
            (json!({"role":"robot","content":"x"}), "message.role must be 'user', 'assistant', 'system' or 'tool', got \"robot\""),
            (json!({"content":"x"}), "message.role must be a string, got undefined"),
            (json!({"role":"tool","content":"x"}), "message is a tool message without toolCallId (the id of the call it answers)"),
            (json!({"role":"user","content":5}), "message.content must be a string or an array of content parts, got a number"),
            (json!({"role":"user"}), "message.content must be a string or an array of content parts, got null"),
            (json!({"role":"assistant","content":true}), "message.content must be a string, an array of content parts or null, got a boolean"),
            (json!({"role":"user","content":[{"text":"x"}]}), "message.content[0].type must be a string, got undefined"),
            (json!({"role":"assistant","content":"","toolCalls":[{"name":"x"}]}), "message.toolCalls[0].id must be a string, got undefined"),
            (json!({"role":"assistant","content":"","tool_calls":[{"id":"1","function":{}}]}), "message.tool_calls[0].function.name must be a string, got undefined"),
            (json!({"role":"user","content":"","toolCalls":[{"id":"1","name":"x"}]}), "message.toolCalls is only allowed on assistant messages, not on a user message"),
            (json!({"role":"user","content":"","toolCallId":"1"}), "message.toolCallId is only allowed on tool messages, not on a user message"),
            (json!({"role":"tool","content":"","toolCallId":7}), "message.toolCallId must be a string, got a number"),
            (json!({"role":"user","content":"","includeInContext":"no"}), "message.includeInContext must be a boolean, got a string"),
            (json!("hi"), "message must be an object, got a string"),
        ];
        for (value, message) in cases {
            assert_eq!(openai(value).unwrap_err().message(), message);
        }
    }
}
