//! The host's answers to the agent's requests: a permission (the user's
//! option, or the policy's), a file read or written within the session's
//! folder.

use serde_json::{json, Value};

use super::engine::*;
use super::messages::{permission_choice, slice_lines};
use crate::acp::permission::Decision;
use crate::acp::{INVALID_PARAMS, RESOURCE_NOT_FOUND};

impl Engine {
    /// The host's answer to [`Action::Host`] `call`: for a permission,
    /// `{ optionId }` or `{ decision: 'allow' | 'allow_always' | 'reject' }`
    /// or null for the policy's; for a read, `{ content }` or `{ error }`;
    /// for a write, `{}` or `{ error }`. `Err` names what is wrong with the
    /// answer (it is then answered as the policy would, or refused).
    pub fn host_answer(&mut self, call: u64, answer: &Value, now: u64) -> crate::error::Result<()> {
        self.now = now;
        let Some(at) = self.calls.iter().position(|c| c.call == call) else {
            return Ok(()); // answered already (the turn was cancelled)
        };
        let HostCall {
            rpc_id, kind, key, ..
        } = self.calls.remove(at);
        let cd = self.cfg_of(key).options.cd.clone();
        let mut problem = None;
        match kind {
            CallKind::Permission(params) => {
                let response = match permission_choice(&params, answer) {
                    Ok(choice) => choice,
                    Err(e) => {
                        problem = Some(e);
                        None
                    }
                };
                let response = match response {
                    Some(r) => r,
                    None => {
                        let decision = if problem.is_some() {
                            Some(Decision::Reject)
                        } else {
                            None
                        };
                        self.policy_answer(key, &params, decision)
                    }
                };
                self.record_permission_answer(key, &params, &response);
                self.respond(rpc_id, response);
            }
            CallKind::Elicitation(params) => {
                if let Err(e) = self.elicitation_answer(rpc_id, &params, answer) {
                    problem = Some(e);
                }
            }
            CallKind::Read { line, limit } => match answer.get("content").and_then(Value::as_str) {
                Some(content) => {
                    let content = slice_lines(content, line, limit);
                    self.respond(rpc_id, json!({ "content": content }));
                }
                None => {
                    let code = answer.get("error").and_then(Value::as_str).unwrap_or("EIO");
                    let error = if code == "ENOENT" {
                        if self.launch_spec().missing_file_is_empty {
                            self.respond(rpc_id, json!({"content": ""}));
                            return Ok(());
                        }
                        rpc_error(RESOURCE_NOT_FOUND, "Resource not found", None)
                    } else if code == "OUTSIDE" {
                        rpc_error(
                            INVALID_PARAMS,
                            &format!(
                                "refused to read: the file lies outside the working directory {cd}"
                            ),
                            None,
                        )
                    } else {
                        rpc_error(-32603, &format!("cannot read the file: {code}"), None)
                    };
                    self.respond_error(rpc_id, error);
                }
            },
            CallKind::Write => match answer.get("error").and_then(Value::as_str) {
                None => self.respond(rpc_id, json!({})),
                Some(code) => {
                    let error = if code == "OUTSIDE" {
                        rpc_error(
                            INVALID_PARAMS,
                            &format!(
                                "refused to write: the file lies outside the working directory {cd}"
                            ),
                            None,
                        )
                    } else {
                        rpc_error(-32603, &format!("cannot write the file: {code}"), None)
                    };
                    self.respond_error(rpc_id, error);
                }
            },
        }
        match problem {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Whether the agent may read (`write` false) or write `path` (its
    /// links resolved by the host) for host request `call`: inside its
    /// session's folder or one of its `dirs`, and no write under `read-only`. Over the CLI the
    /// agent asks the client for no file: never.
    pub fn path_allowed(&self, call: Option<u64>, path: &str, write: bool) -> bool {
        if !self.cfg.is_acp() {
            return false;
        }
        let key = call.and_then(|c| self.calls.iter().find(|h| h.call == c).and_then(|h| h.key));
        let cfg = self.cfg_of(key);
        let inside_cd =
            crate::acp::fs::inside_roots(&cfg.options.cd, &cfg.client.dirs, path).is_some();
        inside_cd
            && !(write
                && self.options().sandbox == Some(crate::launch::invocation::Sandbox::ReadOnly))
    }
}
