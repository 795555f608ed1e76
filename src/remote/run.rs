//! One engine's run on the other side (pure): where its folder is, what
//! the run owns there, and every operation the host carries out through the
//! channel — the probe, each process of the agent (the bootstrap, its
//! preamble, the agent's own stdin after it), reading back what it wrote,
//! ending it, the client's file system methods, and the cleanup.

use serde_json::{json, Value};

use super::channel::{end_shared_connection, inner_argv, local_command, Local};
use super::end::{ChannelEnd, ProcessEnd};
use super::host::RemoteHost;
use super::wire::{is_variable_name, read_frames, Frame, Preamble};
use crate::attempt::LogWatch;
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::type_name;
use crate::launch::invocation::InvocationFile;
use crate::launch::run_home::{Entry, HomePlan};

/// One operation: what the host starts locally, and the bytes it writes
/// to its stdin first (for a process of the agent, the agent's own stdin
/// follows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub local: Local,
    pub stdin: String,
}

impl Op {
    /// `{ local, stdin }`.
    pub fn to_json(&self) -> Value {
        json!({ "local": self.local.to_json(), "stdin": self.stdin })
    }
}

/// What the engine would spawn locally (`Action::Spawn`'s fields).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalSpawn {
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub default_env: Vec<(String, String)>,
    pub cwd: String,
    pub files: Vec<InvocationFile>,
    pub outputs: Vec<String>,
}

/// What the probe found on the other side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probed {
    /// The run's folder there.
    pub run_folder: String,
    /// The working folder, links resolved (the login folder when none was given).
    pub cd: String,
    /// The variables asked about that are set there (`HOME`, …), after
    /// the caller's own.
    pub env: Vec<(String, String)>,
}

/// Why the probe found no place for the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeProblem {
    /// The channel did not reach the other side.
    Unreachable(String),
    /// `cd` is missing or not a folder there (the caller's input).
    Cd(String),
}

/// Why a file's bytes were not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GotBytes {
    /// Over the limit asked for: its size.
    Size(usize),
    /// `ENOENT`, `EISDIR`, `EACCES`, `EIO`.
    Error(String),
}

/// Where the run's folder goes, under the home of the other side.
const RUNS: &str = ".cache/agent-context/runs";

/// The variables the probe reports: the home, and the variables naming
/// an agent's own home folder.
fn probe_variables() -> Vec<String> {
    let mut vars = vec!["HOME".to_owned(), "USERPROFILE".to_owned()];
    for agent in crate::agents::AGENTS {
        if let Some(home) = agent.home {
            if !vars.iter().any(|v| v == home.env) {
                vars.push(home.env.to_owned());
            }
        }
    }
    vars
}

/// A run on the other side.
#[derive(Clone, Debug)]
pub struct RemoteRun {
    host: RemoteHost,
    name: String,
    /// The SSH control socket (a folder of the run's own on this side).
    control: String,
    /// The caller's variables, added to the other side's environment.
    env: Vec<(String, String)>,
    /// The run's folder's name (`run-…`), and its path once probed.
    run_name: String,
    run_folder: Option<String>,
    /// Made before each process starts (folders, files, links): the
    /// endpoint's settings, the run's home.
    staged: Preamble,
    processes: u32,
}

impl RemoteRun {
    /// `host` as read; `control`: the SSH control socket's path; `env`:
    /// the caller's `options.env` (names checked: a POSIX sh must be able
    /// to set them); `run_name`: the run folder's name.
    pub fn new(
        host: RemoteHost,
        control: &str,
        env: Vec<(String, String)>,
        run_name: &str,
    ) -> Result<RemoteRun> {
        if let Some((name, _)) = env.iter().find(|(n, _)| !is_variable_name(n)) {
            return Err(AgentContextError::invalid(format!(
                "options.env.{name} cannot be set on {}: not a variable name a POSIX shell can set",
                host.name()
            )));
        }
        if let Some((name, _)) = env.iter().find(|(_, v)| v.contains('\0')) {
            return Err(AgentContextError::invalid(format!(
                "options.env.{name} holds a NUL byte"
            )));
        }
        if run_name.is_empty()
            || !run_name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err(AgentContextError::invalid(format!(
                "the run folder's name must be letters, digits and '-', got {run_name:?}"
            )));
        }
        Ok(RemoteRun {
            name: host.name(),
            host,
            control: control.to_owned(),
            env,
            run_name: run_name.to_owned(),
            run_folder: None,
            staged: Preamble::default(),
            processes: 0,
        })
    }

    pub fn host(&self) -> &RemoteHost {
        &self.host
    }

    /// How messages name the other side.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The run's folder there (empty before the probe).
    pub fn run_folder(&self) -> &str {
        self.run_folder.as_deref().unwrap_or("")
    }

    fn op(&self, mode: &str, process: &str, extra: &[String], stdin: String) -> Op {
        let argv = inner_argv(mode, self.run_folder(), process, extra);
        Op {
            local: local_command(&self.host, &self.control, argv),
            stdin,
        }
    }

    fn with_env(&self, preamble: &mut Preamble) {
        for (name, value) in &self.env {
            preamble.env(name, value, false);
        }
    }

    /// The first operation: the other side's home (where the run's folder
    /// goes) and `cd` checked there, with the caller's variables set.
    pub fn probe(&self, cd: Option<&str>) -> Op {
        let mut p = Preamble::default();
        self.with_env(&mut p);
        if let Some(cd) = cd.filter(|c| !c.is_empty()) {
            p.cd(cd);
        }
        let argv = inner_argv("probe", "-", "-", &probe_variables());
        Op {
            local: local_command(&self.host, &self.control, argv),
            stdin: p.finish(),
        }
    }

    /// The probe's answer (`answer`: its stdout; `stderr`: the last of
    /// what the channel said, for a message), or why there is no place
    /// for the run.
    pub fn probed(
        &mut self,
        answer: &[u8],
        stderr: &str,
    ) -> std::result::Result<Probed, ProbeProblem> {
        let frames = read_frames(answer).map_err(|_| {
            let said = stderr.trim();
            ProbeProblem::Unreachable(if said.is_empty() {
                format!("{} could not be reached", self.name)
            } else {
                format!("{} could not be reached: {said}", self.name)
            })
        })?;
        let get = |tag: &str| frames.iter().find(|f| f.tag == tag).map(Frame::text);
        if let Some(cd) = get("missing") {
            return Err(ProbeProblem::Cd(format!(
                "does not exist on {}: {cd}",
                self.name
            )));
        }
        if let Some(cd) = get("notdir") {
            return Err(ProbeProblem::Cd(format!(
                "is not a directory on {}: {cd}",
                self.name
            )));
        }
        let home = get("home").filter(|h| h.starts_with('/')).ok_or_else(|| {
            ProbeProblem::Unreachable(format!(
                "{} has no absolute HOME for the run's folder",
                self.name
            ))
        })?;
        let folder = format!("{}/{RUNS}/{}", home.trim_end_matches('/'), self.run_name);
        self.run_folder = Some(folder.clone());
        let env = frames
            .iter()
            .filter_map(|f| f.tag.strip_prefix("var ").map(|n| (n.to_owned(), f.text())))
            .collect();
        Ok(Probed {
            run_folder: folder,
            cd: get("cd").unwrap_or(home),
            env,
        })
    }

    /// Files the run writes before its processes start (the endpoint's
    /// settings, the bound on the agent's retries), made there with their
    /// folders, readable by the user alone.
    pub fn stage_files(&mut self, files: &[InvocationFile]) {
        for file in files {
            if let Some((folder, _)) = file.path.rsplit_once('/') {
                if !folder.is_empty() {
                    self.staged.folder(folder);
                }
            }
            self.staged.file(&file.path, &file.content);
        }
    }

    /// A file of bytes the run writes before its processes start (an
    /// image given as data, for a CLI that reads it from a path).
    pub fn stage_bytes(&mut self, path: &str, bytes: &[u8]) {
        if let Some((folder, _)) = path.rsplit_once('/') {
            if !folder.is_empty() {
                self.staged.folder(folder);
            }
        }
        self.staged.file_bytes(path, bytes);
    }

    /// Lists the user's folder for an agent's run home there, and reads
    /// its settings file (`settings_file`, in that folder).
    pub fn list(&self, folder: &str, settings_file: &str) -> Op {
        let mut p = Preamble::default();
        p.path(folder);
        self.op("list", "-", &[settings_file.to_owned()], p.finish())
    }

    /// The list's answer: the folder's entries and its settings file's text.
    pub fn listed(&self, answer: &[u8]) -> Result<(Vec<Entry>, Option<String>)> {
        let frames = read_frames(answer)?;
        let entries = frames
            .iter()
            .filter(|f| f.tag == "dir" || f.tag == "file")
            .map(|f| Entry {
                name: f.text(),
                dir: f.tag == "dir",
            })
            .collect();
        let settings = frames.iter().find(|f| f.tag == "settings").map(Frame::text);
        Ok((entries, settings))
    }

    /// The run's home, made there as its plan says.
    pub fn stage_home(&mut self, plan: &HomePlan) {
        for folder in plan.kept.iter().chain(&plan.folders) {
            self.staged.folder(folder);
        }
        for link in &plan.links {
            self.staged.link(&link.target, &link.path);
        }
        self.stage_files(&plan.files);
    }

    /// A process of the agent: the operation that starts it through the
    /// channel, and its id (for [`Self::reap`], [`Self::kill`],
    /// [`Self::watch`]). `INVALID_INPUT` for a variable the other side
    /// cannot be given.
    pub fn spawn(&mut self, spawn: &LocalSpawn) -> Result<(String, Op)> {
        if let Some((name, _)) = spawn
            .env
            .iter()
            .chain(&spawn.default_env)
            .find(|(n, v)| !is_variable_name(n) || v.contains('\0'))
        {
            return Err(AgentContextError::invalid(format!(
                "the variable {name} cannot be set on {}",
                self.name
            )));
        }
        self.processes += 1;
        let id = format!("p{}", self.processes);
        let mut p = self.staged.clone();
        p.name(&self.name);
        self.with_files(&mut p, &spawn.files, &spawn.outputs);
        for (name, value) in &spawn.default_env {
            p.env(name, value, true);
        }
        self.with_env(&mut p);
        for (name, value) in &spawn.env {
            p.env(name, value, false);
        }
        p.cd(&spawn.cwd);
        p.command(&spawn.command);
        for arg in &spawn.args {
            p.arg(arg);
        }
        let op = self.op("run", &id, &[], p.finish());
        Ok((id, op))
    }

    fn with_files(&self, p: &mut Preamble, files: &[InvocationFile], outputs: &[String]) {
        let parent = |path: &str| {
            path.rsplit_once('/')
                .map(|(f, _)| f.to_owned())
                .filter(|f| !f.is_empty())
        };
        for file in files {
            if let Some(folder) = parent(&file.path) {
                p.folder(&folder);
            }
            p.file(&file.path, &file.content);
        }
        for output in outputs {
            if let Some(folder) = parent(output) {
                p.folder(&folder);
            }
            p.remove(output);
        }
    }

    /// Reads the file the agent tells of its own retries in, as it grows,
    /// until process `id` has ended.
    pub fn watch(&self, id: &str, log: &LogWatch) -> Op {
        let extra = [
            log.path.clone(),
            log.every_ms.max(50).to_string(),
            log.keep_bytes.to_string(),
        ];
        self.op("watch", id, &extra, String::new())
    }

    /// After process `id`'s channel ended: its process group swept, how
    /// it ended, and the files it wrote for the reply (`outputs`), handed
    /// back and removed.
    pub fn reap(&self, id: &str, outputs: &[String]) -> Op {
        let mut p = Preamble::default();
        for output in outputs {
            p.output(output);
        }
        self.op("reap", id, &[], p.finish())
    }

    /// How process `id` ended: `channel` as the local process ended,
    /// `killed` when the host ended it, `answer` the reap's stdout (`None`
    /// when it could not run).
    pub fn reaped(
        &self,
        channel: &ChannelEnd,
        killed: bool,
        answer: Option<&[u8]>,
        outputs: &[String],
    ) -> ProcessEnd {
        let frames = answer.and_then(|a| read_frames(a).ok());
        super::end::judge(&self.name, channel, killed, frames.as_deref(), outputs)
    }

    /// Ends process `id`'s process group there with `signal` (`TERM`, `KILL`).
    pub fn kill(&self, id: &str, signal: &str) -> Op {
        let signal = if signal == "TERM" { "TERM" } else { "KILL" };
        self.op("kill", id, &[signal.to_owned()], String::new())
    }

    /// Ends every process of the run there and removes its folder.
    pub fn clean(&self) -> Option<Op> {
        self.run_folder.as_ref()?;
        Some(self.op("clean", "-", &[], String::new()))
    }

    /// Ends the shared SSH connection (after [`Self::clean`]).
    pub fn end_shared(&self) -> Option<Local> {
        end_shared_connection(&self.host, &self.control)
    }

    /// The real path of `path` there (links resolved, through its nearest
    /// existing folder), for the client's file system methods.
    pub fn resolve(&self, path: &str) -> Op {
        let mut p = Preamble::default();
        p.path(path);
        self.op("resolve", "-", &[], p.finish())
    }

    pub fn resolved(&self, answer: &[u8]) -> Result<String> {
        let frames = read_frames(answer)?;
        frames
            .iter()
            .find(|f| f.tag == "real")
            .map(Frame::text)
            .ok_or_else(|| AgentContextError::invalid("no path in the answer"))
    }

    /// Reads a text file there.
    pub fn get(&self, path: &str) -> Op {
        let mut p = Preamble::default();
        p.path(path);
        self.op("get", "-", &[], p.finish())
    }

    /// The file's text, or the error code (`ENOENT`, `EISDIR`, `EACCES`,
    /// `EIO` when the answer did not come whole).
    pub fn got(&self, answer: &[u8]) -> std::result::Result<String, String> {
        let frames = read_frames(answer).map_err(|_| "EIO".to_owned())?;
        if let Some(error) = frames.iter().find(|f| f.tag == "error") {
            return Err(error.text());
        }
        frames
            .iter()
            .find(|f| f.tag == "content")
            .map(Frame::text)
            .ok_or_else(|| "EIO".to_owned())
    }

    /// The bytes of a file read with [`Self::get`] (an image given by
    /// path): `Err` says why not — its size when over `max`, else the
    /// error code.
    pub fn got_bytes(&self, answer: &[u8], max: usize) -> std::result::Result<Vec<u8>, GotBytes> {
        let frames = read_frames(answer).map_err(|_| GotBytes::Error("EIO".to_owned()))?;
        if let Some(error) = frames.iter().find(|f| f.tag == "error") {
            return Err(GotBytes::Error(error.text()));
        }
        let content = frames
            .into_iter()
            .find(|f| f.tag == "content")
            .ok_or_else(|| GotBytes::Error("EIO".to_owned()))?;
        if content.body.len() > max {
            return Err(GotBytes::Size(content.body.len()));
        }
        Ok(content.body)
    }

    /// Writes a text file there, its folder made.
    pub fn put(&self, path: &str, content: &str) -> Op {
        let mut p = Preamble::default();
        self.with_files(
            &mut p,
            &[InvocationFile {
                path: path.to_owned(),
                content: content.to_owned(),
            }],
            &[],
        );
        self.op("put", "-", &[], p.finish())
    }

    /// Whether an operation came to its end (`put`, `kill`, `clean`).
    pub fn finished(answer: &[u8]) -> bool {
        read_frames(answer).is_ok()
    }
}

/// The host's `exec` function's answer, checked: `{ command, args }`.
pub fn exec_answer(answer: &Value) -> Result<Local> {
    let field = "options.host.exec's answer";
    let Value::Object(map) = answer else {
        return Err(AgentContextError::invalid(format!(
            "{field} must be an object {{ command, args }}, got {}",
            type_name(answer)
        )));
    };
    let command = match map.get("command") {
        Some(Value::String(c)) if !c.is_empty() => c.clone(),
        other => {
            return Err(AgentContextError::invalid(format!(
                "{field}.command must be a non-empty string, got {}",
                other.map_or("nothing", type_name)
            )))
        }
    };
    let args = match map.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                Value::String(s) => Ok(s.clone()),
                other => Err(AgentContextError::invalid(format!(
                    "{field}.args[{i}] must be a string, got {}",
                    type_name(other)
                ))),
            })
            .collect::<Result<_>>()?,
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{field}.args must be an array of strings, got {}",
                type_name(other)
            )))
        }
    };
    Ok(Local::Spawn { command, args })
}
