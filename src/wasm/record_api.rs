//! The session record read back (the core's `record` module), in Node and
//! the browser: `readSessionRecord` and `summarizeSessionRecord`; and, in
//! the Node-only module, `__sessionRecordOfAcp` (a whole session recorded
//! from an agent's ACP output, for the benchmark).

#[cfg(feature = "api")]
pub use reader::*;

#[cfg(feature = "api")]
mod reader {
    use js_sys::{Object, Reflect, Uint8Array};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    use crate::error::{AgentContextError, ErrorCode, Result};
    use crate::formats::host_value::type_name;
    use crate::record::{self, ReadOptions};
    use crate::wasm::js_error::describe_thrown;
    use crate::wasm::js_result;
    use crate::wasm::js_text::utf8_pieces;
    use crate::wasm::json_bridge::from_serializable;

    /// The record's bytes (a string encoded by the engine a piece at a time).
    fn record_bytes(value: &JsValue) -> Result<Vec<u8>> {
        if let Some(string) = value.dyn_ref::<js_sys::JsString>() {
            let mut bytes = Vec::with_capacity(string.length() as usize);
            utf8_pieces(string, |piece| bytes.extend_from_slice(piece));
            return Ok(bytes);
        }
        match value.dyn_ref::<Uint8Array>() {
            Some(array) => Ok(array.to_vec()),
            None => Err(AgentContextError::invalid(format!(
                "record must be a string or a Uint8Array, got {}",
                type_name(value)
            ))),
        }
    }

    #[wasm_bindgen]
    extern "C" {
        /// The engine's UTF-8 decoder (`TextDecoder`, in Node too).
        #[wasm_bindgen(js_name = TextDecoder)]
        type Utf8Decoder;
        #[wasm_bindgen(constructor, js_class = "TextDecoder")]
        fn new() -> Utf8Decoder;
        #[wasm_bindgen(method, js_class = "TextDecoder")]
        fn decode(this: &Utf8Decoder, bytes: &[u8]) -> js_sys::JsString;
        #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
        fn parse_json(text: &js_sys::JsString) -> std::result::Result<JsValue, JsValue>;
    }

    thread_local! {
        static DECODER: Utf8Decoder = Utf8Decoder::new();
    }

    /// `lines` as one JSON array, decoded and parsed once by the engine
    /// (what it threw, when it throws).
    fn parse_lines<'a>(
        lines: impl ExactSizeIterator<Item = &'a [u8]> + Clone,
    ) -> std::result::Result<JsValue, JsValue> {
        let array = record::json_array(lines);
        let text = DECODER.with(|decoder| decoder.decode(&array));
        parse_json(&text)
    }

    /// Whether `array` holds one object per line of `lines`, each with its
    /// line's `seq` (the line began as an entry, and no line held two).
    fn entries_match(array: &JsValue, lines: &[(u64, &[u8])]) -> bool {
        let array: &js_sys::Array = array.unchecked_ref();
        if !js_sys::Array::is_array(array) || array.length() as usize != lines.len() {
            return false;
        }
        let seq = JsValue::from_str("seq");
        lines.iter().enumerate().all(|(i, &(line_seq, _))| {
            let entry = array.get(i as u32);
            entry.is_object()
                && Reflect::get(&entry, &seq).ok().and_then(|s| s.as_f64()) == Some(line_seq as f64)
        })
    }

    /// The entries `options` asks for, as JS objects, and the cursor. A
    /// record the recorder wrote is placed by each line's `seq` and parsed
    /// at once; anything else (garbage, a torn or hand-written line) is read
    /// by the core's checking reader, line by line.
    fn page_of(bytes: &[u8], options: ReadOptions) -> Result<(JsValue, u64)> {
        if let Some(read) = record::read_record_by_seq(bytes, options) {
            let texts = read.lines.iter().map(|&(_, text)| text);
            let parsed = parse_lines(texts).ok();
            if let Some(array) = parsed.filter(|a| entries_match(a, &read.lines)) {
                return Ok((array, read.cursor));
            }
        }
        let read = record::read_record(bytes, options)?;
        // The core checked every line whole (UTF-8 included): parsed as is.
        let array = parse_lines(read.lines.iter().map(|l| l.text)).map_err(|thrown| {
            let message = format!(
                "a record line read is not JSON: {}",
                describe_thrown(&thrown)
            );
            AgentContextError::new(ErrorCode::Internal, message)
        })?;
        Ok((array, read.cursor))
    }

    /// `readSessionRecord` (declared in types.d.ts).
    #[wasm_bindgen(js_name = readSessionRecord, skip_typescript)]
    pub fn read_session_record(
        record: JsValue,
        options: JsValue,
    ) -> std::result::Result<JsValue, JsValue> {
        let read = || -> Result<JsValue> {
            let options = ReadOptions::read(&options)?;
            let bytes = record_bytes(&record)?;
            let (entries, cursor) = page_of(&bytes, options)?;
            let out = Object::new();
            // Setting keys on a fresh plain object cannot fail.
            let _ = Reflect::set(&out, &"entries".into(), &entries);
            let _ = Reflect::set(&out, &"cursor".into(), &JsValue::from_f64(cursor as f64));
            Ok(out.into())
        };
        js_result(read())
    }

    /// `summarizeSessionRecord` (declared in types.d.ts).
    #[wasm_bindgen(js_name = summarizeSessionRecord, skip_typescript)]
    pub fn summarize_session_record(
        record: JsValue,
        options: JsValue,
    ) -> std::result::Result<JsValue, JsValue> {
        let read = || -> Result<JsValue> {
            let writing = record::writing_option(&options)?;
            let bytes = record_bytes(&record)?;
            let read = record::read_record(&bytes, ReadOptions::default())?;
            from_serializable(&record::summarize_read(&read, writing))
        };
        js_result(read())
    }
}

/// A whole session recorded from an agent's ACP output (each turn's
/// `session/update` lines), as the record's text: `opened`, then per turn
/// its request, the reply's events and its end, then `closed`. For the
/// benchmark (bench/scenarios/record.mjs); not part of the API.
#[cfg(feature = "node")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = __sessionRecordOfAcp, skip_typescript)]
pub fn session_record_of_acp(agent_type: String, turns: Vec<String>, prompt: String) -> String {
    crate::record::acp_session_record(&agent_type, &turns, &prompt)
}

/// The conversation a record holds as it is carried to another session
/// (`record` a string, up to turn `upTo`): `{ messages, compacted? }`, with
/// `compacted: { compactionId, replacedTurns }` when the agent's own
/// compaction's summary stands for the turns before it (the carry rule of
/// `crate::record::conversation`); internal.
#[cfg(feature = "node")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = __recordCarry, skip_typescript)]
pub fn record_carry(
    record: String,
    agent: String,
    up_to: Option<f64>,
) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> {
    let up_to = up_to.map(|n| n.max(0.0) as u64);
    let carried = super::js_result(crate::record::carry(record.as_bytes(), &agent, up_to))?;
    super::js_result(super::json_bridge::from_serializable(&carried))
}

/// The lines that link the record `prior` (a string) to another session:
/// `interrupted` first for a turn it left unfinished, then the `link`
/// (`relation` as the record names it). For a record whose session is not
/// running here (a rebuilt one's old record); internal.
#[cfg(feature = "node")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = __recordLinkLines, skip_typescript)]
pub fn record_link_lines(
    prior: String,
    relation: String,
    id: String,
    agent_type: String,
    now: f64,
) -> Result<String, wasm_bindgen::JsValue> {
    let now = now.max(0.0) as u64;
    let lines = crate::record::link_lines(prior.as_bytes(), &relation, &id, &agent_type, now);
    super::js_result(lines)
}

/// The header line of session `sessionId`'s record, as the engine writes
/// it: what a store's `open` is given (parsed) for a record it holds
/// already (internal).
#[cfg(feature = "node")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = __recordHeader, skip_typescript)]
pub fn record_header(session_id: String, agent_type: String, created_at: f64) -> String {
    crate::record::Header::new(&session_id, &agent_type, created_at.max(0.0) as u64).line()
}

/// Whether a turn that ended with error kind `kind` goes on with the next
/// agent of a session's `fallback` (internal).
#[cfg(feature = "node")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = __handsOff, skip_typescript)]
pub fn hands_off(kind: String) -> bool {
    crate::error_kind::AgentErrorKind::from_name(&kind)
        .is_some_and(crate::error_kind::AgentErrorKind::hands_off)
}
