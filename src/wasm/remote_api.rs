//! The binding of an agent's run on another machine (`crate::remote`): the
//! internal `__RemoteRun` that `js/remote/remote-channel.cjs` asks what to start
//! for each operation and hands the answers to. Node only; no decision is
//! made here.

use wasm_bindgen::prelude::*;

use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::error::Result as CoreResult;
use crate::launch::run_home::HomeRequest;
use crate::remote::{self, string_pairs, ChannelEnd, RemoteHost, RemoteRun};

/// One run on another machine (internal). See `crate::remote::RemoteRun`.
#[wasm_bindgen(js_name = __RemoteRun, skip_typescript)]
pub struct RemoteRunJs {
    inner: RemoteRun,
}

#[wasm_bindgen(js_class = __RemoteRun)]
impl RemoteRunJs {
    /// `host`: `options.host` (its function form as `{ exec: { function:
    /// true } }`); `control`: the SSH control socket's path; `env`: the
    /// caller's `options.env` or `null`; `runName`: the run folder's name.
    /// A wrong field throws `AgentContextError` (`INVALID_INPUT`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: JsValue,
        control: String,
        env: JsValue,
        run_name: String,
    ) -> Result<RemoteRunJs, JsValue> {
        let host = js_result(to_json(&host, "options.host"))?;
        let host = js_result(RemoteHost::read(&host, "options.host"))?;
        let env = if env.is_null() || env.is_undefined() {
            Vec::new()
        } else {
            let env = to_json(&env, "options.env");
            js_result(env.and_then(|v| string_pairs(&v, "options.env")))?
        };
        Ok(RemoteRunJs {
            inner: js_result(RemoteRun::new(host, &control, env, &run_name))?,
        })
    }

    /// How messages name the other side.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_owned()
    }

    /// Whether the channel is SSH (its shared connection is ended at close).
    #[wasm_bindgen(getter)]
    pub fn ssh(&self) -> bool {
        matches!(self.inner.host(), RemoteHost::Ssh(_))
    }

    /// The run's folder there ('' before the probe).
    #[wasm_bindgen(getter, js_name = runFolder)]
    pub fn run_folder(&self) -> String {
        self.inner.run_folder().to_owned()
    }

    /// What to run for `request` (`{ type: 'probe', cd? }`, `'reap'`,
    /// `'kill'`, `'clean'`, `'endShared'`, `'resolve'`, `'get'`, `'put'`):
    /// `{ local, stdin }`, or `null` when there is nothing to run.
    pub fn command(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let request = js_result(to_json(&request, "request"))?;
        js_result(
            self.inner
                .command(&request)
                .and_then(|v| from_serializable(&v)),
        )
    }

    /// `{ ok: { runFolder, cd, env } }` or `{ problem: { kind:
    /// 'unreachable' | 'cd', message } }`.
    pub fn probed(&mut self, answer: Vec<u8>, stderr: String) -> Result<JsValue, JsValue> {
        js_result(from_serializable(&self.inner.probed_json(&answer, &stderr)))
    }

    /// Files the run writes before its processes start (`[{ path, content }]`).
    #[wasm_bindgen(js_name = stageFiles)]
    pub fn stage_files(&mut self, list: JsValue) -> Result<(), JsValue> {
        let list = js_result(to_json(&list, "files"))?;
        self.inner.stage_files_json(&list);
        Ok(())
    }

    /// Bytes of a file the run writes before its processes start.
    #[wasm_bindgen(js_name = stageBytes)]
    pub fn stage_bytes(&mut self, path: String, bytes: Vec<u8>) {
        self.inner.stage_bytes(&path, &bytes);
    }

    /// For a plan's `home`: the user's folder there (from the probe's
    /// `env`), and the operation that lists it; `null` when there is none.
    #[wasm_bindgen(js_name = listHome)]
    pub fn list_home(&self, home: JsValue, env: JsValue) -> Result<JsValue, JsValue> {
        let request = js_result(home_request(&home))?;
        let env = js_result(to_json(&env, "env"))?;
        match js_result(self.inner.list_home(&request, &env))? {
            Some(listing) => js_result(from_serializable(&listing)),
            None => Ok(JsValue::NULL),
        }
    }

    /// The run's home staged from the list's answer (`user`: `null` when
    /// there is no folder of the user's).
    #[wasm_bindgen(js_name = stageHome)]
    pub fn stage_home(
        &mut self,
        home: JsValue,
        user: Option<String>,
        answer: Option<Vec<u8>>,
    ) -> Result<(), JsValue> {
        let request = js_result(home_request(&home))?;
        js_result(
            self.inner
                .stage_home_listed(&request, user.as_deref(), answer.as_deref()),
        )
    }

    /// A `spawn` action: `{ id, op }`.
    pub fn spawn(&mut self, action: JsValue) -> Result<JsValue, JsValue> {
        let action = js_result(to_json(&action, "spawn"))?;
        js_result(
            self.inner
                .spawn_json(&action)
                .and_then(|v| from_serializable(&v)),
        )
    }

    /// Reads a spawn's `retryLog` as it grows until process `id` ends.
    pub fn watch(&self, id: String, log: JsValue) -> Result<JsValue, JsValue> {
        let log = js_result(to_json(&log, "retryLog"))?;
        js_result(from_serializable(&self.inner.watch_json(&id, &log)))
    }

    /// `{ exitCode, signal, outputs: [[path, content]], transportLost }`.
    pub fn reaped(
        &self,
        exit_code: Option<i32>,
        signal: Option<String>,
        killed: bool,
        answer: Option<Vec<u8>>,
        outputs: Vec<String>,
    ) -> Result<JsValue, JsValue> {
        let channel = ChannelEnd { exit_code, signal };
        let end = self
            .inner
            .reaped(&channel, killed, answer.as_deref(), &outputs);
        js_result(from_serializable(&end.to_json()))
    }

    pub fn resolved(&self, answer: Vec<u8>) -> Result<String, JsValue> {
        js_result(self.inner.resolved(&answer))
    }

    /// `{ content }` or `{ error }`.
    pub fn got(&self, answer: Vec<u8>) -> Result<JsValue, JsValue> {
        js_result(from_serializable(&self.inner.got_json(&answer)))
    }

    /// `{ bytes }` (a Uint8Array) of a file read with `get`, or `{ size }`
    /// when over `max` bytes, or `{ error }`.
    #[wasm_bindgen(js_name = gotBytes)]
    pub fn got_bytes(&self, answer: Vec<u8>, max: f64) -> Result<JsValue, JsValue> {
        // `as` saturates: below 0 is 0.
        let max = if max.is_finite() { max as usize } else { 0 };
        match self.inner.got_bytes(&answer, max) {
            Ok(bytes) => {
                let out = js_sys::Object::new();
                js_sys::Reflect::set(&out, &"bytes".into(), &js_sys::Uint8Array::from(&bytes[..]))?;
                Ok(out.into())
            }
            Err(problem) => js_result(from_serializable(&problem.to_json())),
        }
    }

    /// Whether an operation's answer came whole.
    pub fn finished(answer: Vec<u8>) -> bool {
        RemoteRun::finished(&answer)
    }

    /// The host's `exec` function's answer, checked: `{ via: 'spawn', command, args }`.
    #[wasm_bindgen(js_name = execAnswer)]
    pub fn exec_answer(answer: JsValue) -> Result<JsValue, JsValue> {
        let answer = js_result(to_json(&answer, "options.host.exec's answer"))?;
        js_result(remote::exec_answer(&answer).and_then(|l| from_serializable(&l.to_json())))
    }
}

fn home_request(value: &JsValue) -> CoreResult<HomeRequest> {
    HomeRequest::read(to_json(value, "home")?)
}
