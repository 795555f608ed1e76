//! [`RemoteRun`]'s operations in the JSON the host (`js/remote/remote-channel.cjs`)
//! speaks: what it hands over (a spawn action, a log to watch, files, a
//! home, variables) read here, and the answers written as the objects it
//! takes apart. The binding only moves the JSON.

use serde_json::{json, Value};

use super::run::{GotBytes, LocalSpawn, ProbeProblem, RemoteRun};
use crate::attempt::LogWatch;
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::Obj;
use crate::launch::invocation::InvocationFile;
use crate::launch::run_home::{home_plan, user_folder, HomeRequest};

impl RemoteRun {
    /// What to run for `request` (`{ type, … }`): an operation `{ local,
    /// stdin }`, the command that ends the shared SSH connection
    /// (`endShared`), or `null` (nothing to clean before the probe, no
    /// shared connection).
    pub fn command(&self, request: &Value) -> Result<Value> {
        let o = Obj::new(request, "request")?;
        let text = |key: &str| o.req_str(key);
        Ok(match o.req_str("type")? {
            "probe" => self.probe(o.opt_str("cd")?).to_json(),
            "reap" => {
                let outputs = o.opt_str_list("outputs")?.unwrap_or_default();
                let outputs: Vec<String> = outputs.into_iter().map(str::to_owned).collect();
                self.reap(text("id")?, &outputs).to_json()
            }
            "kill" => self.kill(text("id")?, text("signal")?).to_json(),
            "clean" => self.clean().map_or(Value::Null, |op| op.to_json()),
            "endShared" => self.end_shared().map_or(Value::Null, |l| l.to_json()),
            "resolve" => self.resolve(text("path")?).to_json(),
            "get" => self.get(text("path")?).to_json(),
            "put" => self.put(text("path")?, text("content")?).to_json(),
            other => {
                let message = format!("request.type: no operation is called \"{other}\"");
                return Err(AgentContextError::invalid(message));
            }
        })
    }
}

/// Variables `{ name: value }` (`null`: none); a value that is not a
/// string is left out. Anything else is `INVALID_INPUT` naming `what`.
pub fn string_pairs(value: &Value, what: &str) -> Result<Vec<(String, String)>> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Object(map) => Ok(map
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
            .collect()),
        _ => Err(AgentContextError::invalid(format!(
            "{what} must be an object of strings"
        ))),
    }
}

/// `[{ path, content }]`; an entry without both strings is left out.
fn files(value: &Value) -> Vec<InvocationFile> {
    value
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|f| {
                    Some(InvocationFile {
                        path: f.get("path")?.as_str()?.to_owned(),
                        content: f.get("content")?.as_str()?.to_owned(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|l| {
            l.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn text(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

impl LocalSpawn {
    /// An engine's `spawn` action (`{ command, args, env, defaultEnv, cwd,
    /// files, outputs }`); a missing field is empty.
    pub fn from_json(a: &Value) -> Result<LocalSpawn> {
        Ok(LocalSpawn {
            command: text(a, "command"),
            args: strings(&a["args"]),
            env: string_pairs(&a["env"], "env")?,
            default_env: string_pairs(&a["defaultEnv"], "defaultEnv")?,
            cwd: text(a, "cwd"),
            files: files(&a["files"]),
            outputs: strings(&a["outputs"]),
        })
    }
}

impl GotBytes {
    /// `{ size }` or `{ error }`.
    pub fn to_json(&self) -> Value {
        match self {
            GotBytes::Size(size) => json!({ "size": size }),
            GotBytes::Error(code) => json!({ "error": code }),
        }
    }
}

impl RemoteRun {
    /// The probe's answer as `{ ok: { runFolder, cd, env } }` or `{
    /// problem: { kind: 'unreachable' | 'cd', message } }`.
    pub fn probed_json(&mut self, answer: &[u8], stderr: &str) -> Value {
        match self.probed(answer, stderr) {
            Ok(probed) => json!({ "ok": {
                "runFolder": probed.run_folder,
                "cd": probed.cd,
                "env": Value::Object(probed.env.into_iter().map(|(k, v)| (k, Value::String(v))).collect()),
            }}),
            Err(ProbeProblem::Unreachable(message)) => {
                json!({ "problem": { "kind": "unreachable", "message": message } })
            }
            Err(ProbeProblem::Cd(message)) => {
                json!({ "problem": { "kind": "cd", "message": message } })
            }
        }
    }

    /// [`RemoteRun::stage_files`] of `[{ path, content }]`.
    pub fn stage_files_json(&mut self, list: &Value) {
        self.stage_files(&files(list));
    }

    /// For a plan's `home`: `{ user, op }`, the user's folder there (from
    /// the probe's `env`) and the operation that lists it; `None` when
    /// there is none.
    pub fn list_home(&self, home: &HomeRequest, env: &Value) -> Result<Option<Value>> {
        let env = string_pairs(env, "env")?;
        let Some(user) = user_folder(home, &env) else {
            return Ok(None);
        };
        let op = self.list(&user, &home.settings_file).to_json();
        Ok(Some(json!({ "user": user, "op": op })))
    }

    /// Stages the run's home from the list's answer (`user`: `None` when
    /// there is no folder of the user's, and then no answer).
    pub fn stage_home_listed(
        &mut self,
        home: &HomeRequest,
        user: Option<&str>,
        answer: Option<&[u8]>,
    ) -> Result<()> {
        let (entries, settings) = match answer {
            Some(bytes) => self.listed(bytes)?,
            None => (Vec::new(), None),
        };
        let plan = home_plan(home, user, &entries, settings.as_deref());
        self.stage_home(&plan);
        Ok(())
    }

    /// An engine's `spawn` action made a process there: `{ id, op }`.
    pub fn spawn_json(&mut self, action: &Value) -> Result<Value> {
        let (id, op) = self.spawn(&LocalSpawn::from_json(action)?)?;
        Ok(json!({ "id": id, "op": op.to_json() }))
    }

    /// Watches `log` (`{ path, everyMs?, keepBytes? }`) until process `id`
    /// ends.
    pub fn watch_json(&self, id: &str, log: &Value) -> Value {
        let watch = LogWatch {
            path: text(log, "path"),
            every_ms: log.get("everyMs").and_then(Value::as_u64).unwrap_or(250),
            keep_bytes: log
                .get("keepBytes")
                .and_then(Value::as_u64)
                .unwrap_or(1 << 20),
        };
        self.watch(id, &watch).to_json()
    }

    /// A file read with `get`: `{ content }` or `{ error }`.
    pub fn got_json(&self, answer: &[u8]) -> Value {
        match self.got(answer) {
            Ok(content) => json!({ "content": content }),
            Err(code) => json!({ "error": code }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spawn_action_is_read_field_by_field() {
        let action = json!({
            "command": "claude", "args": ["-p", 3], "env": { "A": "1", "B": 2 },
            "cwd": "/w", "files": [{ "path": "/f", "content": "x" }, { "path": "/g" }],
            "outputs": ["/o"],
        });
        let spawn = LocalSpawn::from_json(&action).unwrap();
        assert_eq!(spawn.command, "claude");
        assert_eq!(spawn.args, ["-p"]);
        assert_eq!(spawn.env, [("A".to_owned(), "1".to_owned())]);
        assert!(spawn.default_env.is_empty());
        assert_eq!(spawn.files.len(), 1);
        assert_eq!(spawn.outputs, ["/o"]);
        let bad = LocalSpawn::from_json(&json!({ "env": ["A=1"] })).unwrap_err();
        assert_eq!(bad.message(), "env must be an object of strings");
    }

    #[test]
    fn got_bytes_problems_are_json() {
        assert_eq!(GotBytes::Size(9).to_json(), json!({ "size": 9 }));
        assert_eq!(
            GotBytes::Error("ENOENT".into()).to_json(),
            json!({ "error": "ENOENT" })
        );
    }
}
