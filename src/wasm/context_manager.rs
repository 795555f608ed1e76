//! `ContextManager`: the built-in assemblers plus any the host registers from JS.

use std::cell::RefCell;

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::assemble_api::assemble_agent;
use super::call_options::CallOptions;
use super::js_input;
use super::{js_output, js_result};
use crate::error::AgentContextError;
use crate::formats::host_value as host;
use crate::prompt::input::ASSEMBLER_INPUT;

/// Picks the assembler for an agent type: one registered from JS first, then
/// the built-in ones, then plain text with a warning.
#[wasm_bindgen(skip_typescript)] // declared in types.d.ts
pub struct ContextManager {
    /// `(agent type, assembler object)`, one entry per type.
    registered: RefCell<Vec<(String, JsValue)>>,
    options: CallOptions,
}

fn method(target: &JsValue, name: &'static str) -> Result<Function, AgentContextError> {
    let value = host::field(target, "assembler.", name)?;
    value
        .dyn_into::<Function>()
        .map_err(|v| host::must_be(&format!("assembler.{name}"), "a function", &v))
}

#[wasm_bindgen]
impl ContextManager {
    /// `options`: `{ logger?, debug? }` as for `assemble`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<Object>) -> Result<ContextManager, JsValue> {
        let options = js_result(CallOptions::read_optional(options))?;
        Ok(ContextManager {
            registered: RefCell::new(Vec::new()),
            options,
        })
    }

    /// Adds an assembler: any object with `getAgentType()` and
    /// `assemble(input)`. It serves its agent type from now on, ahead of a
    /// built-in one and of an earlier registration for the same type.
    pub fn register(&self, assembler: JsValue) -> Result<(), JsValue> {
        if !assembler.is_object() {
            let err = host::must_be("assembler", "an object", &assembler);
            return Err(super::js_error::to_js(err));
        }
        let get_agent_type = js_result(method(&assembler, "getAgentType"))?;
        js_result(method(&assembler, "assemble"))?;
        let agent_type = get_agent_type.call0(&assembler)?;
        let path = || "assembler.getAgentType()".to_owned();
        let agent_type = js_result(host::required_string(agent_type, &path))?;
        let mut registered = self.registered.borrow_mut();
        registered.retain(|(t, _)| *t != agent_type);
        registered.push((agent_type, assembler));
        Ok(())
    }

    /// The prompt for `agentType`, from the registered or built-in assembler.
    #[wasm_bindgen(js_name = assemblePrompt)]
    pub fn assemble_prompt(&self, agent_type: JsValue, input: JsValue) -> Result<JsValue, JsValue> {
        let agent_type = js_result(js_input::agent_type(&agent_type))?;
        // Cloned out so a JS assembler may call back into this manager.
        let registered = self
            .registered
            .borrow()
            .iter()
            .find(|(t, _)| *t == agent_type)
            .map(|(_, a)| a.clone());
        let Some(assembler) = registered else {
            let assembled =
                assemble_agent(&agent_type, &input, &ASSEMBLER_INPUT, &self.options, false)?;
            return Ok(js_output::assembler_output(&assembled.output));
        };
        let output = js_result(method(&assembler, "assemble"))?.call1(&assembler, &input)?;
        if self.options.debug_enabled() {
            let prompt = Reflect::get(&output, &"prompt".into())?
                .as_string()
                .unwrap_or_default();
            let system_flag = Reflect::get(&output, &"systemFlag".into())?.as_string();
            let sent = crate::prompt::output::AssemblerOutput {
                prompt,
                system_flag,
            };
            for line in sent.send_lines(&agent_type) {
                self.options.debug(&line)?;
            }
        }
        Ok(output)
    }
}
