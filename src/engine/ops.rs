//! The operations other than prompts: a session's (its mode, options,
//! model) and the process's (`authenticate`, `session/list`, its start).

use serde_json::{json, Value};

use super::action::{Action, Outcome};
use super::engine::*;
use crate::attempt::{AgentErrorKind, Failure};

impl Engine {
    /// Sends operation `op` of the process.
    pub(super) fn send_process_op(&mut self, op: u64, kind: OpKind) {
        match &kind {
            OpKind::Authenticate(method) => {
                let params = json!({ "methodId": method });
                self.request("authenticate", params, Pending::Op(op, kind, None));
            }
            OpKind::Delete(id) => match self.unadvertised(
                "/agentCapabilities/sessionCapabilities/delete",
                "delete sessions",
                "sessionCapabilities.delete",
            ) {
                Some(failure) => self.done_failed(op, failure),
                None => {
                    let params = json!({ "sessionId": id });
                    self.request(
                        "session/delete",
                        params,
                        Pending::Op(op, kind.clone(), None),
                    );
                }
            },
            OpKind::Logout => {
                match self.unadvertised("/agentCapabilities/auth/logout", "log out", "auth.logout")
                {
                    Some(failure) => self.done_failed(op, failure),
                    None => {
                        self.request("logout", json!({}), Pending::Op(op, kind, None));
                    }
                }
            }
            OpKind::List(params) => match self.list_problem() {
                Some(failure) => self.done_failed(op, failure),
                None => {
                    let params = params.clone();
                    self.request("session/list", params, Pending::Op(op, kind, None));
                }
            },
            _ => {
                let info = self.info.clone();
                self.push(Action::Done {
                    op,
                    outcome: Outcome::Opened(Box::new(info)),
                });
            }
        }
    }

    pub(super) fn send_op(&mut self, i: usize, op: u64, kind: OpKind) {
        let key = Some(self.sessions[i].key);
        self.settle_snapshot(i);
        let snap = self.sessions[i].snapshot.clone();
        let session = snap.session_id.clone();
        match &kind {
            OpKind::Open => {
                let snapshot = snap.clone();
                self.push(Action::Done {
                    op,
                    outcome: Outcome::Opened(Box::new(snapshot)),
                });
            }
            OpKind::SetMode(id) => {
                let offered = snap.modes.as_array().is_some_and(|m| {
                    m.iter()
                        .any(|m| m.get("id").and_then(Value::as_str) == Some(id))
                });
                if !offered {
                    let failure = Failure::new(
                        AgentErrorKind::InvalidParams,
                        format!(
                            "invalid parameters: {} offers no mode \"{id}\" (modes: {})",
                            self.agent().name,
                            ids(&snap.modes, "id")
                        ),
                    );
                    return self.done_failed(op, failure);
                }
                let params = json!({"sessionId": session, "modeId": id});
                self.request("session/set_mode", params, Pending::Op(op, kind, key));
            }
            OpKind::SetConfig(id, value) => {
                let mut params = json!({"sessionId": session, "configId": id, "value": value});
                // A boolean option's value says its type (ACP 1.25).
                if value.is_boolean() {
                    params["type"] = json!("boolean");
                }
                self.request(
                    "session/set_config_option",
                    params,
                    Pending::Op(op, kind, key),
                );
            }
            OpKind::SetModel(id) => {
                // A config option of the model category, else the older
                // `session/set_model`, else it cannot be set.
                let option = snap.config_options.as_array().and_then(|options| {
                    options
                        .iter()
                        .find(|o| o.get("category").and_then(Value::as_str) == Some("model"))
                        .and_then(|o| o.get("id"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                });
                // An id of the session's model list that the option does
                // not offer (codex-acp lists `model[effort]` there) goes
                // through `session/set_model`.
                let listed = |list: &Value, key: &str| {
                    list.as_array().is_some_and(|l| {
                        l.iter()
                            .any(|m| m.get(key).and_then(Value::as_str) == Some(id.as_str()))
                    })
                };
                let in_option = snap
                    .config_options
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|o| o.get("category").and_then(Value::as_str) == Some("model"))
                    .filter_map(|o| o.get("options"))
                    .any(|values| {
                        listed(values, "value")
                            || values.as_array().is_some_and(|groups| {
                                groups
                                    .iter()
                                    .filter_map(|g| g.get("options"))
                                    .any(|v| listed(v, "value"))
                            })
                    });
                let only_in_models = listed(&snap.models, "modelId") && !in_option;
                if let (Some(config_id), false) = (option, only_in_models) {
                    let params = json!({"sessionId": session, "configId": config_id, "value": id});
                    self.request(
                        "session/set_config_option",
                        params,
                        Pending::Op(op, kind, key),
                    );
                } else if snap.models.is_array()
                    && !snap.models.as_array().is_some_and(Vec::is_empty)
                {
                    let params = json!({"sessionId": session, "modelId": id});
                    self.request("session/set_model", params, Pending::Op(op, kind, key));
                } else {
                    let how = match self.launch_spec().model {
                        crate::agents::AcpModel::Config => "its own configuration chooses it",
                        _ => "set options.model when opening the session",
                    };
                    let failure = Failure::new(
                        AgentErrorKind::InvalidParams,
                        format!(
                            "invalid parameters: {} offers no way to choose the model in a session over ACP ({how})",
                            self.agent().name
                        ),
                    );
                    self.done_failed(op, failure);
                }
            }
            OpKind::Fork(new) => self.send_fork(i, op, *new),
            OpKind::Authenticate(_) | OpKind::List(_) | OpKind::Delete(_) | OpKind::Logout => {
                self.send_process_op(op, kind)
            }
        }
    }

    /// `invalid_params` naming the agent when it does not advertise the
    /// capability at `pointer` of `initialize`'s result (`what` it cannot
    /// do, `named` as the protocol names the capability); nothing is sent.
    pub(super) fn unadvertised(&self, pointer: &str, what: &str, named: &str) -> Option<Failure> {
        let advertised = self
            .initialized
            .pointer(pointer)
            .is_some_and(|c| !c.is_null() && c != &Value::Bool(false));
        (!advertised).then(|| {
            Failure::new(
                AgentErrorKind::InvalidParams,
                format!(
                    "invalid parameters: {} does not {what} over ACP (it does not advertise {named})",
                    self.agent().name
                ),
            )
        })
    }
}
