//! Where an agent's executable may be, and how to launch what is found.
//!
//! The host looks; this module decides where and in what order, and what
//! to run once a file is found:
//!
//! 1. [`search_plan`]: the ordered candidates — each `PATH` folder (with
//!    each of `PATHEXT`'s launchable extensions on Windows); then, on macOS
//!    and Linux, each folder of the login shell's `PATH` (an Electron app
//!    started from the Finder or a desktop launcher has a minimal `PATH`;
//!    the host runs [`LoginShell`]'s command, bounded in time, caches its
//!    output and passes it back); then the usual install folders. A
//!    command given with a folder (`/opt/x/claude`, `C:\x\claude.cmd`) is
//!    looked at only there.
//! 2. [`launch_for`]: what the found file needs — run directly (a native
//!    executable, or a POSIX file with its `#!` line), or, for a Windows
//!    `.cmd` shim, its interpreter and script read with
//!    [`super::cmd_shim`] (never `cmd.exe`).
//! 3. [`finish`]: the interpreter found (next to the shim, or as a command),
//!    or, in Electron's main process with none found, Electron itself with
//!    `ELECTRON_RUN_AS_NODE=1`.
//!
//! ```
//! use agent_context::launch::platform::{resolve::{search_plan, SearchRequest}, Platform};
//!
//! let env = vec![("PATH".to_owned(), "/usr/bin:/bin".to_owned()), ("HOME".to_owned(), "/home/me".to_owned())];
//! let plan = search_plan(&SearchRequest { platform: Platform::Linux, command: "claude", env: &env, login_shell_path: None, extra_dirs: &[] }).unwrap();
//! assert_eq!(plan.candidates[0].path, "/usr/bin/claude");
//! assert_eq!(plan.candidates[0].source, "PATH");
//! assert!(plan.login_shell.is_some()); // not given yet: run it if nothing is found on PATH
//! ```

use serde::Serialize;

use super::cmd_shim::{normalize_windows_path, parse_cmd_shim, ShimProgram};
use super::Platform;
use crate::error::{AgentContextError, Result};

/// What to look for and with which environment.
#[derive(Clone, Copy, Debug)]
pub struct SearchRequest<'a> {
    pub platform: Platform,
    /// A command name (`claude`) or a path.
    pub command: &'a str,
    /// The environment the search uses (the host's, or the one given).
    pub env: &'a [(String, String)],
    /// The login shell's `PATH`, once the host ran [`LoginShell`] and read
    /// it with [`parse_login_shell_output`].
    pub login_shell_path: Option<&'a str>,
    /// More folders to look in last (an agent's own install folder).
    pub extra_dirs: &'a [String],
}

/// One file to look at, and why it is looked at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub path: String,
    /// `PATH`, `login shell PATH`, `given`, or the install folder's name
    /// (`npm global prefix`, `~/.local/bin`, …).
    pub source: &'static str,
}

/// The login shell to run: `file` with `args`; its output holds the `PATH`
/// between two markers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoginShell {
    pub file: String,
    pub args: Vec<String>,
}

/// The candidates in order, and the login shell to ask when none of the
/// `PATH` ones exists and its `PATH` was not given yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchPlan {
    pub candidates: Vec<Candidate>,
    #[serde(rename = "loginShell")]
    pub login_shell: Option<LoginShell>,
}

pub const PATH_SOURCE: &str = "PATH";
pub const LOGIN_SHELL_SOURCE: &str = "login shell PATH";
const START_MARKER: &str = "__AGENT_CONTEXT_PATH_START__";
const END_MARKER: &str = "__AGENT_CONTEXT_PATH_END__";
/// What Windows launches without a shell, in `PATHEXT`'s default order.
/// `.js`, `.vbs`, `.ps1` in `PATHEXT` open Windows Script Host or
/// PowerShell, not Node: they are not candidates.
const WINDOWS_LAUNCHABLE: [&str; 4] = [".COM", ".EXE", ".BAT", ".CMD"];

/// The command an agent's CLI is installed as (`claude`, `codex`,
/// `gemini`), from its registry entry. Errors (`INVALID_INPUT`) for an
/// agent type without a CLI.
pub fn default_command(agent_type: &str) -> Result<&'static str> {
    Ok(crate::agents::require(agent_type, "to find its command")?.command())
}

/// Folders an agent's own installer uses, looked at after the usual ones:
/// its registry entry's install folders under the home folder.
pub fn agent_dirs(agent_type: &str, platform: Platform, env: &[(String, String)]) -> Vec<String> {
    let dirs = crate::agents::find(agent_type).map_or(&[][..], |a| {
        a.cli.map_or(&[][..], |cli| cli.extras.install_dirs)
    });
    match home(platform, env) {
        Some(home) => dirs.iter().map(|d| join(platform, &home, d)).collect(),
        None => Vec::new(),
    }
}

/// Looks an environment variable up as the platform does (Windows ignores
/// case: `Path` is `PATH`).
pub fn env_get<'a>(platform: Platform, env: &'a [(String, String)], key: &str) -> Option<&'a str> {
    env.iter()
        .find(|(k, _)| {
            if platform.is_windows() {
                k.eq_ignore_ascii_case(key)
            } else {
                k == key
            }
        })
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

fn home(platform: Platform, env: &[(String, String)]) -> Option<String> {
    let key = if platform.is_windows() {
        "USERPROFILE"
    } else {
        "HOME"
    };
    env_get(platform, env, key).map(str::to_owned)
}

/// `dir` + `name`, with the platform's separator (`/` in `name` becomes
/// `\` on Windows).
fn join(platform: Platform, dir: &str, name: &str) -> String {
    let sep = platform.dir_separator();
    let name = if platform.is_windows() {
        name.replace('/', "\\")
    } else {
        name.to_owned()
    };
    if dir.ends_with(['/', '\\']) {
        format!("{dir}{name}")
    } else {
        format!("{dir}{sep}{name}")
    }
}

fn has_dir(platform: Platform, command: &str) -> bool {
    command.contains('/') || (platform.is_windows() && command.contains(['\\', ':']))
}

/// The extensions to try after `name` on Windows: none when it already has
/// a launchable one; else `PATHEXT`'s launchable entries (default
/// `.COM;.EXE;.BAT;.CMD`).
fn windows_extensions(env: &[(String, String)], name: &str) -> Vec<String> {
    let upper = name.to_ascii_uppercase();
    if WINDOWS_LAUNCHABLE.iter().any(|e| upper.ends_with(e)) {
        return vec![String::new()];
    }
    let listed: Vec<String> = env_get(Platform::Win32, env, "PATHEXT")
        .map(|p| {
            p.split(';')
                .map(|e| e.trim().to_ascii_uppercase())
                .filter(|e| WINDOWS_LAUNCHABLE.contains(&e.as_str()))
                .collect()
        })
        .unwrap_or_default();
    let exts = if listed.is_empty() {
        WINDOWS_LAUNCHABLE.map(String::from).to_vec()
    } else {
        listed
    };
    exts.into_iter().map(|e| e.to_ascii_lowercase()).collect()
}

/// The ordered candidates for `request`.
///
/// Errors (`INVALID_INPUT`): an empty command.
pub fn search_plan(request: &SearchRequest) -> Result<SearchPlan> {
    let platform = request.platform;
    let command = request.command;
    if command.trim().is_empty() {
        return Err(AgentContextError::invalid("command must not be empty"));
    }
    let env = request.env;
    let names: Vec<String> = if platform.is_windows() {
        windows_extensions(env, command)
            .into_iter()
            .map(|e| format!("{command}{e}"))
            .collect()
    } else {
        vec![command.to_owned()]
    };
    let mut plan = SearchPlan {
        candidates: Vec::new(),
        login_shell: None,
    };
    let mut add = |dir: &str, source: &'static str| {
        for name in &names {
            let path = join(platform, dir, name);
            let path = if platform.is_windows() {
                normalize_windows_path(&path)
            } else {
                path
            };
            let seen = plan.candidates.iter().any(|c| {
                if platform.is_windows() {
                    c.path.eq_ignore_ascii_case(&path)
                } else {
                    c.path == path
                }
            });
            if !seen {
                plan.candidates.push(Candidate { path, source });
            }
        }
    };
    if has_dir(platform, command) {
        for path in names {
            let path = if platform.is_windows() {
                normalize_windows_path(&path)
            } else {
                path
            };
            plan.candidates.push(Candidate {
                path,
                source: "given",
            });
        }
        return Ok(plan);
    }
    let sep = platform.path_list_separator();
    for dir in env_get(platform, env, "PATH").unwrap_or("").split(sep) {
        let dir = dir.trim_matches('"');
        if !dir.is_empty() {
            add(dir, PATH_SOURCE);
        }
    }
    if !platform.is_windows() {
        match request.login_shell_path {
            Some(path) => {
                for dir in path.split(sep).filter(|d| !d.is_empty()) {
                    add(dir, LOGIN_SHELL_SOURCE);
                }
            }
            None => plan.login_shell = Some(login_shell(platform, env)),
        }
    }
    for (dir, source) in install_dirs(platform, env) {
        add(&dir, source);
    }
    for dir in request.extra_dirs {
        add(dir, "agent's install folder");
    }
    Ok(plan)
}

/// The usual folders a CLI installed with npm (or a Node version manager,
/// or Homebrew) lands in, for a host whose `PATH` misses them.
fn install_dirs(platform: Platform, env: &[(String, String)]) -> Vec<(String, &'static str)> {
    let get = |key: &str| env_get(platform, env, key).map(str::to_owned);
    let home = home(platform, env);
    let mut dirs = Vec::new();
    let mut push = |dir: Option<String>, source: &'static str| {
        if let Some(dir) = dir {
            dirs.push((dir, source));
        }
    };
    let under_home = |rest: &str| home.as_ref().map(|h| join(platform, h, rest));
    if platform.is_windows() {
        // npm's global prefix holds the shims themselves on Windows.
        push(get("npm_config_prefix"), "npm global prefix");
        push(
            get("APPDATA").map(|a| join(platform, &a, "npm")),
            "%APPDATA%\\npm",
        );
        push(under_home(".local/bin"), "%USERPROFILE%\\.local\\bin");
        push(
            get("VOLTA_HOME")
                .or_else(|| get("LOCALAPPDATA").map(|l| join(platform, &l, "Volta")))
                .map(|v| join(platform, &v, "bin")),
            "volta",
        );
        push(get("FNM_MULTISHELL_PATH"), "fnm");
        push(
            get("APPDATA").map(|a| join(platform, &a, "fnm/aliases/default")),
            "fnm",
        );
        push(get("NVM_SYMLINK"), "nvm");
        push(
            get("ProgramFiles").map(|p| join(platform, &p, "nodejs")),
            "%ProgramFiles%\\nodejs",
        );
    } else {
        push(
            get("npm_config_prefix").map(|p| join(platform, &p, "bin")),
            "npm global prefix",
        );
        push(under_home(".npm-global/bin"), "~/.npm-global/bin");
        push(under_home(".local/bin"), "~/.local/bin");
        if platform == Platform::Darwin {
            push(Some("/opt/homebrew/bin".into()), "/opt/homebrew/bin");
        }
        push(Some("/usr/local/bin".into()), "/usr/local/bin");
        push(
            get("VOLTA_HOME")
                .or_else(|| under_home(".volta"))
                .map(|v| join(platform, &v, "bin")),
            "volta",
        );
        push(
            get("FNM_MULTISHELL_PATH").map(|f| join(platform, &f, "bin")),
            "fnm",
        );
        let fnm_dir = get("FNM_DIR").or_else(|| {
            if platform == Platform::Darwin {
                under_home("Library/Application Support/fnm")
            } else {
                get("XDG_DATA_HOME")
                    .map(|x| join(platform, &x, "fnm"))
                    .or_else(|| under_home(".local/share/fnm"))
            }
        });
        push(
            fnm_dir.map(|f| join(platform, &f, "aliases/default/bin")),
            "fnm",
        );
        push(get("NVM_BIN"), "nvm");
        push(
            get("NVM_DIR")
                .or_else(|| under_home(".nvm"))
                .map(|n| join(platform, &n, "current/bin")),
            "nvm",
        );
    }
    dirs
}

/// `$SHELL -ilc '…'` printing `PATH` between markers (an interactive
/// login shell reads the files that set it: `.zprofile`, `.zshrc`,
/// `.bash_profile`, `.bashrc`).
fn login_shell(platform: Platform, env: &[(String, String)]) -> LoginShell {
    let fallback = if platform == Platform::Darwin {
        "/bin/zsh"
    } else {
        "/bin/sh"
    };
    let shell = env_get(platform, env, "SHELL").unwrap_or(fallback);
    LoginShell {
        file: shell.to_owned(),
        args: vec![
            "-ilc".into(),
            format!("printf '%s%s%s' '{START_MARKER}' \"$PATH\" '{END_MARKER}'"),
        ],
    }
}

/// The `PATH` the login shell printed, from its whole output (rc files may
/// print around it); `None` when the markers are missing.
pub fn parse_login_shell_output(output: &str) -> Option<String> {
    let start = output.rfind(START_MARKER)? + START_MARKER.len();
    let end = output[start..].find(END_MARKER)? + start;
    Some(output[start..end].trim().to_owned())
}

/// How to run a found file before its interpreter (if any) is known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Launch {
    /// Spawn the file itself.
    Direct { file: String },
    /// Spawn an interpreter with `args` (its script first) — a Windows shim
    /// read, or a POSIX script whose `#!` names `node` when `node` is not
    /// on the child's `PATH`.
    Interpreter {
        local: Option<String>,
        name: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        /// Whether the file may still be run directly when the
        /// interpreter is on `PATH` (a POSIX script: the kernel reads its
        /// `#!`).
        #[serde(rename = "directIfOnPath")]
        direct_if_on_path: bool,
    },
}

/// What the found `path` needs. `head` is the start of the file (a few
/// hundred bytes are enough for a POSIX `#!` line; the whole text for a
/// Windows `.cmd`/`.bat`).
///
/// Errors (`INVALID_INPUT`): a `.cmd`/`.bat` that is not a package
/// manager's shim (only `cmd.exe` could run it), or one not given.
pub fn launch_for(platform: Platform, path: &str, head: Option<&str>) -> Result<Launch> {
    let upper = path.to_ascii_uppercase();
    if platform.is_windows() {
        if upper.ends_with(".CMD") || upper.ends_with(".BAT") {
            let text = head.ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "{path} is a batch file: its text is needed to read it"
                ))
            })?;
            let shim = parse_cmd_shim(path, text)?;
            return Ok(match shim.program {
                ShimProgram::Path { path } if shim.env.is_empty() && shim.args.is_empty() => {
                    Launch::Direct { file: path }
                }
                ShimProgram::Path { path } => Launch::Interpreter {
                    local: Some(path.clone()),
                    name: path,
                    args: shim.args,
                    env: shim.env,
                    direct_if_on_path: false,
                },
                ShimProgram::Interpreter { local, name } => Launch::Interpreter {
                    local,
                    name,
                    args: shim.args,
                    env: shim.env,
                    direct_if_on_path: false,
                },
            });
        }
        return Ok(Launch::Direct {
            file: path.to_owned(),
        });
    }
    match head.and_then(shebang_node_args) {
        Some(args) => {
            let mut all = args;
            all.push(path.to_owned());
            Ok(Launch::Interpreter {
                local: None,
                name: "node".into(),
                args: all,
                env: Vec::new(),
                direct_if_on_path: true,
            })
        }
        None => Ok(Launch::Direct {
            file: path.to_owned(),
        }),
    }
}

/// `#!/usr/bin/env node --flag` or `#!/path/to/node --flag` → the flags.
fn shebang_node_args(head: &str) -> Option<Vec<String>> {
    let line = head.strip_prefix("#!")?.lines().next()?.trim();
    let mut words = line.split_whitespace();
    let first = words.next()?;
    let mut rest: Vec<&str> = words.collect();
    let program = if first.ends_with("/env") {
        if rest.first() == Some(&"-S") {
            rest.remove(0);
        }
        while rest.first().is_some_and(|w| w.contains('=')) {
            rest.remove(0);
        }
        if rest.is_empty() {
            return None;
        }
        rest.remove(0)
    } else {
        first
    };
    (program.rsplit('/').next() == Some("node"))
        .then(|| rest.iter().map(|w| (*w).to_owned()).collect())
}

/// How the interpreter a [`Launch::Interpreter`] needs was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interpreter {
    /// The file next to the shim (`local`) exists.
    Local,
    /// Found as a command at `path`, from `source` (a candidate's source).
    Found { path: String, source: &'static str },
    /// Not found; `electron_exec_path` is `process.execPath` when the host
    /// is Electron's main process.
    Missing { electron_exec_path: Option<String> },
}

/// The resolved command: spawn `file` with `args` and then the agent's,
/// adding `env` to the environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Resolved {
    /// The file that was found (the shim, the script, the executable).
    pub path: String,
    pub source: &'static str,
    pub file: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// `direct`, `interpreter` or `electron`.
    pub via: &'static str,
}

/// Puts a launch and its interpreter together.
///
/// Errors (`INVALID_INPUT`): the interpreter missing and no Electron to
/// stand in for it; the message names what was looked for.
pub fn finish(
    found: &Candidate,
    launch: Launch,
    interpreter: Option<Interpreter>,
) -> Result<Resolved> {
    let resolved = |file: String, args: Vec<String>, env: Vec<(String, String)>, via| Resolved {
        path: found.path.clone(),
        source: found.source,
        file,
        args,
        env,
        via,
    };
    match launch {
        Launch::Direct { file } => Ok(resolved(file, Vec::new(), Vec::new(), "direct")),
        Launch::Interpreter {
            local,
            name,
            args,
            env,
            direct_if_on_path,
        } => match interpreter {
            Some(Interpreter::Local) => match local {
                Some(local) => Ok(resolved(local, args, env, "interpreter")),
                None => Err(AgentContextError::invalid(format!(
                    "{}: no interpreter next to it to use",
                    found.path
                ))),
            },
            Some(Interpreter::Found { source, .. }) if direct_if_on_path && source == PATH_SOURCE => {
                Ok(resolved(found.path.clone(), Vec::new(), env, "direct"))
            }
            Some(Interpreter::Found { path, .. }) => Ok(resolved(path, args, env, "interpreter")),
            Some(Interpreter::Missing {
                electron_exec_path: Some(exec),
            }) => {
                let mut env = env;
                env.push(("ELECTRON_RUN_AS_NODE".into(), "1".into()));
                Ok(resolved(exec, args, env, "electron"))
            }
            None | Some(Interpreter::Missing { .. }) => Err(AgentContextError::invalid(format!(
                "{} needs {name} to run, and {name} was not found (nor Electron to stand in for it)",
                found.path
            ))),
        },
    }
}

/// The `command_not_found` message: every place searched, in order.
pub fn not_found_message<'a>(
    command: &str,
    searched: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    let mut message = format!("{command} was not found; looked at:");
    for (path, source) in searched {
        message.push_str(&format!("\n  {path} ({source})"));
    }
    message
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
