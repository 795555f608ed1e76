//! Long text across the boundary as UTF-16, a JS string's own form: out,
//! the core keeps a reply's text as code units and the engine makes the
//! string from them — `Buffer#toString('utf16le')` in Node (a copy),
//! `TextDecoder('utf-16le')` elsewhere; in (Node only), `Buffer#write` copies
//! a string's units into WebAssembly memory. Either way is several times
//! cheaper than going through UTF-8 when the text is not ASCII (README,
//! Performance).

use js_sys::JsString;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// Node's `Buffer`.
    #[wasm_bindgen(js_name = Buffer)]
    type NodeBuffer;
    #[wasm_bindgen(static_method_of = NodeBuffer, js_class = "Buffer", js_name = from)]
    fn view(buffer: &JsValue, byte_offset: u32, length: u32) -> NodeBuffer;
    #[wasm_bindgen(method, js_name = toString)]
    fn to_string_as(this: &NodeBuffer, encoding: &JsValue) -> JsString;
    #[wasm_bindgen(method, js_name = write)]
    fn write_as(
        this: &NodeBuffer,
        string: &JsString,
        offset: u32,
        length: u32,
        encoding: &JsValue,
    ) -> u32;

    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, string: &JsString, into: &js_sys::Uint8Array) -> Progress;
    /// What `encodeInto` did: UTF-16 units read, bytes written.
    type Progress;
    #[wasm_bindgen(method, getter)]
    fn read(this: &Progress) -> u32;
    #[wasm_bindgen(method, getter)]
    fn written(this: &Progress) -> u32;

    type TextDecoder;
    #[wasm_bindgen(constructor)]
    fn new(label: &str) -> TextDecoder;
    #[wasm_bindgen(method)]
    fn decode(this: &TextDecoder, units: &[u16]) -> JsString;
}

/// How this engine turns UTF-16 code units into a string (and, in Node, a
/// string into units).
enum Decoder {
    Node(JsValue),
    Standard(TextDecoder),
}

thread_local! {
    static DECODER: Decoder = {
        let buffer = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("Buffer"))
            .unwrap_or(JsValue::UNDEFINED);
        if buffer.is_function() {
            Decoder::Node(JsValue::from_str("utf16le"))
        } else {
            Decoder::Standard(TextDecoder::new("utf-16le"))
        }
    };
}

/// The UTF-16 units of `string`, copied by Node's `Buffer#write(…,
/// 'utf16le')` (lone surrogates as they are); `None` outside Node, where a
/// string enters as UTF-8.
pub fn utf16_of(string: &JsString) -> Option<Vec<u16>> {
    DECODER.with(|decoder| match decoder {
        Decoder::Node(encoding) => {
            let bytes = string.length() as usize * 2;
            let mut units = vec![0u16; bytes / 2];
            if bytes == 0 {
                return Some(units);
            }
            // The memory's buffer only after the allocation, which may grow it.
            let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
            // SAFETY (no `unsafe` in Rust's sense, but JS writes into memory
            // Rust owns): the view covers exactly `units`' allocation
            // (`bytes` = its length × 2, u16 is 2-aligned and any bit pattern
            // is a valid u16), `units` is borrowed mutably by nobody else,
            // and nothing runs between the write and the view's last use
            // that could allocate, grow the memory or move `units`; the view
            // is dropped before `units` is returned.
            let view = NodeBuffer::view(&memory.buffer(), units.as_mut_ptr() as u32, bytes as u32);
            let written = view.write_as(string, 0, bytes as u32, encoding);
            (written as usize == bytes).then_some(units)
        }
        Decoder::Standard(_) => None,
    })
}

/// The UTF-8 bytes of `string` (a lone surrogate as U+FFFD, as
/// `String::from_utf16_lossy` reads it) in pieces of at most [`PIECE`]
/// bytes, each ending on a character, written by the engine's
/// `TextEncoder#encodeInto` straight into one buffer of WebAssembly memory
/// and handed to `each`: a long transcript is never copied whole.
/// wasm-bindgen's own string passing copies the ASCII prefix one
/// `charCodeAt` at a time, several times slower (docs/acp-output.md, Speed).
pub fn utf8_pieces(string: &JsString, mut each: impl FnMut(&[u8])) {
    let units = string.length();
    let room = PIECE.min(units as usize * 3 + 4);
    let mut piece = vec![0u8; room];
    let (mut read, mut rest) = (0, string.clone());
    ENCODER.with(|encoder| loop {
        let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        // SAFETY (as in `utf16_of`): the view covers exactly `piece`, made
        // before it, and JS writes it through a pointer taken from a mutable
        // borrow; nothing allocates between the write and the view's last
        // use.
        let view = js_sys::Uint8Array::new_with_byte_offset_and_length(
            &memory.buffer(),
            piece.as_mut_ptr() as u32,
            room as u32,
        );
        let done = encoder.encode_into(&rest, &view);
        each(&piece[..done.written() as usize]);
        read += done.read();
        if read >= units {
            return;
        }
        // `encodeInto` never splits a surrogate pair (and a piece has room
        // for any character): the rest starts on a character.
        rest = string.slice(read, units);
    })
}

/// The most bytes [`utf8_pieces`] hands over at once.
pub const PIECE: usize = 256 * 1024;

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// The JS string of `units`.
pub fn from_utf16(units: &[u16]) -> JsString {
    if units.is_empty() {
        return JsString::from("");
    }
    DECODER.with(|decoder| match decoder {
        Decoder::Node(encoding) => {
            let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
            let bytes = (units.len() * 2) as u32;
            // SAFETY (as above): a read-only view of exactly `units`, which
            // is borrowed for the call; `toString` copies out of it before
            // anything can allocate or grow the memory.
            NodeBuffer::view(&memory.buffer(), units.as_ptr() as u32, bytes).to_string_as(encoding)
        }
        Decoder::Standard(decoder) => decoder.decode(units),
    })
}
