//! Client terminals (`terminal/create|output|wait_for_exit|kill|release`)
//! as a table of pure state: which terminal belongs to which session, what
//! each runs and where (inside the session's folder), the output kept
//! (the agent's `outputByteLimit` and a cap of ours, truncated from the
//! start at a character boundary, as the schema says), and how it ended.
//! The host spawns and kills the processes and hands their output and end
//! back; every answer to the agent is made here.

use serde_json::{json, Value};

use crate::formats::json_read::type_name;

/// The most output a terminal keeps, whatever the agent asks: 1 MiB.
pub const OUTPUT_CAP: usize = 1 << 20;
/// Terminals alive at once on one agent process.
pub const MAX_TERMINALS: usize = 16;

/// What the host does for the terminals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostTerminal {
    /// Start this process; answer `terminal_started(id)` or
    /// `terminal_failed(id, code)`, then hand over its output
    /// (`terminal_output`) and its end (`terminal_exited`).
    Start(Launch),
    /// Kill terminal `id`'s process tree (its end is still handed over).
    Kill(String),
}

impl HostTerminal {
    /// As the host reads it: `{ kind: 'terminal', start: { id, file, args,
    /// env, cwd } }` or `{ kind: 'terminal', kill: id }`.
    pub fn host_json(self) -> Value {
        match self {
            HostTerminal::Start(l) => {
                let env: serde_json::Map<String, Value> = l
                    .env
                    .into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect();
                json!({"kind": "terminal", "start": {"id": l.id, "file": l.file, "args": l.args, "env": env, "cwd": l.cwd}})
            }
            HostTerminal::Kill(id) => json!({"kind": "terminal", "kill": id}),
        }
    }
}

/// What the host starts for `terminal/create`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub id: String,
    /// The executable and its arguments: the agent's, or its command line
    /// run by the shell when it gave one line and no arguments.
    pub file: String,
    pub args: Vec<String>,
    /// Added to the agent's own environment.
    pub env: Vec<(String, String)>,
    pub cwd: String,
}

/// How a terminal's command ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExitStatus {
    pub exit_code: Option<i64>,
    pub signal: Option<String>,
}

impl ExitStatus {
    fn json(&self) -> Value {
        json!({"exitCode": self.exit_code, "signal": self.signal})
    }
}

/// A terminal request the agent cancelled ([`Terminals::cancel`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cancelled {
    /// A `terminal/wait_for_exit` that no longer waits.
    Wait,
    /// A `terminal/create` not yet answered: that terminal is given up.
    Create(String),
}

/// One terminal.
#[derive(Debug)]
pub struct Terminal {
    pub id: String,
    /// The session it was made in (its key), and the turn (op) then running.
    pub session: Option<u64>,
    pub turn: Option<u64>,
    output: Vec<u8>,
    limit: usize,
    truncated: bool,
    /// Started by the host (`create` answered).
    pub started: bool,
    pub exit: Option<ExitStatus>,
    /// The `terminal/create` request, answered once the host started it.
    pub create_rpc: Option<Value>,
    /// `terminal/wait_for_exit` requests waiting for the end.
    pub waiting: Vec<Value>,
}

impl Terminal {
    /// Whether its process may still run.
    pub fn running(&self) -> bool {
        self.exit.is_none()
    }

    /// `terminal/output`'s result.
    pub fn output_result(&self) -> Value {
        let mut result = json!({"output": self.text(), "truncated": self.truncated});
        if let Some(exit) = &self.exit {
            result["exitStatus"] = exit.json();
        }
        result
    }

    /// The output kept, as text: a character cut in two at its end waits
    /// for the rest.
    fn text(&self) -> String {
        let end = match std::str::from_utf8(&self.output) {
            Ok(_) => self.output.len(),
            Err(e) if e.error_len().is_none() && self.exit.is_none() => e.valid_up_to(),
            Err(_) => self.output.len(),
        };
        String::from_utf8_lossy(&self.output[..end]).into_owned()
    }

    fn push(&mut self, chunk: &[u8]) {
        self.output.extend_from_slice(chunk);
        if self.output.len() > self.limit {
            let mut cut = self.output.len() - self.limit;
            // Never inside a character: past its continuation bytes.
            while cut < self.output.len() && (self.output[cut] & 0xC0) == 0x80 {
                cut += 1;
            }
            self.output.drain(..cut);
            self.truncated = true;
        }
    }
}

/// Every terminal of one agent process.
#[derive(Debug, Default)]
pub struct Terminals {
    list: Vec<Terminal>,
    next: u64,
}

impl Terminals {
    /// Reads `terminal/create`'s params for a session whose folder is `cd`
    /// and whose more folders are `dirs` (a `cwd` may be in any of them;
    /// `windows`: the host's shell is `cmd.exe`) and adds the terminal;
    /// the host then starts what the [`Launch`] says. `Err`: why not
    /// (answered as invalid params).
    pub fn create(
        &mut self,
        params: &Value,
        (cd, dirs): (&str, &[String]),
        windows: bool,
        owner: (Option<u64>, Option<u64>),
        rpc_id: Value,
    ) -> Result<Launch, String> {
        if self.list.len() >= MAX_TERMINALS {
            return Err(format!(
                "too many terminals: at most {MAX_TERMINALS} at once (release one first)"
            ));
        }
        let command = match params.get("command") {
            Some(Value::String(c)) if !c.trim().is_empty() => c.clone(),
            other => {
                return Err(format!(
                    "params.command must be a non-empty string, got {}",
                    other.map_or("nothing", type_name)
                ))
            }
        };
        let args = match params.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    a.as_str().map(str::to_owned).ok_or_else(|| {
                        format!("params.args[{i}] must be a string, got {}", type_name(a))
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(format!(
                    "params.args must be an array of strings, got {}",
                    type_name(other)
                ))
            }
        };
        let env = read_env(params.get("env"))?;
        let cwd = match params.get("cwd") {
            None | Some(Value::Null) => cd.to_owned(),
            Some(Value::String(dir)) => super::fs::inside_roots(cd, dirs, dir)
                .ok_or_else(|| format!("params.cwd {dir} is outside the working directory {cd}"))?,
            Some(other) => {
                return Err(format!(
                    "params.cwd must be a string, got {}",
                    type_name(other)
                ))
            }
        };
        let limit = match params.get("outputByteLimit") {
            None | Some(Value::Null) => OUTPUT_CAP,
            Some(n) => match n.as_u64() {
                Some(n) => (n.min(OUTPUT_CAP as u64)) as usize,
                None => {
                    return Err(format!(
                        "params.outputByteLimit must be a whole number ≥ 0, got {n}"
                    ))
                }
            },
        };
        if command.contains('\0') || args.iter().any(|a| a.contains('\0')) {
            return Err("params.command and params.args must not hold a NUL".to_owned());
        }
        // One line and no arguments, with spaces or shell syntax in it: the
        // agent means a shell's command line.
        let (file, args) = if args.is_empty()
            && command.contains(|c: char| c.is_whitespace() || "|&;<>()$`\"'*?".contains(c))
        {
            if windows {
                (
                    "cmd.exe".to_owned(),
                    vec![
                        "/d".into(),
                        "/s".into(),
                        "/c".into(),
                        format!("\"{command}\""),
                    ],
                )
            } else {
                ("/bin/sh".to_owned(), vec!["-c".into(), command])
            }
        } else {
            (command, args)
        };
        self.next += 1;
        let id = format!("term-{}", self.next);
        self.list.push(Terminal {
            id: id.clone(),
            session: owner.0,
            turn: owner.1,
            output: Vec::new(),
            limit,
            truncated: false,
            started: false,
            exit: None,
            create_rpc: Some(rpc_id),
            waiting: Vec::new(),
        });
        Ok(Launch {
            id,
            file,
            args,
            env,
            cwd,
        })
    }

    /// Terminal `id` of session `session` (a request naming another
    /// session's terminal finds none).
    pub fn get(&self, id: &str, session: Option<u64>) -> Option<&Terminal> {
        self.list
            .iter()
            .find(|t| t.id == id && t.session == session && t.started)
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Terminal> {
        self.list.iter_mut().find(|t| t.id == id)
    }

    /// The host started it: the create request to answer `{ terminalId }`.
    pub fn started(&mut self, id: &str) -> Option<Value> {
        let t = self.get_mut(id)?;
        t.started = true;
        t.create_rpc.take()
    }

    /// The host could not start it: the create request to answer with an
    /// error; the terminal is gone.
    pub fn failed(&mut self, id: &str) -> Option<Value> {
        let at = self.list.iter().position(|t| t.id == id)?;
        self.list.remove(at).create_rpc
    }

    /// Output of its process.
    pub fn output(&mut self, id: &str, chunk: &[u8]) {
        if let Some(t) = self.get_mut(id) {
            t.push(chunk);
        }
    }

    /// Its process ended: the `wait_for_exit` requests to answer, with the
    /// result.
    pub fn exited(&mut self, id: &str, exit: ExitStatus) -> (Vec<Value>, Value) {
        let Some(t) = self.get_mut(id) else {
            return (Vec::new(), Value::Null);
        };
        let result = exit.json();
        t.exit = Some(exit);
        (std::mem::take(&mut t.waiting), result)
    }

    /// `wait_for_exit`: the result now when it has ended, else the request
    /// waits (`None`).
    pub fn wait(&mut self, id: &str, rpc_id: Value) -> Option<Value> {
        let t = self.get_mut(id)?;
        match &t.exit {
            Some(exit) => Some(exit.json()),
            None => {
                t.waiting.push(rpc_id);
                None
            }
        }
    }

    /// `release`: the terminal is forgotten; whether its process must be
    /// killed, and the requests still waiting for its end.
    pub fn release(&mut self, id: &str) -> Option<(bool, Vec<Value>)> {
        let at = self.list.iter().position(|t| t.id == id)?;
        let t = self.list.remove(at);
        Some((t.running(), t.waiting))
    }

    /// The agent cancelled its request `rpc_id` (`$/cancel_request`): a
    /// `wait_for_exit` stops waiting (`Wait`); a `create` not yet answered
    /// is the terminal given up (`Create(id)`: to release); `None` when no
    /// terminal request waits under that id.
    pub fn cancel(&mut self, rpc_id: &Value) -> Option<Cancelled> {
        for t in &mut self.list {
            if t.create_rpc.as_ref() == Some(rpc_id) {
                t.create_rpc = None;
                return Some(Cancelled::Create(t.id.clone()));
            }
            if let Some(at) = t.waiting.iter().position(|w| w == rpc_id) {
                t.waiting.remove(at);
                return Some(Cancelled::Wait);
            }
        }
        None
    }

    /// The terminals of `session` (all of them when `None`) whose process
    /// may still run.
    pub fn running_of(&self, session: Option<u64>) -> Vec<String> {
        self.list
            .iter()
            .filter(|t| t.running() && (session.is_none() || t.session == session))
            .map(|t| t.id.clone())
            .collect()
    }

    /// The terminals of `session` (all when `None`).
    pub fn ids_of(&self, session: Option<u64>) -> Vec<String> {
        self.list
            .iter()
            .filter(|t| session.is_none() || t.session == session)
            .map(|t| t.id.clone())
            .collect()
    }

    /// The session terminal `id` belongs to (`None`: no such terminal).
    pub fn session_of(&self, id: &str) -> Option<Option<u64>> {
        self.list.iter().find(|t| t.id == id).map(|t| t.session)
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

fn read_env(value: Option<&Value>) -> Result<Vec<(String, String)>, String> {
    let list = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(format!(
                "params.env must be an array of {{ name, value }}, got {}",
                type_name(other)
            ))
        }
    };
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let name = v.get("name").and_then(Value::as_str);
            let value = v.get("value").and_then(Value::as_str);
            match (name, value) {
                (Some(n), Some(v)) if !n.is_empty() && !n.contains(['=', '\0']) && !v.contains('\0') => {
                    Ok((n.to_owned(), v.to_owned()))
                }
                _ => Err(format!(
                    "params.env[{i}] must be {{ name, value }}: a name without '=' and a string value"
                )),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(t: &mut Terminals, params: Value) -> Result<Launch, String> {
        t.create(
            &params,
            ("/work/app", &[]),
            false,
            (Some(1), Some(7)),
            json!(5),
        )
    }

    #[test]
    fn a_cancelled_request_stops_waiting_or_gives_the_terminal_up() {
        let mut t = Terminals::default();
        let launch = create(&mut t, json!({"sessionId": "s", "command": "ls"})).unwrap();
        assert_eq!(
            t.cancel(&json!(5)),
            Some(Cancelled::Create(launch.id.clone())),
            "create not yet answered"
        );
        assert_eq!(t.started(&launch.id), None, "no late answer");
        assert_eq!(t.wait(&launch.id, json!(8)), None);
        assert_eq!(t.cancel(&json!(8)), Some(Cancelled::Wait));
        let (waiting, _) = t.exited(&launch.id, ExitStatus::default());
        assert!(waiting.is_empty(), "the cancelled wait is not answered");
        assert_eq!(t.cancel(&json!(99)), None);
        let dirs = ["/work/shared".to_owned()];
        let there = t
            .create(
                &json!({"sessionId": "s", "command": "ls", "cwd": "/work/shared/x"}),
                ("/work/app", &dirs),
                false,
                (Some(1), None),
                json!(6),
            )
            .unwrap();
        assert_eq!(there.cwd, "/work/shared/x", "a cwd in the session's dirs");
    }

    #[test]
    fn create_reads_the_command_inside_the_folder() {
        let mut t = Terminals::default();
        let launch = create(
            &mut t,
            json!({"sessionId": "s", "command": "ls", "args": ["-la"], "env": [{"name": "A", "value": "1"}], "cwd": "/work/app/src"}),
        )
        .unwrap();
        assert_eq!(
            launch,
            Launch {
                id: "term-1".into(),
                file: "ls".into(),
                args: vec!["-la".into()],
                env: vec![("A".into(), "1".into())],
                cwd: "/work/app/src".into()
            }
        );
        // One command line: the shell runs it.
        assert_eq!(
            HostTerminal::Start(launch.clone()).host_json(),
            json!({"kind": "terminal", "start": {"id": "term-1", "file": "ls", "args": ["-la"], "env": {"A": "1"}, "cwd": "/work/app/src"}})
        );
        assert_eq!(
            HostTerminal::Kill("term-1".into()).host_json(),
            json!({"kind": "terminal", "kill": "term-1"})
        );
        let sh = create(&mut t, json!({"command": "ls -la | head -3"})).unwrap();
        assert_eq!(sh.file, "/bin/sh");
        assert_eq!(sh.args, ["-c", "ls -la | head -3"]);
        assert_eq!(sh.cwd, "/work/app");
        let win = t
            .create(
                &json!({"command": "dir /b"}),
                ("C:\\app", &[]),
                true,
                (None, None),
                json!(1),
            )
            .unwrap();
        assert_eq!(win.file, "cmd.exe");
        assert_eq!(win.args, ["/d", "/s", "/c", "\"dir /b\""]);
    }

    #[test]
    fn bad_params_are_named() {
        let mut t = Terminals::default();
        let cases = [
            (
                json!({"command": ""}),
                "params.command must be a non-empty string, got a string",
            ),
            (
                json!({}),
                "params.command must be a non-empty string, got nothing",
            ),
            (
                json!({"command": "ls", "args": [1]}),
                "params.args[0] must be a string, got a number",
            ),
            (
                json!({"command": "ls", "cwd": "/etc"}),
                "params.cwd /etc is outside the working directory /work/app",
            ),
            (
                json!({"command": "ls", "cwd": "../x"}),
                "params.cwd ../x is outside the working directory /work/app",
            ),
            (
                json!({"command": "ls", "env": [{"name": "A=B", "value": "1"}]}),
                "params.env[0] must be { name, value }",
            ),
            (
                json!({"command": "ls", "outputByteLimit": -1}),
                "params.outputByteLimit must be a whole number ≥ 0, got -1",
            ),
        ];
        for (params, message) in cases {
            let e = create(&mut t, params.clone()).unwrap_err();
            assert!(e.starts_with(message), "{params}: {e}");
        }
        assert!(t.is_empty());
    }

    #[test]
    fn output_is_kept_within_the_limit_at_a_character_boundary() {
        let mut t = Terminals::default();
        let l = create(&mut t, json!({"command": "x", "outputByteLimit": 5})).unwrap();
        assert_eq!(t.started(&l.id), Some(json!(5)));
        assert_eq!(t.started(&l.id), None, "answered once");
        t.output(&l.id, "ab".as_bytes());
        let term = t.get(&l.id, Some(1)).unwrap();
        assert_eq!(
            term.output_result(),
            json!({"output": "ab", "truncated": false})
        );
        // "é" is two bytes, "世" three: the last 5 of "abé世" are "é世".
        t.output(&l.id, "é世".as_bytes());
        let term = t.get(&l.id, Some(1)).unwrap();
        assert_eq!(
            term.output_result(),
            json!({"output": "é世", "truncated": true})
        );
        // One byte more: the last 5 would start inside "é", so only "世"
        // is kept; half a character waits for its rest.
        t.output(&l.id, &"界".as_bytes()[..1]);
        assert_eq!(
            t.get(&l.id, Some(1)).unwrap().output_result()["output"],
            "世"
        );
        t.output(&l.id, &"界".as_bytes()[1..]);
        assert_eq!(
            t.get(&l.id, Some(1)).unwrap().output_result()["output"],
            "界"
        );
        assert!(
            t.get(&l.id, Some(2)).is_none(),
            "another session's terminal"
        );
    }

    #[test]
    fn wait_exit_and_release() {
        let mut t = Terminals::default();
        let l = create(&mut t, json!({"command": "x"})).unwrap();
        t.started(&l.id);
        assert_eq!(t.wait(&l.id, json!(9)), None);
        assert_eq!(t.running_of(Some(1)), std::slice::from_ref(&l.id));
        let (waiting, result) = t.exited(
            &l.id,
            ExitStatus {
                exit_code: Some(3),
                signal: None,
            },
        );
        assert_eq!(waiting, [json!(9)]);
        assert_eq!(result, json!({"exitCode": 3, "signal": null}));
        assert_eq!(t.wait(&l.id, json!(10)), Some(result.clone()));
        assert_eq!(
            t.get(&l.id, Some(1)).unwrap().output_result(),
            json!({"output": "", "truncated": false, "exitStatus": {"exitCode": 3, "signal": null}})
        );
        assert!(t.running_of(None).is_empty());
        assert_eq!(t.release(&l.id), Some((false, Vec::new())));
        assert!(t.get(&l.id, Some(1)).is_none());
        let l2 = create(&mut t, json!({"command": "y"})).unwrap();
        assert_eq!(t.failed(&l2.id), Some(json!(5)));
        assert!(t.is_empty());
        for _ in 0..MAX_TERMINALS {
            create(&mut t, json!({"command": "z"})).unwrap();
        }
        assert!(create(&mut t, json!({"command": "z"}))
            .unwrap_err()
            .starts_with("too many terminals"));
    }
}
