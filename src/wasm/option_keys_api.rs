//! The unknown-key warnings of the Node-only entry points' options
//! (`runAgent`, `openAgentSession`, a session's turn, a request given as an
//! `AssemblerOutput`): `crate::formats::input_keys` decides and words them.

use wasm_bindgen::prelude::*;

use crate::formats::input_keys::unknown_key_warnings_of;

/// The warnings for `keys` of the object `what` names (internal).
#[wasm_bindgen(js_name = __unknownKeyWarnings, skip_typescript)]
pub fn unknown_key_warnings_js(what: String, keys: Vec<String>) -> Vec<String> {
    unknown_key_warnings_of(&what, &keys)
}
