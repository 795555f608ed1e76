//! An `AssemblerInput` read from the caller's values ([`HostValue`]): its
//! scalar fields at once, its `contextMessages` one message at a time when
//! the budget reaches it, and a budget in bytes.

use std::borrow::Cow;

use crate::error::{AgentContextError, Result};
use crate::formats::host_value::{
    field, get, must_be, object, optional_string, required_string, HostValue, Shape,
};
use crate::prompt::input::{
    max_bytes_from_number, ContextMessage, ContextSource, FieldNames, PromptFields,
    DEFAULT_MAX_BYTES,
};

/// A budget in bytes; `undefined` (and `null` when `null_is_default`): the
/// default. `prefix` goes before the field's name in the message.
pub fn max_bytes<V: HostValue>(value: &V, prefix: &str, null_is_default: bool) -> Result<u64> {
    match value.shape() {
        Shape::Undefined => Ok(DEFAULT_MAX_BYTES),
        Shape::Null if null_is_default => Ok(DEFAULT_MAX_BYTES),
        Shape::Number(n) => max_bytes_from_number(n)
            .map_err(|e| AgentContextError::invalid(format!("{prefix}{}", e.message()))),
        _ => Err(must_be(
            &format!("{prefix}maxBytes"),
            "a finite number >= 0",
            value,
        )),
    }
}

/// An array of `{ from, to?, content }` read one element at a time, when
/// the budget asks for it.
pub struct MessageArray<V: HostValue> {
    array: V,
    keys: [V::Key; 3],
    /// The array's name in error messages.
    name: &'static str,
}

impl<V: HostValue> MessageArray<V> {
    /// `messages` (named `name` in errors), which must be an array.
    pub fn new(messages: V, name: &'static str) -> Result<Self> {
        if messages.shape() != Shape::Array {
            return Err(must_be(name, "an array", &messages));
        }
        Ok(MessageArray {
            array: messages,
            keys: [V::key("from"), V::key("to"), V::key("content")],
            name,
        })
    }

    /// The array itself.
    pub fn array(&self) -> &V {
        &self.array
    }

    /// Message `index` as given, checked to be an object.
    pub fn item(&self, index: usize) -> Result<V> {
        let path = || format!("{}[{index}]", self.name);
        let item = self.array.item(index).map_err(|thrown| {
            AgentContextError::invalid(format!("{} could not be read: {thrown}", path()))
        })?;
        object(&item, &path(), "an object")?;
        Ok(item)
    }

    fn text(&self, item: &V, index: usize, key: usize, name: &str) -> Result<V> {
        get(item, &self.keys[key], &|| {
            format!("{}[{index}].{name}", self.name)
        })
    }

    fn route_of(&self, item: &V, index: usize) -> Result<(String, Option<String>)> {
        let path = |name: &'static str| move || format!("{}[{index}].{name}", self.name);
        let from = required_string(self.text(item, index, 0, "from")?, &path("from"))?;
        let to = optional_string(self.text(item, index, 1, "to")?, &path("to"))?;
        Ok((from, to))
    }
}

impl<V: HostValue> ContextSource for MessageArray<V> {
    fn count(&self) -> usize {
        self.array.length()
    }

    fn message(&self, index: usize) -> Result<Cow<'_, ContextMessage>> {
        let item = self.item(index)?;
        let (from, to) = self.route_of(&item, index)?;
        let path = || format!("{}[{index}].content", self.name);
        let content = required_string(self.text(&item, index, 2, "content")?, &path)?;
        Ok(Cow::Owned(ContextMessage { from, to, content }))
    }

    fn route(&self, index: usize) -> Result<(String, Option<String>)> {
        self.route_of(&self.item(index)?, index)
    }
}

/// An input object's scalar fields now, its `contextMessages` lazily.
pub fn assembler_input<V: HostValue>(
    input: &V,
    names: &FieldNames,
) -> Result<(PromptFields, MessageArray<V>)> {
    object(input, "input", "an object")?;
    let text = |name: &str| -> Result<String> {
        let path = || name.to_owned();
        Ok(optional_string(get(input, &V::key(name), &path)?, &path)?.unwrap_or_default())
    };
    let fields = PromptFields {
        current_message: text(names.current_message)?,
        team_task: text(names.team_task)?,
        system_instruction: text(names.system_instruction)?,
        instruction_file_text: text(names.instruction_file_text)?,
        max_bytes: max_bytes(&field(input, "", "maxBytes")?, "", false)?,
    };
    let messages = field(input, "", "contextMessages")?;
    Ok((fields, MessageArray::new(messages, "contextMessages")?))
}
