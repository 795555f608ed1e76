//! A reply's long text out to JS in the Node-only runner module, made by
//! Node's `Buffer` over a view of WebAssembly memory: from UTF-16 units
//! (`toString('utf16le')`, a copy) or from UTF-8 (`toString('utf8')`).
//! wasm-bindgen's own `TextDecoder` path took a third of runAgent's time on
//! a 10 MB reply (measured with `--cpu-prof`); UTF-8 with many non-ASCII
//! characters still costs V8 a decode, which UTF-16 units do not.

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
    fn to_string_as(this: &NodeBuffer, encoding: &str) -> JsString;
}

/// The bytes at `ptr..ptr + len` as a string in `encoding`.
fn decode(ptr: u32, len: u32, encoding: &str) -> JsValue {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    // SAFETY (no `unsafe` in Rust's sense, but JS reads memory Rust owns):
    // the caller's slice is borrowed for the call and the view covers
    // exactly it; `toString` copies out of it before anything can allocate
    // or grow the memory (the encoding name crosses first, as its own
    // argument).
    NodeBuffer::view(&memory.buffer(), ptr, len)
        .to_string_as(encoding)
        .into()
}

/// The JS string of `text` (this module runs in Node only).
pub fn js_string(text: &str) -> JsValue {
    if text.len() < 4096 {
        return JsValue::from_str(text);
    }
    decode(text.as_ptr() as u32, text.len() as u32, "utf8")
}
