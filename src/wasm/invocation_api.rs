//! `buildCliInvocation`.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::js_input::{
    self, get, is_plain_object, optional_bool, optional_string, required_string, type_name,
};
use super::js_result;
use super::json_bridge::from_serializable;
use crate::error::{AgentContextError, Result};
use crate::invocation::{self, InvocationOptions, Sandbox};
use crate::output::AssemblerOutput;

/// `{ prompt, systemFlag? }`, as `assemble` returns it.
fn assembler_output(value: &JsValue) -> Result<AssemblerOutput> {
    if !is_plain_object(value) {
        return Err(AgentContextError::invalid(format!(
            "assemblerOutput must be an object, got {}",
            type_name(value)
        )));
    }
    let field = |name: &'static str| move || format!("assemblerOutput.{name}");
    let prompt = required_string(
        get(value, &"prompt".into(), field("prompt"))?,
        field("prompt"),
    )?;
    let system_flag = optional_string(
        get(value, &"systemFlag".into(), field("systemFlag"))?,
        field("systemFlag"),
    )?;
    Ok(AssemblerOutput {
        prompt,
        system_flag,
    })
}

/// `{ command?, model?, sessionId?, sandbox?, yolo?, systemPromptFile?, extraArgs? }`.
fn options(value: &JsValue) -> Result<InvocationOptions> {
    if value.is_undefined() || value.is_null() {
        return Ok(InvocationOptions::default());
    }
    if !is_plain_object(value) {
        return Err(AgentContextError::invalid(format!(
            "options must be an object, got {}",
            type_name(value)
        )));
    }
    let read = |name: &'static str| {
        let path = move || format!("options.{name}");
        get(value, &name.into(), path).map(|v| (v, path))
    };
    let text = |name: &'static str| -> Result<Option<String>> {
        let (v, path) = read(name)?;
        optional_string(v, path)
    };
    let sandbox = match text("sandbox")? {
        None => None,
        Some(name) => Some(Sandbox::parse(&name).ok_or_else(|| {
            AgentContextError::invalid(format!(
                "options.sandbox must be one of {}, got \"{name}\"",
                Sandbox::NAMES.map(|n| format!("'{n}'")).join(", ")
            ))
        })?),
    };
    let (yolo, path) = read("yolo")?;
    let yolo = optional_bool(yolo, path)?;
    let (extra, _) = read("extraArgs")?;
    let extra_args = if extra.is_undefined() || extra.is_null() {
        Vec::new()
    } else if Array::is_array(&extra) {
        let array = Array::from(&extra);
        (0..array.length())
            .map(|i| required_string(array.get(i), || format!("options.extraArgs[{i}]")))
            .collect::<Result<_>>()?
    } else {
        return Err(AgentContextError::invalid(format!(
            "options.extraArgs must be an array of strings, got {}",
            type_name(&extra)
        )));
    };
    Ok(InvocationOptions {
        command: text("command")?,
        model: text("model")?,
        session_id: text("sessionId")?,
        sandbox,
        yolo,
        system_prompt_file: text("systemPromptFile")?,
        extra_args,
    })
}

/// The command line that runs an agent CLI on an assembled prompt:
/// `{ command, args, stdin, files }`. Spawn `command` with `args`, write
/// each of `files` first (Claude Code's system prompt, when it is too long
/// for an argument), write `stdin` to the child and close it. The prompt
/// always travels on stdin, never in argv.
///
/// ```js
/// const { assemble, buildCliInvocation } = require('agent-context');
/// const out = assemble('claude-code', input);
/// const run = buildCliInvocation('claude-code', out, {
///   model: 'sonnet', sessionId: previous.sessionId, sandbox: 'workspace-write',
///   systemPromptFile: path.join(os.tmpdir(), 'carol-system-prompt.md'),
/// });
/// for (const f of run.files) fs.writeFileSync(f.path, f.content);
/// const child = spawn(run.command, run.args, { cwd });
/// child.stdin.end(run.stdin);
/// ```
///
/// Options left out (or `null`, or `''`) use the CLI's own default. Throws
/// `INVALID_INPUT` for an agent type without a CLI, an empty prompt, an
/// option of the wrong type, and a system prompt too long for an argument
/// without `systemPromptFile`.
#[wasm_bindgen(js_name = buildCliInvocation, skip_typescript)] // declared in types.d.ts
pub fn build_cli_invocation(
    #[wasm_bindgen(js_name = agentType)] agent_type: JsValue,
    #[wasm_bindgen(js_name = assemblerOutput)] assembler_output_value: JsValue,
    options_value: Option<js_sys::Object>,
) -> std::result::Result<JsValue, JsValue> {
    let agent_type = js_result(js_input::agent_type(&agent_type))?;
    let output = js_result(assembler_output(&assembler_output_value))?;
    let options_value = options_value.map_or(JsValue::UNDEFINED, Into::into);
    let options = js_result(options(&options_value))?;
    for warning in js_input::unknown_key_warnings(
        &options_value,
        "buildCliInvocation options",
        crate::input_keys::INVOCATION_OPTIONS,
    ) {
        super::call_options::CallOptions::default().warn(&warning)?;
    }
    let invocation = js_result(invocation::build_cli_invocation(
        &agent_type,
        &output,
        &options,
    ))?;
    js_result(from_serializable(&invocation))
}
