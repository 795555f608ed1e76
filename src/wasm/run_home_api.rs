//! The run's home for an agent (`crate::launch::run_home`): which folder of the
//! user's the host lists and reads, then what it makes. Node only.

use wasm_bindgen::prelude::*;

use super::js_platform::env_pairs;
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::launch::run_home::{home_plan, read_entries, user_folder, HomeRequest};

fn request(value: &JsValue) -> crate::error::Result<HomeRequest> {
    HomeRequest::read(to_json(value, "home")?)
}

/// `home`: a plan's `home`; `env`: the child's environment. The user's
/// folder for the agent (`~/.gemini`), or `null`.
#[wasm_bindgen(js_name = __runHomeUserFolder, skip_typescript)]
pub fn run_home_user_folder(home: JsValue, env: JsValue) -> Result<JsValue, JsValue> {
    let home = js_result(request(&home))?;
    let env = js_result(env_pairs(&env))?;
    js_result(from_serializable(&user_folder(&home, &env)))
}

/// `home`: a plan's `home`; `user`: the user's folder or `null`; `entries`:
/// `[{ name, dir }]` of what it holds; `settings`: its settings file's
/// text, or `null`. `{ kept, folders, links: [{ target, path, dir }],
/// files: [{ path, content }] }`.
#[wasm_bindgen(js_name = __runHomePlan, skip_typescript)]
pub fn run_home_plan(
    home: JsValue,
    user: Option<String>,
    entries: JsValue,
    settings: Option<String>,
) -> Result<JsValue, JsValue> {
    let home = js_result(request(&home))?;
    let entries = js_result(to_json(&entries, "entries").and_then(read_entries))?;
    js_result(from_serializable(&home_plan(
        &home,
        user.as_deref(),
        &entries,
        settings.as_deref(),
    )))
}
