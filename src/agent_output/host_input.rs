//! The arguments of `parseAgentOutput`, `AgentOutputParser` and
//! `mergeAgentOutputFile` read from the caller's values.

use crate::error::Result;
use crate::formats::host_value::{self as host, HostValue};
use crate::launch::invocation::OutputKind;

use super::{merged_usage, usage_from_json, Protocol, Usage};

impl Protocol {
    /// `options.protocol`: left out (or no options), the agent's default
    /// (`'cli'`, or `'acp'` for an agent that speaks ACP only); else `'cli'`
    /// or `'acp'`.
    pub fn from_options<V: HostValue>(agent_type: &str, options: Option<&V>) -> Result<Protocol> {
        let Some(options) = options else {
            return Protocol::for_agent(agent_type, None);
        };
        host::object(options, "options", "an object { protocol? }")?;
        let path = || "options.protocol".to_owned();
        let name = host::optional_string(host::field(options, "options.", "protocol")?, &path)?;
        Protocol::for_agent(agent_type, name.as_deref())
    }
}

/// The reply's usage with what `file` (`{ kind, content }`, a file the CLI
/// wrote) says put over it.
pub fn merged_file_usage<V: HostValue>(agent_type: &str, reply: &V, file: &V) -> Result<Usage> {
    host::object(reply, "reply", "an object (an AgentReply)")?;
    host::object(file, "file", "an object { kind, content }")?;
    let kind = file.field(&V::key("kind")).ok();
    let kind = kind.as_ref();
    let known = kind.and_then(V::text).and_then(|k| OutputKind::parse(&k));
    let Some(kind) = known else {
        let got = kind.map_or("undefined", host::type_name);
        return Err(crate::error::AgentContextError::invalid(format!(
            "file.kind must be 'usage', got {got}"
        )));
    };
    let content = file.field(&V::key("content")).ok();
    let content = match content.as_ref().and_then(V::text) {
        Some(text) => text,
        None => {
            let got = content.as_ref().map_or("undefined", host::type_name);
            return Err(crate::error::AgentContextError::invalid(format!(
                "file.content must be a string, got {got}"
            )));
        }
    };
    let usage = match reply.field(&V::key("usage")) {
        Ok(usage) if !host::is_absent(&usage) => Some(usage_from_json(&usage.json("reply.usage")?)),
        _ => None,
    };
    merged_usage(agent_type, usage, kind, &content)
}
