//! The session record read back (the core's `record` module), in Node and
//! the browser: `readSessionRecord` and `summarizeSessionRecord`; and, in
//! the Node-only module, `__sessionRecordOfAcp` (a whole session recorded
//! from an agent's ACP output, for the benchmark).

pub use reader::*;

pub(super) mod reader {
    #[cfg(feature = "api")]
    use js_sys::Uint8Array;
    use js_sys::{Object, Reflect};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    use crate::error::{AgentContextError, ErrorCode, Result};
    #[cfg(feature = "api")]
    use crate::formats::host_value::type_name;
    use crate::record::{self, ReadOptions};
    use crate::wasm::js_error::describe_thrown;
    #[cfg(feature = "api")]
    use crate::wasm::js_result;
    #[cfg(feature = "api")]
    use crate::wasm::js_text::utf8_pieces;
    #[cfg(feature = "api")]
    use crate::wasm::json_bridge::from_serializable;

    /// The record's bytes (a string encoded by the engine a piece at a time).
    #[cfg(feature = "api")]
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
    #[cfg(feature = "api")]
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

    /// The entries `options` asks for, as JS objects, the cursor and the
    /// lines skipped. A record the recorder wrote is placed by each line's
    /// `seq` and parsed at once; anything else (garbage, a torn or
    /// hand-written line) is read by the core's checking reader, line by line.
    #[cfg(feature = "api")]
    fn page_of(bytes: &[u8], options: ReadOptions) -> Result<(JsValue, u64, u64)> {
        if let Some(read) = record::read_record_by_seq(bytes, options) {
            let texts = read.lines.iter().map(|&(_, text)| text);
            let parsed = parse_lines(texts).ok();
            if let Some(array) = parsed.filter(|a| entries_match(a, &read.lines)) {
                return Ok((array, read.cursor, read.skipped));
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
        Ok((array, read.cursor, read.skipped))
    }

    /// The page of a conversation `options` asks for, each entry named by
    /// its agent session (`sessionId`, `agentType`): `{ entries, cursor,
    /// skipped }`. `page`: the page read unchecked from `bytes`; a record
    /// the recorder wrote is parsed at once, any other read again checked.
    pub fn conversation_page_js(
        bytes: &[u8],
        options: ReadOptions,
        page: record::Page<'_>,
    ) -> Result<JsValue> {
        let mut page = page;
        let parse = |page: &record::Page<'_>| {
            let text = DECODER.with(|decoder| decoder.decode(&page.named_json_array()));
            parse_json(&text)
        };
        let parsed = if page.as_recorded {
            parse(&page).ok().filter(|a| {
                let seqs: Vec<(u64, &[u8])> = page
                    .lines
                    .iter()
                    .map(|l| (record::entry_prefix(l).map_or(0, |p| p.0), *l))
                    .collect();
                entries_match(a, &seqs)
            })
        } else {
            None
        };
        let array = match parsed {
            Some(array) => array,
            None => {
                page = record::conversation_page(bytes, options, true)?;
                parse(&page).map_err(|thrown| {
                    let message = format!(
                        "a record line read is not JSON: {}",
                        describe_thrown(&thrown)
                    );
                    AgentContextError::new(ErrorCode::Internal, message)
                })?
            }
        };
        let out = Object::new();
        let _ = Reflect::set(&out, &"entries".into(), &array);
        let _ = Reflect::set(
            &out,
            &"cursor".into(),
            &JsValue::from_f64(page.cursor as f64),
        );
        let _ = Reflect::set(
            &out,
            &"skipped".into(),
            &JsValue::from_f64(page.skipped as f64),
        );
        Ok(out.into())
    }

    /// `readConversationRecord` (declared in types.d.ts).
    #[cfg(feature = "api")]
    #[wasm_bindgen(js_name = readConversationRecord, skip_typescript)]
    pub fn read_conversation_record(
        record: JsValue,
        options: JsValue,
    ) -> std::result::Result<JsValue, JsValue> {
        let read = || -> Result<JsValue> {
            let options = ReadOptions::read(&options)?;
            let bytes = record_bytes(&record)?;
            let page = record::conversation_page(&bytes, options, false)?;
            conversation_page_js(&bytes, options, page)
        };
        js_result(read())
    }

    /// The conversations a store's `list()` (`summaries`) holds, matching
    /// `filter` (internal: `listConversations` over any store).
    #[cfg(feature = "api")]
    #[wasm_bindgen(js_name = __conversationsOf, skip_typescript)]
    pub fn conversations_of(
        summaries: JsValue,
        filter: JsValue,
    ) -> std::result::Result<JsValue, JsValue> {
        let read = || -> Result<JsValue> {
            let summaries = crate::wasm::json_bridge::to_json(&summaries, "summaries")?;
            let filter = match filter.is_undefined() || filter.is_null() {
                true => serde_json::Value::Null,
                false => crate::wasm::json_bridge::to_json(&filter, "filter")?,
            };
            let filter = record::listing::Filter::read(&filter)?;
            let list = summaries.as_array().map_or(&[][..], Vec::as_slice);
            from_serializable(&record::listing::conversations(list, &filter))
        };
        js_result(read())
    }

    /// `readSessionRecord` (declared in types.d.ts).
    #[cfg(feature = "api")]
    #[wasm_bindgen(js_name = readSessionRecord, skip_typescript)]
    pub fn read_session_record(
        record: JsValue,
        options: JsValue,
    ) -> std::result::Result<JsValue, JsValue> {
        let read = || -> Result<JsValue> {
            let options = ReadOptions::read(&options)?;
            let bytes = record_bytes(&record)?;
            let (entries, cursor, skipped) = page_of(&bytes, options)?;
            let out = Object::new();
            // Setting keys on a fresh plain object cannot fail.
            let _ = Reflect::set(&out, &"entries".into(), &entries);
            let _ = Reflect::set(&out, &"cursor".into(), &JsValue::from_f64(cursor as f64));
            let _ = Reflect::set(&out, &"skipped".into(), &JsValue::from_f64(skipped as f64));
            Ok(out.into())
        };
        js_result(read())
    }

    /// `summarizeSessionRecord` (declared in types.d.ts): `null` for bytes
    /// that are not a record (no valid header).
    #[cfg(feature = "api")]
    #[wasm_bindgen(js_name = summarizeSessionRecord, skip_typescript)]
    pub fn summarize_session_record(
        record: JsValue,
        options: JsValue,
    ) -> std::result::Result<JsValue, JsValue> {
        let read = || -> Result<JsValue> {
            let writing = record::writing_option(&options)?;
            let bytes = record_bytes(&record)?;
            let read = record::read_record(&bytes, ReadOptions::default())?;
            match record::summarize_read(&read, writing) {
                Some(summary) => from_serializable(&summary),
                None => Ok(JsValue::NULL),
            }
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

/// What each whole line of `batch` is, as the reader reads it after a
/// record whose last entry's `seq` is `last_seq` (digits; `'0'`: none):
/// `[seq, kind, turn, always, behind]` per line (`seq` as digits; see
/// `crate::record::rows`). For a store that keeps a record as rows
/// (js/record/pg-session-store.cjs); not part of the API.
#[cfg(feature = "node")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = __recordLineKeys, skip_typescript)]
pub fn record_line_keys(
    batch: &str,
    last_seq: &str,
) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> {
    let last_seq = last_seq.parse::<u64>().map_err(|_| {
        crate::error::AgentContextError::invalid(format!(
            "lastSeq must be a whole number's digits, got {last_seq:?}"
        ))
    });
    let last_seq = crate::wasm::js_result(last_seq)?;
    let keys = crate::record::rows::line_keys(batch.as_bytes(), last_seq);
    let rows: Vec<_> = keys
        .into_iter()
        .map(|k| (k.seq, k.kind, k.turn, k.always, k.behind))
        .collect();
    crate::wasm::js_result(crate::wasm::json_bridge::from_serializable(&rows))
}
