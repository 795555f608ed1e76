//! Tests of `resolve.rs`.

use super::*;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn plan(
    platform: Platform,
    command: &str,
    env: &[(String, String)],
    login: Option<&str>,
) -> SearchPlan {
    search_plan(&SearchRequest {
        platform,
        command,
        env,
        login_shell_path: login,
        extra_dirs: &[],
    })
    .unwrap()
}

fn paths(plan: &SearchPlan) -> Vec<(&str, &str)> {
    plan.candidates
        .iter()
        .map(|c| (c.path.as_str(), c.source))
        .collect()
}

#[test]
fn linux_path_then_login_shell_then_install_folders() {
    let e = env(&[
        ("PATH", "/usr/bin::/bin"),
        ("HOME", "/home/me"),
        ("SHELL", "/bin/bash"),
    ]);
    let first = plan(Platform::Linux, "claude", &e, None);
    assert_eq!(first.login_shell.as_ref().unwrap().file, "/bin/bash");
    assert_eq!(first.login_shell.as_ref().unwrap().args[0], "-ilc");
    let second = plan(
        Platform::Linux,
        "claude",
        &e,
        Some("/home/me/.nvm/versions/node/v22/bin:/usr/bin"),
    );
    assert!(second.login_shell.is_none());
    assert_eq!(
        paths(&second),
        [
            ("/usr/bin/claude", "PATH"),
            ("/bin/claude", "PATH"),
            (
                "/home/me/.nvm/versions/node/v22/bin/claude",
                "login shell PATH"
            ),
            ("/home/me/.npm-global/bin/claude", "~/.npm-global/bin"),
            ("/home/me/.local/bin/claude", "~/.local/bin"),
            ("/usr/local/bin/claude", "/usr/local/bin"),
            ("/home/me/.volta/bin/claude", "volta"),
            (
                "/home/me/.local/share/fnm/aliases/default/bin/claude",
                "fnm"
            ),
            ("/home/me/.nvm/current/bin/claude", "nvm"),
        ]
    );
}

#[test]
fn darwin_adds_homebrew_and_its_own_fnm_folder() {
    let e = env(&[
        ("PATH", "/usr/bin"),
        ("HOME", "/Users/me"),
        ("npm_config_prefix", "/opt/npm"),
    ]);
    let p = plan(Platform::Darwin, "codex", &e, Some(""));
    let got = paths(&p);
    assert_eq!(got[1], ("/opt/npm/bin/codex", "npm global prefix"));
    assert!(got.contains(&("/opt/homebrew/bin/codex", "/opt/homebrew/bin")));
    assert!(got.contains(&(
        "/Users/me/Library/Application Support/fnm/aliases/default/bin/codex",
        "fnm"
    )));
    let no_shell = plan(Platform::Darwin, "codex", &e, None);
    assert_eq!(no_shell.login_shell.unwrap().file, "/bin/zsh");
}

#[test]
fn windows_path_with_pathext_case_insensitive_and_no_login_shell() {
    let e = env(&[
        (
            "Path",
            r#"C:\Windows\system32;"C:\Program Files\nodejs\";C:\windows\SYSTEM32"#,
        ),
        ("PATHEXT", ".COM;.EXE;.BAT;.CMD;.VBS;.JS;.PS1"),
        ("APPDATA", r"C:\Users\me\AppData\Roaming"),
        ("USERPROFILE", r"C:\Users\me"),
    ]);
    let p = plan(Platform::Win32, "gemini", &e, None);
    assert!(p.login_shell.is_none());
    let got = paths(&p);
    assert_eq!(
        got[..8],
        [
            (r"C:\Windows\system32\gemini.com", "PATH"),
            (r"C:\Windows\system32\gemini.exe", "PATH"),
            (r"C:\Windows\system32\gemini.bat", "PATH"),
            (r"C:\Windows\system32\gemini.cmd", "PATH"),
            (r"C:\Program Files\nodejs\gemini.com", "PATH"),
            (r"C:\Program Files\nodejs\gemini.exe", "PATH"),
            (r"C:\Program Files\nodejs\gemini.bat", "PATH"),
            (r"C:\Program Files\nodejs\gemini.cmd", "PATH"),
        ]
    );
    // The same folder in another case is not looked at twice; no .js.
    assert_eq!(got.iter().filter(|(_, s)| *s == "PATH").count(), 8);
    assert!(got.contains(&(
        r"C:\Users\me\AppData\Roaming\npm\gemini.cmd",
        "%APPDATA%\\npm"
    )));
    assert!(got.contains(&(
        r"C:\Users\me\.local\bin\gemini.exe",
        "%USERPROFILE%\\.local\\bin"
    )));
    assert!(got.iter().all(|(p, _)| !p.ends_with(".js")));
    // A name with its extension is looked for as it is.
    let p = plan(Platform::Win32, "gemini.cmd", &e, None);
    assert_eq!(p.candidates[0].path, r"C:\Windows\system32\gemini.cmd");
}

#[test]
fn a_command_with_a_folder_is_looked_at_only_there() {
    let e = env(&[("PATH", "/usr/bin"), ("PATHEXT", ".EXE;.CMD")]);
    let p = plan(Platform::Linux, "/opt/x/claude", &e, None);
    assert_eq!(paths(&p), [("/opt/x/claude", "given")]);
    assert!(p.login_shell.is_none());
    let p = plan(Platform::Win32, r"C:\x y\claude", &e, None);
    assert_eq!(
        paths(&p),
        [
            (r"C:\x y\claude.exe", "given"),
            (r"C:\x y\claude.cmd", "given")
        ]
    );
    assert!(search_plan(&SearchRequest {
        platform: Platform::Linux,
        command: " ",
        env: &e,
        login_shell_path: None,
        extra_dirs: &[]
    })
    .is_err());
}

#[test]
fn login_shell_output_is_read_between_markers() {
    let noise = format!("welcome!\n{START_MARKER}/a:/b{END_MARKER}\nbye");
    assert_eq!(parse_login_shell_output(&noise).as_deref(), Some("/a:/b"));
    assert_eq!(parse_login_shell_output("no markers"), None);
    // The command the shell runs prints exactly that shape.
    let shell = login_shell(Platform::Linux, &[]);
    assert!(shell.args[1].contains(START_MARKER) && shell.args[1].contains("\"$PATH\""));
}

#[test]
fn launches_on_posix_direct_or_node_for_a_node_script() {
    assert_eq!(
        launch_for(Platform::Linux, "/usr/bin/codex", Some("\x7fELF...")).unwrap(),
        Launch::Direct {
            file: "/usr/bin/codex".into()
        }
    );
    let Launch::Interpreter {
        args,
        direct_if_on_path,
        ..
    } = launch_for(
        Platform::Darwin,
        "/n/cli.js",
        Some("#!/usr/bin/env -S node --no-warnings\n"),
    )
    .unwrap()
    else {
        panic!("node script")
    };
    assert_eq!(args, ["--no-warnings", "/n/cli.js"]);
    assert!(direct_if_on_path);
    assert!(matches!(
        launch_for(Platform::Linux, "/x", Some("#!/bin/sh\n")).unwrap(),
        Launch::Direct { .. }
    ));
}

#[test]
fn finishing_a_launch_picks_local_found_or_electron() {
    let found = Candidate {
        path: r"C:\npm\claude.cmd".into(),
        source: "PATH",
    };
    let shim = "@IF EXIST \"%~dp0\\node.exe\" (\r\n  \"%~dp0\\node.exe\"  \"%~dp0\\cli.js\" %*\r\n) ELSE (\r\n  node  \"%~dp0\\cli.js\" %*\r\n)";
    let launch = launch_for(Platform::Win32, &found.path, Some(shim)).unwrap();
    let local = finish(&found, launch.clone(), Some(Interpreter::Local)).unwrap();
    assert_eq!(
        (local.file.as_str(), local.args.as_slice(), local.via),
        (
            r"C:\npm\node.exe",
            &[r"C:\npm\cli.js".to_owned()][..],
            "interpreter"
        )
    );
    let node = Interpreter::Found {
        path: r"C:\nodejs\node.exe".into(),
        source: "PATH",
    };
    // A Windows shim is never run directly, even with node on PATH.
    assert_eq!(
        finish(&found, launch.clone(), Some(node)).unwrap().file,
        r"C:\nodejs\node.exe"
    );
    let electron = finish(
        &found,
        launch.clone(),
        Some(Interpreter::Missing {
            electron_exec_path: Some(r"C:\App\app.exe".into()),
        }),
    )
    .unwrap();
    assert_eq!(electron.via, "electron");
    assert_eq!(
        electron.env,
        [("ELECTRON_RUN_AS_NODE".to_owned(), "1".to_owned())]
    );
    let e = finish(
        &found,
        launch,
        Some(Interpreter::Missing {
            electron_exec_path: None,
        }),
    )
    .unwrap_err();
    assert!(e.message().contains("needs node to run"));
    // POSIX: node on PATH → the script directly; node elsewhere → node + script.
    let script = Candidate {
        path: "/home/me/.local/bin/claude".into(),
        source: "~/.local/bin",
    };
    let launch = launch_for(Platform::Linux, &script.path, Some("#!/usr/bin/env node\n")).unwrap();
    let on_path = Interpreter::Found {
        path: "/usr/bin/node".into(),
        source: "PATH",
    };
    assert_eq!(
        finish(&script, launch.clone(), Some(on_path)).unwrap().via,
        "direct"
    );
    let elsewhere = Interpreter::Found {
        path: "/home/me/.volta/bin/node".into(),
        source: "volta",
    };
    let r = finish(&script, launch, Some(elsewhere)).unwrap();
    assert_eq!(
        (r.file.as_str(), r.args.as_slice()),
        (
            "/home/me/.volta/bin/node",
            &["/home/me/.local/bin/claude".to_owned()][..]
        )
    );
}

#[test]
fn default_commands_per_agent() {
    assert_eq!(default_command("claude-code").unwrap(), "claude");
    assert_eq!(default_command("openai-codex").unwrap(), "codex");
    assert_eq!(default_command("google-gemini").unwrap(), "gemini");
    assert!(default_command("aider").is_err());
}

#[test]
fn not_found_lists_every_place() {
    let c = [
        Candidate {
            path: "/a/x".into(),
            source: "PATH",
        },
        Candidate {
            path: "/b/x".into(),
            source: "volta",
        },
    ];
    assert_eq!(
        not_found_message("x", c.iter().map(|c| (c.path.as_str(), c.source))),
        "x was not found; looked at:\n  /a/x (PATH)\n  /b/x (volta)"
    );
}

#[test]
fn an_agents_install_folders_come_from_its_registry_entry() {
    let home = env(&[("HOME", "/home/me")]);
    assert_eq!(
        agent_dirs("claude-code", Platform::Linux, &home),
        ["/home/me/.claude/local"]
    );
    let windows = env(&[("USERPROFILE", r"C:\Users\me")]);
    assert_eq!(
        agent_dirs("claude-code", Platform::Win32, &windows),
        [r"C:\Users\me\.claude\local"]
    );
    // An agent whose installer uses the usual folders, one the registry
    // does not know, and no home folder: none.
    assert!(agent_dirs("openai-codex", Platform::Linux, &home).is_empty());
    assert!(agent_dirs("aider", Platform::Linux, &home).is_empty());
    assert!(agent_dirs("claude-code", Platform::Linux, &[]).is_empty());
}
