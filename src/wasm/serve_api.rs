//! The binding of a server of ACP over HTTP and WebSocket: the internal
//! `__ServeGate` that `js/serve/` asks, for each request and each session
//! request of a client, whether to let it in. Decisions are
//! `crate::serve`'s.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::serve::gate::{is_loopback, url_host, Gate, Request};
use crate::serve::options::ServeOptions;
use crate::serve::session_params;

/// A server's options and, once it listens, its gate (internal).
#[wasm_bindgen(js_name = __ServeGate, skip_typescript)]
pub struct ServeGateJs {
    options: ServeOptions,
    gate: Option<Gate>,
}

#[wasm_bindgen(js_class = __ServeGate)]
impl ServeGateJs {
    /// `options` (the server's, `cd` made real, the functions left out),
    /// `generated` the token to use when none is given. Bad options throw
    /// `INVALID_INPUT` naming the field (a token never named).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, generated: String) -> Result<ServeGateJs, JsValue> {
        let options = js_result(to_json(&options, "options"))?;
        let options = js_result(ServeOptions::read(&options, &generated))?;
        Ok(ServeGateJs {
            options,
            gate: None,
        })
    }

    /// `{ host, port, path, tokenGenerated, allowClientMcp, cd, limits,
    /// warnings, checkedMethods }`.
    pub fn settings(&self) -> Result<JsValue, JsValue> {
        let o = &self.options;
        js_result(from_serializable(&json!({
            "host": o.host, "port": o.port, "path": o.path, "tokenGenerated": o.token_generated,
            "allowClientMcp": o.allow_client_mcp, "cd": o.cd, "limits": o.limits,
            "warnings": o.warnings, "checkedMethods": session_params::CHECKED_METHODS,
        })))
    }

    #[wasm_bindgen(getter)]
    pub fn token(&self) -> String {
        self.options.token.clone()
    }

    /// The server listens on `port`: its URL (`http://host:port/path`; a
    /// server on every address is named by its loopback address).
    pub fn listening(&mut self, port: u16) -> String {
        self.gate = Some(Gate::new(&self.options, port));
        let host = match self.options.host.as_str() {
            "0.0.0.0" => "127.0.0.1",
            "::" => "::1",
            h if is_loopback(h) || !h.is_empty() => h,
            _ => "127.0.0.1",
        };
        format!("http://{}:{port}{}", url_host(host), self.options.path)
    }

    /// `request`: `{ method, target, host?, origin?, authorization?,
    /// protocols?, upgrade, connectionId, connections }` →
    /// `{ kind: 'admit', protocol? }` or `{ kind: 'refuse', status, message, challenge }`.
    pub fn admit(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let r = js_result(to_json(&request, "request"))?;
        let text = |key: &str| r.get(key).and_then(Value::as_str);
        let request = Request {
            method: text("method").unwrap_or(""),
            target: text("target").unwrap_or(""),
            host: text("host"),
            origin: text("origin"),
            authorization: text("authorization"),
            protocols: text("protocols"),
            upgrade: r.get("upgrade").and_then(Value::as_bool).unwrap_or(false),
            connection_id: r.get("connectionId").and_then(Value::as_bool).unwrap_or(false),
            connections: r.get("connections").and_then(Value::as_u64).unwrap_or(0) as u32,
        };
        let Some(gate) = &self.gate else {
            return Err(JsValue::from_str("__ServeGate.admit before listening"));
        };
        js_result(from_serializable(&gate.admit(&request)))
    }

    /// Whether one more ACP connection may open beside `connections` open.
    #[wasm_bindgen(js_name = roomFor)]
    pub fn room_for(&self, connections: u32) -> bool {
        self.gate.as_ref().is_some_and(|g| g.room_for(connections))
    }

    /// The paths of a session request's `params` to resolve before `checkSession`.
    #[wasm_bindgen(js_name = pathsOf)]
    pub fn paths_of(&self, params: JsValue) -> Result<Vec<String>, JsValue> {
        let params = js_result(to_json(&params, "params"))?;
        Ok(session_params::paths_of(&params))
    }

    /// A session request's `params` checked (`real`: the real path of each
    /// of `pathsOf`): null, or the JSON-RPC error `{ code, message }` to
    /// answer it with.
    #[wasm_bindgen(js_name = checkSession)]
    pub fn check_session(&self, params: JsValue, real: Vec<String>) -> Result<JsValue, JsValue> {
        let params = js_result(to_json(&params, "params"))?;
        match session_params::check(
            &params,
            &real,
            &self.options.cd,
            self.options.allow_client_mcp,
        ) {
            Ok(()) => Ok(JsValue::NULL),
            Err(refusal) => js_result(from_serializable(&refusal)),
        }
    }
}
