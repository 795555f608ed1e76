//! The byte-budget engine shared by every assembler (SPEC §3).
//!
//! Sizes are computed, not measured: the engine knows each section's length
//! arithmetically, decides every cut up front, and writes the output once. It
//! reads context messages newest first and stops at the first one that does
//! not fit, so its cost follows what is kept, not how long the history is.
//!
//! Trimming, cheapest first:
//! 1. drop context messages, oldest first, each one whole (with none left the
//!    context section, heading included, disappears);
//! 2. cut the current message to head + marker + tail, keeping at least
//!    `min(2048, its size)` bytes of it;
//! 3. cut the instruction file text the same way, down to nothing;
//! 4. otherwise fail with `BUDGET_EXCEEDED`, naming the minimum size.
//!
//! `systemInstruction` and `teamTask` are never cut.

use std::borrow::Cow;
use std::num::NonZeroUsize;

use crate::error::{AgentContextError, ErrorCode, Result};
use crate::prompt::cache_stable::messages_to_drop;
use crate::prompt::input::{AssemblerInput, ContextMessage, ContextSource, PromptFields};
use crate::prompt::layout::{InstructionPlacement, Layout};
use crate::prompt::output::{AssemblerOutput, TrimReport};
use crate::prompt::text::js_trim;
use crate::prompt::truncate::{cut_keeping, cut_to_fit, Cut};

/// The current message is never cut below this many bytes (or its whole size).
pub const MESSAGE_MIN_KEEP: usize = 2048;

const SECTION_SEPARATOR: &str = "\n\n";
const INSTRUCTION_JOINER: &str = "\n\n";

/// Options of one assembly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AssembleOptions {
    /// Compute `report.bytesBefore` and `report.contextBytesCut` exactly. This
    /// reads the dropped messages too (their lengths only), so it costs time in
    /// proportion to the whole history; without it both are left at 0 when
    /// messages were dropped.
    pub measure_dropped: bool,
    /// Cache-stable trimming (SPEC §14): when messages must be dropped, drop
    /// a multiple of this many (all of them at most). `None`: the minimum.
    pub cache_block: Option<NonZeroUsize>,
}

/// The result of one assembly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assembled {
    pub output: AssemblerOutput,
    pub report: TrimReport,
    /// One line per trimming decision, for `[Debug][Trim]` logging.
    pub decisions: Vec<String>,
}

impl Assembled {
    /// The `[Debug]` lines of this assembly for `agent_type`: each trimming
    /// decision (`[Debug][Trim] none: …` when there was none), then what is
    /// sent.
    pub fn debug_lines(&self, agent_type: &str) -> Vec<String> {
        let r = &self.report;
        let mut lines = Vec::with_capacity(self.decisions.len() + 3);
        if self.decisions.is_empty() {
            lines.push(format!(
                "[Debug][Trim] none: {} of {} bytes",
                r.bytes_after, r.max_bytes
            ));
        }
        for decision in &self.decisions {
            lines.push(format!("[Debug][Trim] {decision}"));
        }
        lines.extend(self.output.send_lines(agent_type));
        lines
    }
}

/// The trimmed scalar fields.
struct Scalars<'a> {
    system: &'a str,
    file: &'a str,
    team: &'a str,
    message: &'a str,
}

/// Computes the output size for given section sizes.
pub(crate) struct Sizer<'a> {
    pub(crate) layout: &'a Layout,
    pub(crate) system: u64,
    pub(crate) team: u64,
}

impl Sizer<'_> {
    /// Total bytes (`prompt` + `systemFlag`) for a context section of
    /// `context` line bytes (`None`: no section), a message body of `message`
    /// bytes and an instruction file body of `file` bytes.
    pub(crate) fn total(&self, context: Option<u64>, message: u64, file: u64) -> u64 {
        let l = self.layout;
        let instructions = match (self.system, file) {
            (0, f) => f,
            (s, 0) => s,
            (s, f) => s + INSTRUCTION_JOINER.len() as u64 + f,
        };
        let mut prompt = 0u64;
        let mut sections = 0u64;
        let mut flag = 0u64;
        let mut add = |len: u64| {
            prompt += len;
            sections += 1;
        };
        if instructions > 0 {
            match l.instructions {
                InstructionPlacement::SystemFlag => flag = instructions,
                InstructionPlacement::Inline { header } => add(header.len() as u64 + instructions),
            }
        }
        if self.team > 0 {
            add(l.team_header.len() as u64 + self.team);
        }
        if let Some(lines) = context {
            add(l.context_header.len() as u64 + lines);
        }
        if message > 0 {
            add(l.message_header.len() as u64 + message);
        }
        let separators = sections.saturating_sub(1) * SECTION_SEPARATOR.len() as u64;
        prompt + separators + flag
    }
}

/// Bytes of one context line (newline excluded) from the sizes of its parts;
/// `to` is 0 when the recipient is missing or empty.
pub(crate) fn line_size(layout: &Layout, from: u64, to: u64, content: u64) -> u64 {
    let recipient = if layout.line_shows_recipient && to > 0 {
        " -> ".len() as u64 + to
    } else {
        0
    };
    layout.line_prefix.len() as u64 + from + recipient + ": ".len() as u64 + content
}

fn line_len(layout: &Layout, m: &ContextMessage) -> u64 {
    let to = m.to.as_ref().map_or(0, |t| t.len() as u64);
    line_size(layout, m.from.len() as u64, to, m.content.len() as u64)
}

fn write_line(layout: &Layout, m: &ContextMessage, out: &mut String) {
    out.push_str(layout.line_prefix);
    out.push_str(&m.from);
    if let (Some(to), true) = (&m.to, layout.line_shows_recipient) {
        if !to.is_empty() {
            out.push_str(" -> ");
            out.push_str(to);
        }
    }
    out.push_str(": ");
    out.push_str(&m.content);
}

/// A text that is either whole or cut.
#[derive(Clone, Copy)]
struct Piece<'a> {
    text: &'a str,
    cut: Option<Cut>,
    dropped: bool,
}

impl<'a> Piece<'a> {
    fn whole(text: &'a str) -> Self {
        Piece {
            text,
            cut: None,
            dropped: false,
        }
    }
    fn len(&self) -> u64 {
        if self.dropped {
            0
        } else {
            self.cut
                .map_or(self.text.len() as u64, |c| c.body_len(self.text.len()))
        }
    }
    fn removed(&self) -> u64 {
        if self.dropped {
            self.text.len() as u64
        } else {
            self.cut.map_or(0, |c| c.removed())
        }
    }
    fn write(&self, out: &mut String) {
        if self.dropped {
            return;
        }
        match self.cut {
            Some(cut) => cut.write(self.text, out),
            None => out.push_str(self.text),
        }
    }
}

impl Layout {
    /// `assembler.assemble(input)` for a whole input held in Rust.
    pub fn assemble(&self, input: &AssemblerInput) -> Result<AssemblerOutput> {
        assemble(
            self,
            &input.fields,
            &input.context_messages,
            AssembleOptions::default(),
        )
        .map(|a| a.output)
    }
}

/// Assembles `fields` and `context` as `layout` says, within `fields.max_bytes`.
pub fn assemble(
    layout: &Layout,
    fields: &PromptFields,
    context: &dyn ContextSource,
    options: AssembleOptions,
) -> Result<Assembled> {
    let s = Scalars {
        system: js_trim(&fields.system_instruction),
        file: js_trim(&fields.instruction_file_text),
        team: js_trim(&fields.team_task),
        message: js_trim(&fields.current_message),
    };
    let budget = fields.max_bytes;
    let sizer = Sizer {
        layout,
        system: s.system.len() as u64,
        team: s.team.len() as u64,
    };
    let mut decisions = Vec::new();
    let mut message = Piece::whole(s.message);
    let mut file = Piece::whole(s.file);

    // Step 1: keep the newest messages that fit, reading newest first.
    let total_messages = context.count();
    let mut kept: Vec<Cow<'_, ContextMessage>> = Vec::new();
    let mut lines_bytes = 0u64;
    if sizer.total(None, message.len(), file.len()) <= budget {
        for index in (0..total_messages).rev() {
            let m = context.message(index)?;
            let len = line_len(layout, &m);
            let next = if kept.is_empty() {
                len
            } else {
                lines_bytes + 1 + len
            };
            if sizer.total(Some(next), message.len(), file.len()) > budget {
                break;
            }
            lines_bytes = next;
            kept.push(m);
        }
    }
    kept.reverse();
    let minimum_dropped = total_messages - kept.len();
    let dropped = messages_to_drop(minimum_dropped, total_messages, options.cache_block);
    let dropped_for_cache = dropped - minimum_dropped;
    if dropped_for_cache == kept.len() {
        kept.clear();
        lines_bytes = 0;
    } else {
        for m in kept.drain(..dropped_for_cache) {
            lines_bytes -= line_len(layout, &m) + 1;
        }
    }
    if dropped > 0 {
        decisions.push(format!(
            "CONTEXT trimmed to {} messages (dropped the {} oldest of {})",
            kept.len(),
            dropped,
            total_messages
        ));
    }
    if dropped_for_cache > 0 {
        decisions.push(format!(
            "CONTEXT: {dropped_for_cache} of them dropped beyond the minimum, so that the \
             prompt's prefix stays cached (cacheBlock {})",
            options.cache_block.map_or(0, NonZeroUsize::get)
        ));
    }
    let context_lines = (!kept.is_empty()).then_some(lines_bytes);

    // Step 2: cut the current message, never below min(2048, its size).
    if sizer.total(context_lines, message.len(), file.len()) > budget {
        let fixed = sizer.total(context_lines, 1, file.len()) - 1;
        let room = budget.saturating_sub(fixed);
        let min_keep = MESSAGE_MIN_KEEP.min(s.message.len());
        let smallest = cut_keeping(s.message, min_keep)
            .filter(|c| c.body_len(s.message.len()) < s.message.len() as u64);
        message.cut = match cut_to_fit(s.message, room) {
            Some(c) if (s.message.len() as u64 - c.removed()) >= min_keep as u64 => Some(c),
            _ => smallest,
        };
        if let Some(c) = message.cut {
            decisions.push(format!(
                "MESSAGE truncated from {} to {} bytes ({} removed)",
                s.message.len(),
                message.len(),
                c.removed()
            ));
        }
    }

    // Step 3: cut the instruction file text, down to nothing.
    if sizer.total(context_lines, message.len(), file.len()) > budget && !s.file.is_empty() {
        let fixed = sizer.total(context_lines, message.len(), 1) - 1;
        let room = budget.saturating_sub(fixed);
        match cut_to_fit(s.file, room) {
            Some(c) => file.cut = Some(c),
            None => file.dropped = true,
        }
        decisions.push(if file.dropped {
            format!("INSTRUCTION FILE dropped ({} bytes)", s.file.len())
        } else {
            format!(
                "INSTRUCTION FILE truncated from {} to {} bytes ({} removed)",
                s.file.len(),
                file.len(),
                file.removed()
            )
        });
    }

    // Step 4: nothing else may be cut.
    let after = sizer.total(context_lines, message.len(), file.len());
    if after > budget {
        return Err(AgentContextError::budget_exceeded(
            after,
            budget,
            format!(
                "maxBytes is {budget} but the output needs at least {after} bytes \
                 (systemInstruction and teamTask are never cut, the current message \
                 keeps at least {} bytes)",
                MESSAGE_MIN_KEEP.min(s.message.len())
            ),
        ));
    }

    let output = render(layout, &s, &kept, message, file, after)?;

    // Net cuts, section by section, so that they add up to before - after.
    let (full_message, full_file) = (s.message.len() as u64, s.file.len() as u64);
    let with_kept_context = sizer.total(context_lines, full_message, full_file);
    let message_cut = with_kept_context - sizer.total(context_lines, message.len(), full_file);
    let file_cut = sizer.total(context_lines, message.len(), full_file) - after;
    let before = if dropped == 0 {
        Some(with_kept_context)
    } else if options.measure_dropped {
        let mut dropped_lines = 0u64; // each line with its newline
        for index in 0..dropped {
            dropped_lines += line_len(layout, &*context.message(index)?) + 1;
        }
        let all_lines = if kept.is_empty() {
            dropped_lines - 1
        } else {
            lines_bytes + dropped_lines
        };
        Some(sizer.total(Some(all_lines), full_message, full_file))
    } else {
        None
    };
    let report = TrimReport {
        max_bytes: budget,
        bytes_before: before.unwrap_or(0),
        bytes_after: after,
        messages_total: total_messages as u64,
        messages_kept: kept.len() as u64,
        messages_dropped: dropped as u64,
        messages_dropped_for_cache: dropped_for_cache as u64,
        context_bytes_cut: before.map_or(0, |b| b - with_kept_context),
        message_bytes_removed: message.removed(),
        message_bytes_cut: message_cut,
        instruction_file_bytes_removed: file.removed(),
        instruction_file_bytes_cut: file_cut,
    };
    Ok(Assembled {
        output,
        report,
        decisions,
    })
}

/// Writes the output whose size the engine computed as `expected`.
fn render(
    layout: &Layout,
    s: &Scalars<'_>,
    kept: &[Cow<'_, ContextMessage>],
    message: Piece<'_>,
    file: Piece<'_>,
    expected: u64,
) -> Result<AssemblerOutput> {
    let mut instructions = String::new();
    if !s.system.is_empty() {
        instructions.push_str(s.system);
    }
    if file.len() > 0 {
        if !instructions.is_empty() {
            instructions.push_str(INSTRUCTION_JOINER);
        }
        file.write(&mut instructions);
    }

    let mut prompt = String::with_capacity(usize::try_from(expected).unwrap_or(0));
    let start_section = |prompt: &mut String, header: &str| {
        if !prompt.is_empty() {
            prompt.push_str(SECTION_SEPARATOR);
        }
        prompt.push_str(header);
    };
    let mut system_flag = None;
    if !instructions.is_empty() {
        match layout.instructions {
            InstructionPlacement::SystemFlag => system_flag = Some(instructions),
            InstructionPlacement::Inline { header } => {
                start_section(&mut prompt, header);
                prompt.push_str(&instructions);
            }
        }
    }
    if !s.team.is_empty() {
        start_section(&mut prompt, layout.team_header);
        prompt.push_str(s.team);
    }
    if !kept.is_empty() {
        start_section(&mut prompt, layout.context_header);
        for (i, m) in kept.iter().enumerate() {
            if i > 0 {
                prompt.push('\n');
            }
            write_line(layout, m, &mut prompt);
        }
    }
    if !s.message.is_empty() {
        start_section(&mut prompt, layout.message_header);
        message.write(&mut prompt);
    }

    let output = AssemblerOutput {
        prompt,
        system_flag,
    };
    if output.byte_len() as u64 != expected {
        return Err(AgentContextError::new(
            ErrorCode::Internal,
            format!(
                "assembled {} bytes where {} were computed; please report this",
                output.byte_len(),
                expected
            ),
        ));
    }
    Ok(output)
}
