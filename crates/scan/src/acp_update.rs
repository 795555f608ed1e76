//! An ACP `session/update` notification line (JSON-RPC, the Agent Client
//! Protocol) read from its UTF-8 bytes or the UTF-16 units of a JS string,
//! for the kinds that make up most of an agent's output: message and thought
//! chunks, `usage_update`, and the kinds that say nothing to a reply
//! (`available_commands_update`, …), which are skipped at the speed of a
//! string scan.
//!
//! The whole line is checked to be one JSON object (strings without `\u`
//! escapes or control characters, numbers without exponents, nesting below
//! [`MAX_DEPTH`]); anything else, or any field this reader does not take
//! (a `cost` it cannot read, another method, a repeated key), is `None`, for
//! a full JSON parser to decide. Tool calls, and the values a caller reads
//! with a JSON parser of its own (`_meta`, `rawInput`, …), come back as
//! their raw text ([`Raw`]): the line has been checked, so those values can
//! be parsed alone. A line taken here reads the same as it would there
//! (agent-context's property tests and fuzz target check it).

use crate::json_string::{string_end, DecodeUnit};
use crate::unit::{eq_ascii, Unit};

/// Deeper nesting is left to the full parser.
pub const MAX_DEPTH: u32 = 64;

/// What an update line is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    MessageChunk,
    ThoughtChunk,
    Usage,
    /// `tool_call`: its fields in [`Raw`].
    ToolCall,
    /// `tool_call_update`: its fields in [`Raw`].
    ToolCallUpdate,
    /// Known, and nothing a reply holds.
    Quiet,
}

/// The raw JSON text (checked, whitespace around it left out) of the
/// update's fields a caller parses itself, when present.
#[derive(Debug)]
pub struct Raw<'a, U> {
    pub meta: Option<&'a [U]>,
    pub content: Option<&'a [U]>,
    pub tool_call_id: Option<&'a [U]>,
    pub status: Option<&'a [U]>,
    pub kind: Option<&'a [U]>,
    pub title: Option<&'a [U]>,
    pub raw_input: Option<&'a [U]>,
    pub raw_output: Option<&'a [U]>,
}

impl<U> Default for Raw<'_, U> {
    fn default() -> Self {
        Raw {
            meta: None,
            content: None,
            tool_call_id: None,
            status: None,
            kind: None,
            title: None,
            raw_input: None,
            raw_output: None,
        }
    }
}

/// The fields of an update line that matter.
#[derive(Debug)]
pub struct Update<'a, U> {
    /// `params.sessionId`, without escapes.
    pub session_id: Option<&'a [U]>,
    pub kind: Kind,
    /// `content.text` was a string (decoded into the caller's buffer) in a
    /// `content` of type `text` (or none).
    pub text: bool,
    /// The chunk's `messageId` (opencode), without escapes.
    pub message_id: Option<&'a [U]>,
    /// `usage_update.used` and `.size`, when whole numbers.
    pub used: Option<u64>,
    pub size: Option<u64>,
    /// `cost.amount` (a number, raw) when `cost.currency` is `USD`.
    pub cost_usd: Option<&'a [U]>,
    /// The fields read from their JSON text.
    pub raw: Raw<'a, U>,
}

/// A line of UTF-8 bytes as an update this reader takes, its content text
/// decoded into `text` as UTF-16; or `None`.
#[inline(never)]
pub fn scan<'a>(line: &'a [u8], text: &mut Vec<u16>) -> Option<Update<'a, u8>> {
    scan_units(line, text)
}

/// [`scan`] for a line of UTF-16 units (a JS string's).
#[inline(never)]
pub fn scan_utf16<'a>(line: &'a [u16], text: &mut Vec<u16>) -> Option<Update<'a, u16>> {
    scan_units(line, text)
}

fn scan_units<'a, U: DecodeUnit>(line: &'a [U], text: &mut Vec<u16>) -> Option<Update<'a, U>> {
    let mut update = None;
    let mut method = false;
    let mut seen = [false; 3];
    let end = object(line, skip_ws(line, 0), &mut |key, at| {
        let which = [&b"jsonrpc"[..], b"method", b"params"]
            .iter()
            .position(|name| eq_ascii(key, name))?;
        if std::mem::replace(&mut seen[which], true) {
            return None;
        }
        match which {
            0 => skip_value(line, at, 1),
            1 => {
                let (value, end) = plain_string(line, at)?;
                method = eq_ascii(value, b"session/update");
                Some(end)
            }
            _ => {
                let (found, end) = params(line, at, text)?;
                update = Some(found);
                Some(end)
            }
        }
    })?;
    if !method || skip_ws(line, end) != line.len() {
        return None;
    }
    update
}

/// `params`: `sessionId` and `update`; other keys skipped.
#[inline(never)]
fn params<'a, U: DecodeUnit>(
    line: &'a [U],
    at: usize,
    text: &mut Vec<u16>,
) -> Option<(Update<'a, U>, usize)> {
    let mut session_id = None;
    let mut update = None;
    let end = object(line, at, &mut |key, at| {
        if eq_ascii(key, b"sessionId") {
            if session_id.is_some() {
                return None;
            }
            let (value, end) = plain_string(line, at)?;
            session_id = Some(value);
            Some(end)
        } else if eq_ascii(key, b"update") {
            if update.is_some() {
                return None;
            }
            let (found, end) = update_object(line, at, text)?;
            update = Some(found);
            Some(end)
        } else {
            skip_value(line, at, 2)
        }
    })?;
    let mut update = update?;
    update.session_id = session_id;
    Some((update, end))
}

#[inline(never)]
fn update_object<'a, U: DecodeUnit>(
    line: &'a [U],
    at: usize,
    text: &mut Vec<u16>,
) -> Option<(Update<'a, U>, usize)> {
    let mut kind = None;
    let mut has_text = false;
    let mut message_id = None;
    let (mut used, mut size) = (None, None);
    let mut cost_usd = None;
    let mut raw = Raw::default();
    let mut seen = [false; 13];
    let end = object(line, at, &mut |key, at| {
        let which = [
            &b"sessionUpdate"[..],
            b"content",
            b"messageId",
            b"used",
            b"size",
            b"cost",
            b"_meta",
            b"toolCallId",
            b"status",
            b"kind",
            b"title",
            b"rawInput",
            b"rawOutput",
        ]
        .iter()
        .position(|name| eq_ascii(key, name));
        let Some(which) = which else {
            return skip_value(line, at, 3);
        };
        if std::mem::replace(&mut seen[which], true) {
            return None;
        }
        let field = match which {
            0 => {
                let (value, end) = plain_string(line, at)?;
                kind = Some(value);
                return Some(end);
            }
            1 => {
                // A message's text block is decoded here; any other value
                // (a tool's list of blocks) is only kept raw.
                let end = if line.get(at)?.value() == u32::from(b'{') {
                    let (found, end) = content(line, at, text)?;
                    has_text = found;
                    end
                } else {
                    skip_value(line, at, 3)?
                };
                raw.content = Some(&line[at..end]);
                return Some(end);
            }
            2 => {
                let (value, end) = plain_string(line, at)?;
                message_id = Some(value);
                return Some(end);
            }
            3 => {
                let (value, end) = whole_number(line, at)?;
                used = Some(value);
                return Some(end);
            }
            4 => {
                let (value, end) = whole_number(line, at)?;
                size = Some(value);
                return Some(end);
            }
            5 => {
                let (amount, end) = cost(line, at)?;
                cost_usd = amount;
                return Some(end);
            }
            6 => &mut raw.meta,
            7 => &mut raw.tool_call_id,
            8 => &mut raw.status,
            9 => &mut raw.kind,
            10 => &mut raw.title,
            11 => &mut raw.raw_input,
            _ => &mut raw.raw_output,
        };
        let end = skip_value(line, at, 3)?;
        *field = Some(&line[at..end]);
        Some(end)
    })?;
    let kind = kind?;
    let kind = if eq_ascii(kind, b"agent_message_chunk") {
        Kind::MessageChunk
    } else if eq_ascii(kind, b"agent_thought_chunk") {
        Kind::ThoughtChunk
    } else if eq_ascii(kind, b"usage_update") {
        Kind::Usage
    } else if eq_ascii(kind, b"tool_call") {
        Kind::ToolCall
    } else if eq_ascii(kind, b"tool_call_update") {
        Kind::ToolCallUpdate
    } else if [
        &b"user_message_chunk"[..],
        b"available_commands_update",
        b"current_mode_update",
        b"config_option_update",
        b"session_info_update",
    ]
    .iter()
    .any(|name| eq_ascii(kind, name))
    {
        Kind::Quiet
    } else {
        return None;
    };
    let update = Update {
        session_id: None,
        kind,
        text: has_text,
        message_id,
        used,
        size,
        cost_usd,
        raw,
    };
    Some((update, end))
}

/// In `value`, the raw text of a JSON value this scanner took (a field of
/// [`Raw`]): the value of `key` when it is an object (`Some(None)` when it
/// is not an object or has no such key); `None` when that cannot be told
/// without a full parser (a repeated key, a key with escapes).
pub fn field<'a, U: Unit>(value: &'a [U], key: &[u8]) -> Option<Option<&'a [U]>> {
    if value.first()?.value() != u32::from(b'{') {
        return Some(None);
    }
    let mut found = None;
    let mut clear = true;
    object(value, 0, &mut |name, at| {
        let end = skip_value(value, at, 1)?;
        if eq_ascii(name, key) && found.replace(&value[at..end]).is_some() {
            clear = false;
        }
        Some(end)
    })
    .filter(|_| clear)?;
    Some(found)
}

/// A cost object: its `amount` (raw) when a number and `currency` is
/// `USD`.
#[inline(never)]
fn cost<U: Unit>(line: &[U], at: usize) -> Option<(Option<&[U]>, usize)> {
    let (mut amount, mut usd) = (None, false);
    let mut seen = [false; 2];
    let end = object(line, at, &mut |key, at| {
        if eq_ascii(key, b"amount") {
            if std::mem::replace(&mut seen[0], true) {
                return None;
            }
            let end = number(line, at)?;
            amount = Some(&line[at..end]);
            Some(end)
        } else if eq_ascii(key, b"currency") {
            if std::mem::replace(&mut seen[1], true) {
                return None;
            }
            let (value, end) = plain_string(line, at)?;
            usd = eq_ascii(value, b"USD");
            Some(end)
        } else {
            skip_value(line, at, 4)
        }
    })?;
    Some((amount.filter(|_| usd), end))
}

/// A content block: whether it is text (`type` `text` or none) with a
/// string `text`, decoded into `text`.
#[inline(never)]
fn content<U: DecodeUnit>(line: &[U], at: usize, text: &mut Vec<u16>) -> Option<(bool, usize)> {
    let mut is_text = true;
    let mut has_text = false;
    let mut seen = [false; 2];
    let end = object(line, at, &mut |key, at| {
        if eq_ascii(key, b"type") {
            if std::mem::replace(&mut seen[0], true) {
                return None;
            }
            let (value, end) = plain_string(line, at)?;
            is_text = eq_ascii(value, b"text");
            Some(end)
        } else if eq_ascii(key, b"text") {
            if std::mem::replace(&mut seen[1], true) {
                return None;
            }
            expect(line, at, b'"')?;
            has_text = true;
            U::decode_string(line, at + 1, text)
        } else {
            skip_value(line, at, 4)
        }
    })?;
    Some((is_text && has_text, end))
}

/// An object at `at` (whitespace before it skipped by the caller): each
/// key (raw, without escapes) and the position of its value go to
/// `value`, which returns where the value ends. Returns the end of the
/// object.
pub(crate) fn object<U: Unit>(
    line: &[U],
    at: usize,
    value: &mut dyn FnMut(&[U], usize) -> Option<usize>,
) -> Option<usize> {
    expect(line, at, b'{')?;
    let mut i = skip_ws(line, at + 1);
    if line.get(i)?.value() == u32::from(b'}') {
        return Some(i + 1);
    }
    loop {
        expect(line, i, b'"')?;
        let (key_end, escaped) = string_end(line, i + 1)?;
        if escaped {
            return None;
        }
        let key = &line[i + 1..key_end - 1];
        i = skip_ws(line, key_end);
        expect(line, i, b':')?;
        i = skip_ws(line, value(key, skip_ws(line, i + 1))?);
        match line.get(i)?.value() {
            0x2c => i = skip_ws(line, i + 1),
            0x7d => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Any JSON value at `at`, nested `depth` deep, checked and skipped; its
/// end. One loop over the value's tokens (no call per value): `stack` has a
/// bit per open container, set for an object.
pub(crate) fn skip_value<U: Unit>(line: &[U], at: usize, depth: u32) -> Option<usize> {
    let (mut stack, mut open) = (0u64, 0u32);
    let mut i = at;
    loop {
        // A value at `i`, `depth + open` deep.
        if depth + open > MAX_DEPTH {
            return None;
        }
        match line.get(i)?.value() {
            0x22 => i = string_end(line, i + 1)?.0,
            c @ (0x7b | 0x5b) => {
                let object = c == 0x7b;
                i = skip_ws(line, i + 1);
                if line.get(i)?.value() == c + 2 {
                    i += 1; // `{}` or `[]`
                } else {
                    stack = (stack << 1) | u64::from(object);
                    open += 1;
                    if object {
                        i = skip_key(line, i)?;
                    }
                    continue;
                }
            }
            0x74 => i = literal(line, i, b"true")?,
            0x66 => i = literal(line, i, b"false")?,
            0x6e => i = literal(line, i, b"null")?,
            _ => i = number(line, i)?,
        }
        // After a value: the containers it ends, then the next value.
        loop {
            if open == 0 {
                return Some(i);
            }
            i = skip_ws(line, i);
            let object = stack & 1 == 1;
            match (line.get(i)?.value(), object) {
                (0x2c, _) => {
                    i = skip_ws(line, i + 1);
                    if object {
                        i = skip_key(line, i)?;
                    }
                    break;
                }
                (0x7d, true) | (0x5d, false) => {
                    i += 1;
                    stack >>= 1;
                    open -= 1;
                }
                _ => return None,
            }
        }
    }
}

/// A key and its colon at `at`: where its value starts.
fn skip_key<U: Unit>(line: &[U], at: usize) -> Option<usize> {
    expect(line, at, b'"')?;
    let (end, _) = string_end(line, at + 1)?;
    let i = skip_ws(line, end);
    expect(line, i, b':')?;
    Some(skip_ws(line, i + 1))
}

fn literal<U: Unit>(line: &[U], at: usize, word: &[u8]) -> Option<usize> {
    let end = at + word.len();
    (line.len() >= end && eq_ascii(&line[at..end], word)).then_some(end)
}

/// A number without an exponent (`-`, digits without a leading zero, a
/// fraction), at most 300 digits: its end.
fn number<U: Unit>(line: &[U], at: usize) -> Option<usize> {
    let digit = |i: usize| {
        line.get(i)
            .is_some_and(|u| (0x30..=0x39).contains(&u.value()))
    };
    let mut i = at;
    if line.get(i)?.value() == u32::from(b'-') {
        i += 1;
    }
    let start = i;
    if !digit(i) {
        return None;
    }
    if line[i].value() == u32::from(b'0') {
        i += 1;
    } else {
        while digit(i) {
            i += 1;
        }
    }
    if line.get(i).is_some_and(|u| u.value() == u32::from(b'.')) {
        i += 1;
        if !digit(i) {
            return None;
        }
        while digit(i) {
            i += 1;
        }
    }
    if line
        .get(i)
        .is_some_and(|u| matches!(u.value(), 0x45 | 0x65))
        || i - start > 300
    {
        return None;
    }
    Some(i)
}

/// A whole number `>= 0` that fits in 53 bits (what the full reader reads
/// exactly too); its value and end.
fn whole_number<U: Unit>(line: &[U], at: usize) -> Option<(u64, usize)> {
    let end = number(line, at)?;
    let digits = &line[at..end];
    if digits.len() > 15 || digits.iter().any(|u| !(0x30..=0x39).contains(&u.value())) {
        return None;
    }
    let value = digits
        .iter()
        .fold(0u64, |n, u| n * 10 + u64::from(u.value() - 0x30));
    Some((value, end))
}

/// A string without escapes at `at`: its raw units and end.
fn plain_string<U: Unit>(line: &[U], at: usize) -> Option<(&[U], usize)> {
    expect(line, at, b'"')?;
    let (end, escaped) = string_end(line, at + 1)?;
    (!escaped).then(|| (&line[at + 1..end - 1], end))
}

fn expect<U: Unit>(line: &[U], at: usize, ascii: u8) -> Option<()> {
    (line.get(at)?.value() == u32::from(ascii)).then_some(())
}

fn skip_ws<U: Unit>(line: &[U], mut i: usize) -> usize {
    while let Some(0x20 | 0x09 | 0x0d | 0x0a) = line.get(i).map(|u| u.value()) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(line: &str) -> Option<(Kind, String)> {
        let units: Vec<u16> = line.encode_utf16().collect();
        let mut a = Vec::new();
        let mut b = Vec::new();
        let bytes = scan(line.as_bytes(), &mut a).map(|u| (u.kind, u.text));
        let utf16 = scan_utf16(&units, &mut b).map(|u| (u.kind, u.text));
        assert_eq!(bytes, utf16, "{line}");
        if bytes.is_some() {
            assert_eq!(a, b, "{line}");
        }
        bytes.map(|(kind, text)| {
            (
                kind,
                if text {
                    String::from_utf16(&a).unwrap()
                } else {
                    String::new()
                },
            )
        })
    }

    const HEAD: &str =
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":"#;

    #[test]
    fn takes_the_common_updates() {
        let chunk = format!(
            r#"{HEAD}{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"Hi \"x\" é"}}}}}}}}"#
        );
        assert_eq!(
            taken(&chunk),
            Some((Kind::MessageChunk, "Hi \"x\" é".into()))
        );
        let usage =
            format!(r#"{HEAD}{{"sessionUpdate":"usage_update","used":129,"size":258400}}}}}}"#);
        assert_eq!(taken(&usage), Some((Kind::Usage, String::new())));
        let quiet = format!(
            r#"{HEAD}{{"sessionUpdate":"available_commands_update","availableCommands":[{{"name":"a","n":-1.5,"x":[true,false,null,{{}},[]]}}]}}}}}}"#
        );
        assert_eq!(taken(&quiet), Some((Kind::Quiet, String::new())));
    }

    #[test]
    fn keeps_the_raw_text_of_tool_fields_and_meta() {
        let line = format!(
            r#"{HEAD}{{"_meta":{{"toolName":"Read"}},"toolCallId":"t1","sessionUpdate":"tool_call_update","status" : "completed" ,"rawInput":{{"p":[1,"\n"]}},"locations":[],"content":[{{"type":"content"}}],"rawOutput":"x","title":"T","kind":"read"}}}}}}"#
        );
        let mut text = Vec::new();
        let update = scan(line.as_bytes(), &mut text).unwrap();
        assert_eq!(update.kind, Kind::ToolCallUpdate);
        let raw = |r: Option<&[u8]>| std::str::from_utf8(r.unwrap()).unwrap().to_owned();
        assert_eq!(raw(update.raw.meta), r#"{"toolName":"Read"}"#);
        assert_eq!(raw(update.raw.tool_call_id), r#""t1""#);
        assert_eq!(raw(update.raw.status), r#""completed""#);
        assert_eq!(raw(update.raw.raw_input), r#"{"p":[1,"\n"]}"#);
        assert_eq!(raw(update.raw.content), r#"[{"type":"content"}]"#);
        assert_eq!(raw(update.raw.raw_output), r#""x""#);
        assert_eq!(raw(update.raw.title), r#""T""#);
        assert_eq!(raw(update.raw.kind), r#""read""#);
        let chunk = format!(
            r#"{HEAD}{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":""}},"_meta":{{"usage":{{}}}}}}}}}}"#
        );
        let update = scan(chunk.as_bytes(), &mut text).unwrap();
        assert_eq!(update.kind, Kind::MessageChunk);
        assert_eq!(raw(update.raw.meta), r#"{"usage":{}}"#);
        assert_eq!(raw(update.raw.content), r#"{"type":"text","text":""}"#);
    }

    #[test]
    fn finds_a_field_of_a_raw_object() {
        let value = br#"{"a":{"b":[1]},"toolName" : "Read","c":"\n"}"#;
        assert_eq!(field(value, b"toolName"), Some(Some(&br#""Read""#[..])));
        assert_eq!(field(value, b"a"), Some(Some(&br#"{"b":[1]}"#[..])));
        assert_eq!(field(value, b"z"), Some(None));
        assert_eq!(field(&b"[1]"[..], b"a"), Some(None));
        assert_eq!(field(&b"\"x\""[..], b"a"), Some(None));
        assert_eq!(field(&br#"{"a":1,"a":2}"#[..], b"a"), None);
        assert_eq!(field(&br#"{"\n":1}"#[..], b"a"), None);
    }

    #[test]
    fn leaves_everything_else_to_the_full_parser() {
        for rest in [
            r#"{"sessionUpdate":"tool_call","toolCallId":"t","rawInput":{"a":1e3}}}}"#,
            r#"{"sessionUpdate":"tool_call","toolCallId":"t","status":"a","status":"b"}}}"#,
            r#"{"sessionUpdate":"usage_update","used":1,"cost":{"amount":"0"}}}}"#,
            r#"{"sessionUpdate":"usage_update","used":1,"cost":null}}}"#,
            r#"{"sessionUpdate":"usage_update","used":1.5}}}"#,
            r#"{"sessionUpdate":"usage_update","used":1e3}}}"#,
            r#"{"sessionUpdate":"agent_message_chunk","content":{"text":"\u0041"}}}}"#,
            r#"{"sessionUpdate":"agent_message_chunk","sessionUpdate":"plan"}}}"#,
            r#"{"sessionUpdate":"agent_message_chunk","x":01}}}"#,
            r#"{"sessionUpdate":"agent_message_chunk","x":[1,]}}}"#,
            r#"{"sessionUpdate":"agent_message_chunk"}}} x"#,
            r#"{"sessionUpdate":"agent_message_chunk"}}"#,
            r#"{"sessionUpdate":"zz"}}}"#,
        ] {
            assert_eq!(taken(&format!("{HEAD}{rest}")), None, "{rest}");
        }
        assert_eq!(taken(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
        assert_eq!(
            taken(r#"{"method":"session/update","params":{"update":{"sessionUpdate":"plan"}}}"#),
            None
        );
        assert_eq!(taken(""), None);
        let deep = format!(
            r#"{HEAD}{{"sessionUpdate":"session_info_update","x":{}{}}}}}}}"#,
            "[".repeat(80),
            "]".repeat(80)
        );
        assert_eq!(taken(&deep), None);
    }
}
