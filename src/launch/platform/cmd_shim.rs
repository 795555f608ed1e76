//! What a Windows `.cmd` shim runs, read from its text, so the target can
//! be launched directly: Node refuses to spawn a `.cmd` without a shell
//! since the CVE-2024-27980 fix (`EINVAL`), and through `cmd.exe` every
//! argument is parsed again (`%`, `^`, `&`, `!`, quotes) and the line is
//! held to 8 191 characters.
//!
//! The shims read are the ones package managers write for a package's
//! `bin`:
//!
//! - npm's `cmd-shim` (npm 7 and later): `SET "_prog=%dp0%\node.exe"` when
//!   that file exists, else `SET "_prog=node"`, then one line ending in
//!   `"%_prog%" <args> "%dp0%\<target>" %*`; a target without a `#!` line
//!   is run itself: `"%dp0%\<target>" %*`;
//! - the older form (npm 6, yarn 1, pnpm's `@zkochan/cmd-shim`): an
//!   `IF EXIST "%~dp0\node.exe" (` branch running `"%~dp0\node.exe" <args>
//!   "%~dp0\<target>" %*` and an `ELSE` branch running `node <args> …`,
//!   with `SET` lines for variables (pnpm's `NODE_PATH`).
//!
//! `%dp0%` and `%~dp0` are the shim's folder. Variables the shim sets from
//! a `#!/usr/bin/env -S NAME=value` line become environment entries.
//!
//! ```
//! use agent_context::launch::platform::cmd_shim::{parse_cmd_shim, ShimProgram};
//!
//! let text = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n\r\n\
//!     IF EXIST \"%dp0%\\node.exe\" (\r\n  SET \"_prog=%dp0%\\node.exe\"\r\n) ELSE (\r\n  SET \"_prog=node\"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\n\
//!     endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & \"%_prog%\"  \"%dp0%\\..\\@anthropic-ai\\claude-code\\cli.js\" %*\r\n";
//! let shim = parse_cmd_shim(r"C:\Users\me\AppData\Roaming\npm\claude.cmd", text).unwrap();
//! assert_eq!(
//!     shim.program,
//!     ShimProgram::Interpreter { local: Some(r"C:\Users\me\AppData\Roaming\npm\node.exe".into()), name: "node".into() }
//! );
//! assert_eq!(shim.args, [r"C:\Users\me\AppData\Roaming\@anthropic-ai\claude-code\cli.js"]);
//! ```

use serde::Serialize;

use crate::error::{AgentContextError, Result};

/// What runs the shim's target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ShimProgram {
    /// The target itself (a native `.exe`), by its full path.
    Path { path: String },
    /// An interpreter: `local` (next to the shim) when that file exists,
    /// else `name` looked up like any command (`node`).
    Interpreter { local: Option<String>, name: String },
}

/// A shim read: run `program` with `args` and then the caller's arguments,
/// `env` added to the environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShimLaunch {
    pub program: ShimProgram,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Reads the shim at `shim_path` (a Windows path) whose text is `text`.
///
/// Errors (`INVALID_INPUT`): a file that is not such a shim (a `.cmd`
/// written by hand, which only `cmd.exe` could run).
pub fn parse_cmd_shim(shim_path: &str, text: &str) -> Result<ShimLaunch> {
    let dir = match shim_path.rfind(['\\', '/']) {
        Some(i) => &shim_path[..i],
        None => "",
    };
    let not_a_shim = |why: &str| {
        AgentContextError::invalid(format!(
            "{shim_path} is not an npm, pnpm or yarn .cmd shim this library can read ({why}): \
             it could only run through cmd.exe, which this library does not use"
        ))
    };
    let mut progs: Vec<String> = Vec::new();
    let mut env: Vec<(String, String)> = Vec::new();
    let mut launches: Vec<Vec<String>> = Vec::new();
    for raw in text.lines() {
        let line = raw.trim().trim_start_matches('@').trim();
        if let Some(assignment) = strip_prefix_ignore_case(line, "SET ") {
            let assignment = assignment.trim();
            let assignment = assignment
                .strip_prefix('"')
                .and_then(|a| a.strip_suffix('"'))
                .unwrap_or(assignment);
            let Some((key, value)) = assignment.split_once('=') else {
                continue;
            };
            let value = expand(value, dir);
            if key.eq_ignore_ascii_case("_prog") {
                progs.push(value);
            } else if !["dp0", "PATHEXT"]
                .iter()
                .any(|k| key.eq_ignore_ascii_case(k))
                && !value.contains('%')
                && !env.iter().any(|(k, _)| k.eq_ignore_ascii_case(key))
            {
                env.push((key.to_owned(), value));
            }
            continue;
        }
        let Some(before) = line.find("%*").map(|i| &line[..i]) else {
            continue;
        };
        // npm's line starts with a trick that ends in `& "%_prog%" …`.
        let command = before.rsplit_once(" & ").map_or(before, |(_, c)| c);
        let tokens: Vec<String> = tokenize(command).iter().map(|t| expand(t, dir)).collect();
        if tokens.is_empty() {
            return Err(not_a_shim("a line passes %* with no program"));
        }
        launches.push(tokens);
    }
    let Some(first) = launches.first() else {
        return Err(not_a_shim("no line passes its arguments on with %*"));
    };
    if launches.len() > 2 {
        return Err(not_a_shim("more than two lines pass %*"));
    }
    let args = first[1..].to_vec();
    let program = if first[0].eq_ignore_ascii_case("%_prog%") {
        match progs.as_slice() {
            [local, name] => ShimProgram::Interpreter {
                local: Some(local.clone()),
                name: command_name(name),
            },
            [name] => ShimProgram::Interpreter {
                local: None,
                name: command_name(name),
            },
            _ => return Err(not_a_shim("%_prog% is not set once or twice")),
        }
    } else if let Some(second) = launches.get(1) {
        // IF EXIST "<dir>\node.exe" ( "<dir>\node.exe" … ) ELSE ( node … )
        if second[1..] != first[1..] {
            return Err(not_a_shim("its two branches run different arguments"));
        }
        ShimProgram::Interpreter {
            local: Some(first[0].clone()),
            name: command_name(&second[0]),
        }
    } else if is_path(&first[0]) {
        ShimProgram::Path {
            path: first[0].clone(),
        }
    } else {
        ShimProgram::Interpreter {
            local: None,
            name: command_name(&first[0]),
        }
    };
    Ok(ShimLaunch { program, args, env })
}

fn strip_prefix_ignore_case<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let head = line.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &line[prefix.len()..])
}

/// A program name as a command to look up: `C:\x\node.exe` → `node.exe`,
/// `/usr/bin/node` (a `#!` path cmd-shim kept) → `node`.
fn command_name(program: &str) -> String {
    program
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(program)
        .to_owned()
}

fn is_path(token: &str) -> bool {
    token.contains(['\\', '/', ':'])
}

/// Words as `cmd.exe` separates them on a launch line: spaces and tabs
/// outside double quotes; the quotes themselves removed.
fn tokenize(command: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            ' ' | '\t' if !quoted => {
                if started {
                    tokens.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            _ => {
                current.push(c);
                started = true;
            }
        }
    }
    if started {
        tokens.push(current);
    }
    tokens
}

/// `%dp0%` and `%~dp0` (the shim's folder, with its trailing backslash)
/// replaced, and the path tidied: `\..\` and `\.\` resolved, doubled
/// separators made one.
fn expand(token: &str, dir: &str) -> String {
    let folder = format!("{dir}\\");
    let replaced = token.replace("%dp0%", &folder).replace("%~dp0", &folder);
    if replaced == token {
        return replaced;
    }
    normalize_windows_path(&replaced)
}

/// Lexical clean-up of a Windows path (no file-system access).
pub fn normalize_windows_path(path: &str) -> String {
    let path = path.replace('/', "\\");
    let (prefix, rest) = if let Some(rest) = path.strip_prefix("\\\\") {
        ("\\\\", rest)
    } else {
        ("", path.as_str())
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('\\') {
        match part {
            "" | "." => {}
            ".." => {
                // Never climb above a drive (`C:`) or the first segment.
                if parts.len() > 1 || (parts.len() == 1 && !parts[0].ends_with(':')) {
                    parts.pop();
                }
            }
            _ => parts.push(part),
        }
    }
    let mut out = prefix.to_owned();
    out.push_str(&parts.join("\\"));
    if parts.len() == 1 && parts[0].ends_with(':') {
        out.push('\\');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NPM_HEAD: &str = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n";

    #[test]
    fn npm_shim_of_a_native_target_runs_it_directly() {
        let text = format!("{NPM_HEAD}\"%dp0%\\..\\pkg\\tool.exe\"   %*\r\n");
        let shim = parse_cmd_shim(r"C:\Program Files\x\bin\tool.cmd", &text).unwrap();
        assert_eq!(
            shim.program,
            ShimProgram::Path {
                path: r"C:\Program Files\x\pkg\tool.exe".into()
            }
        );
        assert!(shim.args.is_empty() && shim.env.is_empty());
    }

    #[test]
    fn npm_shim_with_interpreter_arguments_and_variables() {
        let text = format!(
            "{NPM_HEAD}@SET FOO=bar\r\n\r\nIF EXIST \"%dp0%\\node.exe\" (\r\n  SET \"_prog=%dp0%\\node.exe\"\r\n) ELSE (\r\n  SET \"_prog=node\"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\nendLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & \"%_prog%\" --no-warnings \"%dp0%\\node_modules\\a b\\cli.js\" %*\r\n"
        );
        let shim = parse_cmd_shim(r"D:\tools\a.cmd", &text).unwrap();
        assert_eq!(
            shim.program,
            ShimProgram::Interpreter {
                local: Some(r"D:\tools\node.exe".into()),
                name: "node".into()
            }
        );
        assert_eq!(
            shim.args,
            ["--no-warnings", r"D:\tools\node_modules\a b\cli.js"]
        );
        assert_eq!(shim.env, [("FOO".to_owned(), "bar".to_owned())]);
    }

    #[test]
    fn pnpm_and_yarn_shims_with_two_branches() {
        let pnpm = "@SETLOCAL\r\n@IF NOT DEFINED NODE_PATH (\r\n  @SET \"NODE_PATH=C:\\p\\node_modules\\.pnpm\\node_modules\"\r\n) ELSE (\r\n  @SET \"NODE_PATH=C:\\p\\node_modules\\.pnpm\\node_modules;%NODE_PATH%\"\r\n)\r\n@IF EXIST \"%~dp0\\node.exe\" (\r\n  \"%~dp0\\node.exe\"  \"%~dp0\\..\\@google\\gemini-cli\\dist\\index.js\" %*\r\n) ELSE (\r\n  @SET PATHEXT=%PATHEXT:;.JS;=;%\r\n  node  \"%~dp0\\..\\@google\\gemini-cli\\dist\\index.js\" %*\r\n)\r\n";
        let shim = parse_cmd_shim(r"C:\p\node_modules\.bin\gemini.CMD", pnpm).unwrap();
        assert_eq!(
            shim.program,
            ShimProgram::Interpreter {
                local: Some(r"C:\p\node_modules\.bin\node.exe".into()),
                name: "node".into()
            }
        );
        assert_eq!(
            shim.args,
            [r"C:\p\node_modules\@google\gemini-cli\dist\index.js"]
        );
        assert_eq!(
            shim.env,
            [(
                "NODE_PATH".to_owned(),
                r"C:\p\node_modules\.pnpm\node_modules".to_owned()
            )]
        );
        let yarn = "@IF EXIST \"%~dp0\\node.exe\" (\n  \"%~dp0\\node.exe\"  \"%~dp0\\..\\codex\\bin\\codex.js\" %*\n) ELSE (\n  @SETLOCAL\n  @SET PATHEXT=%PATHEXT:;.JS;=;%\n  node  \"%~dp0\\..\\codex\\bin\\codex.js\" %*\n)";
        let shim = parse_cmd_shim(r"C:\Users\me\AppData\Local\Yarn\bin\codex.cmd", yarn).unwrap();
        assert_eq!(
            shim.args,
            [r"C:\Users\me\AppData\Local\Yarn\codex\bin\codex.js"]
        );
    }

    #[test]
    fn a_hand_written_batch_file_is_refused_naming_it() {
        for text in ["@echo off\r\necho hi\r\n", "a %*\r\nb %*\r\nc %*\r\n"] {
            let e = parse_cmd_shim(r"C:\x\y.cmd", text).unwrap_err();
            assert!(
                e.message()
                    .starts_with(r"C:\x\y.cmd is not an npm, pnpm or yarn .cmd shim"),
                "{}",
                e.message()
            );
        }
        let e = parse_cmd_shim(
            r"C:\x\y.cmd",
            "IF EXIST a.exe (\r\n a.exe one %*\r\n) ELSE (\r\n node two %*\r\n)",
        )
        .unwrap_err();
        assert!(e.message().contains("different arguments"));
    }

    #[test]
    fn paths_are_tidied_without_climbing_above_the_drive() {
        assert_eq!(normalize_windows_path(r"C:\a\\b\..\.\c"), r"C:\a\c");
        assert_eq!(normalize_windows_path(r"C:\..\x"), r"C:\x");
        assert_eq!(
            normalize_windows_path(r"\\srv\share\a\..\b"),
            r"\\srv\share\b"
        );
        assert_eq!(normalize_windows_path("C:/a/b"), r"C:\a\b");
        assert_eq!(normalize_windows_path(r"C:\a\.."), r"C:\");
    }
}
