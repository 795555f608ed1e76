//! The reply's text as it grows, in the form its reader wants: UTF-8 for
//! Rust callers, UTF-16 code units for JavaScript (the JS binding hands the
//! units to the engine, which makes a string of them at the speed of a copy;
//! decoding the same text from UTF-8 costs several times more).

use agent_context_scan::utf16::push_utf16;

/// Which form the reply's text is kept in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextForm {
    Utf8,
    Utf16,
}

#[derive(Debug)]
pub enum ReplyText {
    Utf8(String),
    Utf16 {
        units: Vec<u16>,
        /// Units already handed out with earlier events.
        reported: usize,
    },
}

impl ReplyText {
    pub fn new(form: TextForm) -> Self {
        match form {
            TextForm::Utf8 => ReplyText::Utf8(String::new()),
            TextForm::Utf16 => ReplyText::Utf16 {
                units: Vec::new(),
                reported: 0,
            },
        }
    }

    /// Its length in its form's units (bytes, or UTF-16 code units).
    pub fn len(&self) -> usize {
        match self {
            ReplyText::Utf8(text) => text.len(),
            ReplyText::Utf16 { units, .. } => units.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        match self {
            ReplyText::Utf8(text) => text.is_empty(),
            ReplyText::Utf16 { units, .. } => units.is_empty(),
        }
    }

    /// Appends `separator` then `piece`; returns what an event says of it:
    /// the text added (UTF-8 form) or its number of code units (UTF-16 form,
    /// where the text itself is read with [`take_new_units`](Self::take_new_units)).
    pub fn push(&mut self, separator: &str, piece: &str) -> Added {
        match self {
            ReplyText::Utf8(text) => {
                let start = text.len();
                text.push_str(separator);
                text.push_str(piece);
                Added::Text(start)
            }
            ReplyText::Utf16 { units, .. } => {
                Added::Units(push_utf16(units, separator) + push_utf16(units, piece))
            }
        }
    }

    /// UTF-16 form: appends `separator` then `piece` (code units) and
    /// returns how many units were added; `None` (nothing done) in UTF-8 form.
    pub fn push_units(&mut self, separator: &str, piece: &[u16]) -> Option<usize> {
        match self {
            ReplyText::Utf8(_) => None,
            ReplyText::Utf16 { units, .. } => {
                let n = push_utf16(units, separator);
                units.extend_from_slice(piece);
                Some(n + piece.len())
            }
        }
    }

    pub fn form(&self) -> TextForm {
        match self {
            ReplyText::Utf8(_) => TextForm::Utf8,
            ReplyText::Utf16 { .. } => TextForm::Utf16,
        }
    }

    /// The text added since `start` (UTF-8 form; empty in UTF-16 form).
    pub fn since(&self, start: usize) -> String {
        match self {
            ReplyText::Utf8(text) => text[start..].to_owned(),
            ReplyText::Utf16 { .. } => String::new(),
        }
    }

    /// UTF-16 form: the code units added since the last call.
    pub fn take_new_units(&mut self) -> &[u16] {
        match self {
            ReplyText::Utf8(_) => &[],
            ReplyText::Utf16 { units, reported } => {
                let start = std::mem::replace(reported, units.len());
                &units[start..]
            }
        }
    }

    /// The whole text: a `String` in UTF-8 form (and no units), the code
    /// units in UTF-16 form (and an empty `String`).
    pub fn into_parts(self) -> (String, Vec<u16>) {
        match self {
            ReplyText::Utf8(text) => (text, Vec::new()),
            ReplyText::Utf16 { units, .. } => (String::new(), units),
        }
    }
}

/// What [`ReplyText::push`] added.
pub enum Added {
    /// UTF-8 form: the byte offset where the addition starts.
    Text(usize),
    /// UTF-16 form: how many code units were added.
    Units(usize),
}
