//! The local command that runs an argument list on the other side: `ssh`
//! (one shared connection per session: ControlMaster in a folder of the
//! run's own), `docker exec -i`, `kubectl exec -i`, or the host's own
//! function. The argument list holds the bootstrap and an operation's
//! name, never a value of the environment: those travel on stdin.

use serde_json::{json, Value};

use super::host::RemoteHost;

/// The bootstrap every operation runs (`sh -c`).
pub const BOOTSTRAP: &str = include_str!("bootstrap.sh");

/// Seconds the shared SSH connection outlives its last use, should the
/// host never say it is done (it is ended at close).
pub const SSH_PERSIST_S: u32 = 60;

/// What the host starts locally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Local {
    /// `command args…`.
    Spawn { command: String, args: Vec<String> },
    /// The host's `exec(argv, env)` answers the command that runs `argv`.
    Exec { argv: Vec<String> },
}

impl Local {
    /// `{ via: 'spawn', command, args }` or `{ via: 'exec', argv }`.
    pub fn to_json(&self) -> Value {
        match self {
            Local::Spawn { command, args } => {
                json!({ "via": "spawn", "command": command, "args": args })
            }
            Local::Exec { argv } => json!({ "via": "exec", "argv": argv }),
        }
    }
}

/// The argument list the other side runs for operation `mode` of the run
/// in `run_folder` (process `process`; `extra`: the operation's own
/// arguments, never a secret).
pub fn inner_argv(mode: &str, run_folder: &str, process: &str, extra: &[String]) -> Vec<String> {
    let mut argv = vec![
        "sh".to_owned(),
        "-c".to_owned(),
        BOOTSTRAP.to_owned(),
        "agent-context".to_owned(),
        mode.to_owned(),
        run_folder.to_owned(),
        process.to_owned(),
    ];
    argv.extend(extra.iter().cloned());
    argv
}

/// `word` quoted for a POSIX shell (what `ssh` hands the remote login
/// shell is one command line).
pub fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@%+,".contains(&b))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The `ssh` arguments before the host: the caller's settings first (ssh
/// keeps the first value it reads of each), then the shared connection.
fn ssh_settings(host: &super::host::SshHost, control: &str) -> Vec<String> {
    let mut args = vec!["-T".to_owned()];
    for option in &host.options {
        args.extend(["-o".to_owned(), option.clone()]);
    }
    if let Some(port) = host.port {
        args.extend(["-p".to_owned(), port.to_string()]);
    }
    if let Some(user) = &host.user {
        args.extend(["-l".to_owned(), user.clone()]);
    }
    if let Some(identity) = &host.identity_file {
        args.extend(["-i".to_owned(), identity.clone()]);
    }
    for setting in [
        "BatchMode=yes".to_owned(),
        "LogLevel=ERROR".to_owned(),
        "ControlMaster=auto".to_owned(),
        format!("ControlPath={control}"),
        format!("ControlPersist={SSH_PERSIST_S}"),
    ] {
        args.extend(["-o".to_owned(), setting]);
    }
    args
}

/// The local command that runs `argv` on `host`. `control`: the SSH
/// control socket's path (a folder of the run's own).
pub fn local_command(host: &RemoteHost, control: &str, argv: Vec<String>) -> Local {
    match host {
        RemoteHost::Ssh(s) => {
            let mut args = ssh_settings(s, control);
            args.push("--".to_owned());
            args.push(s.host.clone());
            let line: Vec<String> = argv.iter().map(|w| shell_quote(w)).collect();
            args.push(line.join(" "));
            Local::Spawn {
                command: "ssh".to_owned(),
                args,
            }
        }
        RemoteHost::Docker(d) => {
            let mut args = vec!["exec".to_owned(), "-i".to_owned()];
            if let Some(user) = &d.user {
                args.extend(["-u".to_owned(), user.clone()]);
            }
            args.push(d.container.clone());
            args.extend(argv);
            Local::Spawn {
                command: d.docker.clone(),
                args,
            }
        }
        RemoteHost::Kubernetes(k) => {
            let mut args = Vec::new();
            if let Some(context) = &k.context {
                args.extend(["--context".to_owned(), context.clone()]);
            }
            args.extend(["exec".to_owned(), "-i".to_owned()]);
            if let Some(ns) = &k.namespace {
                args.extend(["-n".to_owned(), ns.clone()]);
            }
            if let Some(container) = &k.container {
                args.extend(["-c".to_owned(), container.clone()]);
            }
            args.push(k.pod.clone());
            args.push("--".to_owned());
            args.extend(argv);
            Local::Spawn {
                command: k.kubectl.clone(),
                args,
            }
        }
        RemoteHost::Exec => Local::Exec { argv },
    }
}

/// The command that ends the shared SSH connection (`ssh -O exit`), for
/// an SSH host.
pub fn end_shared_connection(host: &RemoteHost, control: &str) -> Option<Local> {
    let RemoteHost::Ssh(s) = host else {
        return None;
    };
    let mut args = ssh_settings(s, control);
    args.extend([
        "-O".to_owned(),
        "exit".to_owned(),
        "--".to_owned(),
        s.host.clone(),
    ]);
    Some(Local::Spawn {
        command: "ssh".to_owned(),
        args,
    })
}
