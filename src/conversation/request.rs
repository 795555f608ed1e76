//! A turn's request made into what its agent session is sent: content
//! blocks, the user's words the record keeps, and — on the first turn of a
//! part that carries the conversation (rebuilt, handed off, failed over,
//! forked) — the conversation assembled with it for that agent within its
//! budget. The request is the caller's value, read field by field: a
//! string, content blocks, an `AssemblerOutput` (`{ prompt, systemFlag? }`)
//! or an `AssemblerInput` (assembled here for the agent).

use serde::Serialize;
use serde_json::{json, Value};

use crate::agents::assembly::assemble_for_agent;
use crate::error::{AgentContextError, Result};
use crate::formats::host_value::{self as host, HostValue, Shape};
use crate::prompt::budget::AssembleOptions;
use crate::prompt::input::{ContextMessage, ContextSource, PromptFields, ASSEMBLER_INPUT};
use crate::prompt::output::TrimReport;
use crate::record::{Carried, Compacted};

/// A request made ready to send.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prepared {
    /// The prompt's content blocks.
    pub blocks: Value,
    /// What the record keeps as the turn's request: the user's words
    /// (`None`: the blocks' text, as sent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_as: Option<String>,
    /// The carried conversation, on a part's first turn that carries it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<CarriedContext>,
    /// Lines for the logger (an unknown agent type, unknown keys).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// What a carrying turn carried (the turn's `context`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CarriedContext {
    /// `full`: the whole conversation, assembled as a full prompt.
    pub kind: &'static str,
    /// Messages of the conversation carried, and dropped by the budget.
    pub carried: usize,
    pub dropped: u64,
    pub report: TrimReport,
    /// The agent's compaction whose summary stood for the turns before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compacted: Option<Compacted>,
    /// `all`: every turn was carried (no compaction's summary stood for any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'static str>,
}

/// Text blocks of `blocks` joined by a blank line: what a record keeps of them.
fn text_of_blocks<V: HostValue>(blocks: &V) -> Result<String> {
    let mut texts = Vec::new();
    for i in 0..blocks.length() {
        let block = blocks.item(i).map_err(AgentContextError::invalid)?;
        if host::type_name(&block) != "object" {
            continue;
        }
        let kind = host::field(&block, "", "type")?;
        if kind.text().as_deref() == Some("text") {
            if let Some(text) = host::field(&block, "", "text")?.text() {
                texts.push(text);
            }
        }
    }
    Ok(texts.join("\n\n"))
}

/// `request` made ready for a session of `agent_type` (`defined`: given by
/// an agent definition, whose type no assembler knows and needs none);
/// `carry`, the conversation its turn carries first.
pub fn prepare<V: HostValue>(
    request: &V,
    agent_type: &str,
    defined: bool,
    carry: Option<&Carried>,
) -> Result<Prepared> {
    let bad = || {
        AgentContextError::invalid(format!(
            "request must be a string, an AssemblerInput, an AssemblerOutput or an array of content blocks, got {}",
            host::describe_value(request)
        ))
    };
    let mut warnings = Vec::new();
    match request.shape() {
        Shape::String => {
            let text = request.text().unwrap_or_default();
            match carry {
                None => Ok(plain(json!([{ "type": "text", "text": text }]), None)),
                Some(messages) => carried(agent_type, defined, messages, &text, None, Vec::new()),
            }
        }
        Shape::Array => {
            let blocks = request.json("request")?;
            match carry {
                None => Ok(plain(blocks, None)),
                Some(messages) => {
                    let text = text_of_blocks(request)?;
                    let rest: Vec<Value> = blocks
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|b| b.get("type").and_then(Value::as_str) != Some("text"))
                        .cloned()
                        .collect();
                    carried(agent_type, defined, messages, &text, None, rest)
                }
            }
        }
        Shape::Object => {
            let prompt = host::field(request, "request.", "prompt")?;
            if prompt.shape() == Shape::String {
                // An AssemblerOutput: its instructions open a later prompt
                // (the session's own are set when it opens).
                let keys = request.own_keys();
                warnings.extend(crate::formats::input_keys::unknown_key_warnings_of(
                    "the request",
                    &keys,
                ));
                let prompt = prompt.text().unwrap_or_default();
                let flag = host::optional_string(
                    host::field(request, "request.", "systemFlag")?,
                    &|| "request.systemFlag".into(),
                )?;
                let mut prepared = match carry {
                    None => {
                        let text = match flag.as_deref().filter(|f| !f.is_empty()) {
                            Some(flag) => format!("{flag}\n\n{prompt}"),
                            None => prompt.clone(),
                        };
                        plain(json!([{ "type": "text", "text": text }]), Some(prompt))
                    }
                    Some(messages) => {
                        carried(agent_type, defined, messages, &prompt, None, Vec::new())?
                    }
                };
                prepared.warnings.splice(0..0, warnings);
                return Ok(prepared);
            }
            let names = ASSEMBLER_INPUT;
            let keys = request.own_keys();
            warnings.extend(crate::formats::input_keys::unknown_key_warnings(
                "assemble input",
                &keys,
                crate::formats::input_keys::ASSEMBLER_INPUT,
            ));
            let (fields, messages) = crate::prompt::host_input::assembler_input(request, &names)?;
            let mut prepared = match carry {
                None => {
                    let assembled = assemble_for_agent(
                        agent_type,
                        &fields,
                        &messages,
                        AssembleOptions::default(),
                    )?;
                    if !defined {
                        warnings.extend(assembled.warning);
                    }
                    let text = assembled.assembled.output.prompt;
                    plain(
                        json!([{ "type": "text", "text": text }]),
                        Some(fields.current_message.clone()),
                    )
                }
                Some(carried_messages) => {
                    let given: Vec<ContextMessage> = (0..messages.count())
                        .map(|i| messages.message(i).map(|m| m.into_owned()))
                        .collect::<Result<_>>()?;
                    let user = fields.current_message.clone();
                    carried(
                        agent_type,
                        defined,
                        carried_messages,
                        &user,
                        Some((fields, given)),
                        Vec::new(),
                    )?
                }
            };
            prepared.warnings.splice(0..0, warnings);
            Ok(prepared)
        }
        _ => Err(bad()),
    }
}

fn plain(blocks: Value, record_as: Option<String>) -> Prepared {
    Prepared {
        blocks,
        record_as,
        context: None,
        warnings: Vec::new(),
    }
}

/// `user` (the turn's words) with the conversation before it, assembled for
/// `agent_type` as a full prompt within its budget; `input`, the request's
/// own fields and context messages when it was an `AssemblerInput`; `rest`,
/// the request's blocks that are not text (attachments), after.
fn carried(
    agent_type: &str,
    defined: bool,
    conversation: &Carried,
    user: &str,
    input: Option<(PromptFields, Vec<ContextMessage>)>,
    rest: Vec<Value>,
) -> Result<Prepared> {
    let (mut fields, given) = input.unwrap_or_else(|| (PromptFields::default(), Vec::new()));
    fields.current_message = user.to_owned();
    let messages = &conversation.messages;
    let mut context: Vec<ContextMessage> = messages
        .iter()
        .map(|m| ContextMessage::new(&m.from, None, &m.content))
        .collect();
    context.extend(given);
    let assembled = assemble_for_agent(agent_type, &fields, &context, AssembleOptions::default())?;
    let output = assembled.assembled.output;
    let text = match output.system_flag.as_deref().filter(|f| !f.is_empty()) {
        Some(flag) => format!("{flag}\n\n{}", output.prompt),
        None => output.prompt,
    };
    let mut blocks = vec![json!({ "type": "text", "text": text })];
    blocks.extend(rest);
    let report = assembled.assembled.report;
    Ok(Prepared {
        blocks: Value::Array(blocks),
        record_as: Some(user.to_owned()),
        context: Some(CarriedContext {
            kind: "full",
            carried: messages.len(),
            dropped: report.messages_dropped,
            report,
            compacted: conversation.compacted.clone(),
            from: conversation.compacted.is_none().then_some("all"),
        }),
        warnings: match defined {
            true => Vec::new(),
            false => assembled.warning.into_iter().collect(),
        },
    })
}
