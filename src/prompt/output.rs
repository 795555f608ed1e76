//! What an assembler returns.

use serde::Serialize;

/// `{ prompt, systemFlag }`, the seed's `AssemblerOutput`. `systemFlag` is
/// `undefined` in JS unless the layout puts the instructions there (Claude).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssemblerOutput {
    pub prompt: String,
    pub system_flag: Option<String>,
}

impl AssemblerOutput {
    /// `{ prompt, systemFlag? }` read from JSON, its problems naming `what`
    /// (`assemblerOutput`, `request`).
    pub fn read(value: &serde_json::Value, what: &str) -> crate::error::Result<AssemblerOutput> {
        let o = crate::formats::json_read::Obj::new(value, what)?;
        Ok(AssemblerOutput {
            prompt: o.req_str("prompt")?.to_owned(),
            system_flag: o.opt_str("systemFlag")?.map(str::to_owned),
        })
    }

    /// The `[Debug][Send]` lines of what goes to `agent_type`: the system
    /// flag (when there is one), then the prompt, each with its size.
    pub fn send_lines(&self, agent_type: &str) -> Vec<String> {
        let mut lines = Vec::with_capacity(2);
        if let Some(flag) = &self.system_flag {
            lines.push(format!(
                "[Debug][Send] {agent_type} systemFlag ({} bytes):\n{flag}",
                flag.len()
            ));
        }
        lines.push(format!(
            "[Debug][Send] {agent_type} prompt ({} bytes):\n{}",
            self.prompt.len(),
            self.prompt
        ));
        lines
    }

    /// UTF-8 bytes counted against the budget: `prompt` plus `systemFlag`.
    pub fn byte_len(&self) -> usize {
        self.prompt.len() + self.system_flag.as_ref().map_or(0, String::len)
    }
}

/// What the budget engine did, in bytes of UTF-8.
///
/// The three `…BytesCut` figures are net reductions of the output (a
/// truncation marker that was added is subtracted), so
/// `bytesBefore - bytesAfter == contextBytesCut + messageBytesCut + instructionFileBytesCut`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrimReport {
    /// The budget the output was fitted to.
    pub max_bytes: u64,
    /// Size of the untrimmed output.
    pub bytes_before: u64,
    /// Size of the returned output (`prompt` + `systemFlag`).
    pub bytes_after: u64,
    /// Context messages given, kept and dropped (the dropped ones are the oldest).
    pub messages_total: u64,
    pub messages_kept: u64,
    pub messages_dropped: u64,
    /// Of `messages_dropped`, how many went only to keep the prompt's prefix
    /// stable (`cacheStable`, SPEC §14): at most `cacheBlock - 1`, 0 without it.
    pub messages_dropped_for_cache: u64,
    /// Bytes the dropped context lines (and, with none left, the context heading) took.
    pub context_bytes_cut: u64,
    /// Bytes of the current message removed (the `N` of its marker), and the net cut.
    pub message_bytes_removed: u64,
    pub message_bytes_cut: u64,
    /// Bytes of the instruction file text removed (the `N` of its marker), and the net cut.
    pub instruction_file_bytes_removed: u64,
    pub instruction_file_bytes_cut: u64,
}

impl TrimReport {
    /// Whether anything was dropped or cut.
    pub fn trimmed(&self) -> bool {
        self.bytes_after != self.bytes_before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_lines_show_the_flag_first_with_sizes() {
        let output = AssemblerOutput {
            prompt: "Hé".into(),
            system_flag: Some("Be brief".into()),
        };
        assert_eq!(
            output.send_lines("claude-code"),
            [
                "[Debug][Send] claude-code systemFlag (8 bytes):\nBe brief",
                "[Debug][Send] claude-code prompt (3 bytes):\nHé",
            ]
        );
        let inline = AssemblerOutput {
            system_flag: None,
            ..output
        };
        assert_eq!(inline.send_lines("x").len(), 1);
    }
}
