//! What an assembler reads: the scalar fields of `AssemblerInput` and a source
//! of context messages.
//!
//! The context messages come through [`ContextSource`] so the budget engine can
//! read them newest first and stop at the first one that no longer fits: the
//! JS binding reads a message from the JS array only when the engine asks for
//! it, so messages older than the budget allows are never copied.

use std::borrow::Cow;

use crate::error::{AgentContextError, Result};
use crate::formats::input_keys;
use crate::formats::js_number::{js_number_text, MAX_SAFE_INTEGER};

/// 768 KiB: the budget when `maxBytes` is missing.
pub const DEFAULT_MAX_BYTES: u64 = 786_432;

/// One entry of `contextMessages`: `{ from, to?, content, timestamp? }`.
/// `timestamp` is accepted and ignored, as in the seeds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContextMessage {
    pub from: String,
    pub to: Option<String>,
    pub content: String,
}

impl ContextMessage {
    pub fn new(from: &str, to: Option<&str>, content: &str) -> Self {
        ContextMessage {
            from: from.to_owned(),
            to: to.map(str::to_owned),
            content: content.to_owned(),
        }
    }
}

/// Random access to `contextMessages`, oldest at index 0.
pub trait ContextSource {
    /// How many messages there are.
    fn count(&self) -> usize;
    /// Reads message `index`; a malformed entry is an `INVALID_INPUT` error
    /// naming `contextMessages[index]…`.
    fn message(&self, index: usize) -> Result<Cow<'_, ContextMessage>>;
    /// `from` and `to` of message `index`, for deciding whom it concerns; a
    /// source that can read them without the content overrides this.
    fn route(&self, index: usize) -> Result<(String, Option<String>)> {
        let m = self.message(index)?;
        Ok((m.from.clone(), m.to.clone()))
    }
}

impl ContextSource for [ContextMessage] {
    fn count(&self) -> usize {
        self.len()
    }
    fn message(&self, index: usize) -> Result<Cow<'_, ContextMessage>> {
        self.get(index).map(Cow::Borrowed).ok_or_else(|| {
            AgentContextError::invalid(format!("contextMessages[{index}] is missing"))
        })
    }
}

impl ContextSource for Vec<ContextMessage> {
    fn count(&self) -> usize {
        self.len()
    }
    fn message(&self, index: usize) -> Result<Cow<'_, ContextMessage>> {
        self.as_slice().message(index)
    }
}

/// The scalar fields of `AssemblerInput`, as given (the assembler trims them).
/// A missing or `null` string is the empty string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptFields {
    pub current_message: String,
    pub team_task: String,
    pub system_instruction: String,
    pub instruction_file_text: String,
    /// Budget in UTF-8 bytes.
    pub max_bytes: u64,
}

impl Default for PromptFields {
    fn default() -> Self {
        PromptFields {
            current_message: String::new(),
            team_task: String::new(),
            system_instruction: String::new(),
            instruction_file_text: String::new(),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// A whole `AssemblerInput` held in Rust (native callers and tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssemblerInput {
    pub fields: PromptFields,
    pub context_messages: Vec<ContextMessage>,
}

/// Checks a JS number given as `maxBytes`: finite and `>= 0`; a fraction is
/// rounded down (a budget counts whole bytes), and a budget beyond
/// `Number.MAX_SAFE_INTEGER` is that (no output comes near it), so every figure
/// of the trim report is an exact JS number.
pub fn max_bytes_from_number(value: f64) -> Result<u64> {
    if !value.is_finite() || value < 0.0 {
        return Err(AgentContextError::invalid(format!(
            "maxBytes must be a finite number >= 0, got {}",
            js_number_text(value)
        )));
    }
    // `as` saturates; the value is finite and non-negative here.
    Ok((value.floor() as u64).min(MAX_SAFE_INTEGER))
}

/// The JS names of the fields an assembler reads: `AssemblerInput` and seed
/// 002's `PromptInput` name three of them differently.
pub struct FieldNames {
    /// The input type's name in warnings, e.g. `AssemblerInput`.
    pub label: &'static str,
    /// Every key the input type knows (see `crate::formats::input_keys`).
    pub known_keys: &'static [&'static str],
    pub current_message: &'static str,
    pub team_task: &'static str,
    pub system_instruction: &'static str,
    pub instruction_file_text: &'static str,
}

/// `AssemblerInput`.
pub const ASSEMBLER_INPUT: FieldNames = FieldNames {
    label: "AssemblerInput",
    known_keys: input_keys::ASSEMBLER_INPUT,
    current_message: "currentMessage",
    team_task: "teamTask",
    system_instruction: "systemInstruction",
    instruction_file_text: "instructionFileText",
};

/// Seed 002's `PromptInput` (plus the optional `teamTask` and `maxBytes`).
pub const PROMPT_INPUT: FieldNames = FieldNames {
    label: "PromptInput",
    known_keys: input_keys::PROMPT_INPUT,
    current_message: "message",
    team_task: "teamTask",
    system_instruction: "systemInstructionText",
    instruction_file_text: "instructionFileText",
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn max_bytes_validation() {
        assert_eq!(max_bytes_from_number(0.0), Ok(0));
        assert_eq!(max_bytes_from_number(100.9), Ok(100));
        assert_eq!(max_bytes_from_number(2f64.powi(53)), Ok(MAX_SAFE_INTEGER));
        assert_eq!(max_bytes_from_number(f64::MAX), Ok(MAX_SAFE_INTEGER));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, -0.5] {
            let err = max_bytes_from_number(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput);
            assert!(err.message().starts_with("maxBytes must be"), "{err}");
        }
    }

    #[test]
    fn slice_source_names_missing_index() {
        let v: Vec<ContextMessage> = vec![];
        let err = v.message(3).unwrap_err();
        assert_eq!(err.message(), "contextMessages[3] is missing");
    }
}
