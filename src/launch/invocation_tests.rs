//! Tests of `invocation.rs`.

use super::*;
use crate::error::ErrorCode;

fn output(prompt: &str, flag: Option<&str>) -> AssemblerOutput {
    AssemblerOutput {
        prompt: prompt.into(),
        system_flag: flag.map(Into::into),
    }
}

fn build(agent: &str, flag: Option<&str>, options: &InvocationOptions) -> Result<CliInvocation> {
    build_cli_invocation(agent, &output("[MESSAGE]\nHi", flag), options)
}

fn err(result: Result<CliInvocation>) -> String {
    let e = result.expect_err("should fail");
    assert_eq!(e.code(), ErrorCode::InvalidInput);
    e.message().to_owned()
}

#[test]
fn each_cli_gets_its_streaming_flags_and_the_prompt_on_stdin() {
    let none = InvocationOptions::default();
    let codex = build("openai-codex", None, &none).unwrap();
    assert_eq!(codex.command, "codex");
    assert_eq!(codex.args, ["exec", "--json", "--skip-git-repo-check", "-"]);
    assert_eq!(codex.stdin, "[MESSAGE]\nHi");
    let gemini = build("google-gemini", None, &none).unwrap();
    assert_eq!(gemini.args, ["-o", "stream-json", "--skip-trust"]);
    let claude = build("claude-code", None, &none).unwrap();
    assert_eq!(
        claude.args,
        ["-p", "--output-format", "stream-json", "--verbose"]
    );
    assert!(claude.files.is_empty());
}

#[test]
fn model_resume_and_approval_options() {
    let options = InvocationOptions {
        command: Some("/opt/bin/codex".into()),
        model: Some("-weird-model".into()),
        session_id: Some("0199a".into()),
        sandbox: Some(Sandbox::WorkspaceWrite),
        yolo: Some(true),
        extra_args: vec!["--ephemeral".into()],
        ..Default::default()
    };
    let codex = build("openai-codex", None, &options).unwrap();
    assert_eq!(codex.command, "/opt/bin/codex");
    assert_eq!(
        codex.args,
        [
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--model=-weird-model",
            "--sandbox=workspace-write",
            "--ephemeral",
            "resume",
            "0199a",
            "-"
        ]
    );
    let gemini = build("google-gemini", None, &options).unwrap();
    assert_eq!(
        gemini.args[3..],
        [
            "--model=-weird-model",
            "--resume=0199a",
            "--approval-mode=yolo",
            "--ephemeral"
        ]
    );
    let claude = build("claude-code", None, &options).unwrap();
    assert_eq!(
        claude.args[4..6],
        ["--model=-weird-model", "--resume=0199a"]
    );
    assert_eq!(claude.args[6], "--permission-mode=bypassPermissions");
}

#[test]
fn approval_follows_sandbox_then_yolo() {
    let mode = |sandbox, yolo| {
        let options = InvocationOptions {
            sandbox,
            yolo,
            ..Default::default()
        };
        let gemini = build("google-gemini", None, &options).unwrap();
        let claude = build("claude-code", None, &options).unwrap();
        (gemini.args.get(3).cloned(), claude.args.get(4).cloned())
    };
    let both = |g: &str, c: &str| {
        (
            Some(format!("--approval-mode={g}")),
            Some(format!("--permission-mode={c}")),
        )
    };
    assert_eq!(mode(None, None), (None, None));
    assert_eq!(
        mode(Some(Sandbox::ReadOnly), Some(true)),
        both("plan", "plan")
    );
    assert_eq!(
        mode(Some(Sandbox::WorkspaceWrite), Some(true)),
        both("yolo", "bypassPermissions")
    );
    assert_eq!(mode(None, Some(true)), both("yolo", "bypassPermissions"));
    assert_eq!(
        mode(Some(Sandbox::DangerFullAccess), None),
        both("auto_edit", "acceptEdits")
    );
    assert_eq!(mode(None, Some(false)), both("auto_edit", "acceptEdits"));
}

#[test]
fn a_system_prompt_too_long_for_an_argument_goes_to_a_file() {
    let fits = "x".repeat(MAX_ARG_BYTES - 1 - "--append-system-prompt=".len());
    let with_file = InvocationOptions {
        system_prompt_file: Some("/tmp/sys.md".into()),
        ..Default::default()
    };
    let claude = build("claude-code", Some(&fits), &with_file).unwrap();
    assert_eq!(claude.args[4].len(), MAX_ARG_BYTES - 1);
    assert!(claude.files.is_empty());

    let over = format!("{fits}y");
    let claude = build("claude-code", Some(&over), &with_file).unwrap();
    assert_eq!(claude.args[4], "--append-system-prompt-file=/tmp/sys.md");
    assert_eq!(
        claude.files,
        [InvocationFile {
            path: "/tmp/sys.md".into(),
            content: over.clone()
        }]
    );
    let message = err(build(
        "claude-code",
        Some(&over),
        &InvocationOptions::default(),
    ));
    assert!(
        message.starts_with(
            "options.systemPromptFile is needed: systemFlag is 131049 bytes, over the 131048"
        ),
        "{message}"
    );

    let nul = build("claude-code", Some("a\0b"), &with_file).unwrap();
    assert_eq!(nul.files[0].content, "a\0b");
}

#[test]
fn bad_input_is_invalid_input_naming_the_field() {
    let none = InvocationOptions::default();
    assert_eq!(
        err(build("aider", None, &none)),
        "agentType must be 'claude-code', 'openai-codex', 'google-gemini', 'qwen-code', 'github-copilot', 'opencode', 'cline', 'factory-droid', 'pi' or 'kimi-code' to build a command line, got \"aider\""
    );
    // An agent driven over ACP only has no command line.
    assert_eq!(
        err(build("cline", None, &none)),
        "agentType 'cline': Cline is driven over the Agent Client Protocol only (the library does not drive its command line): a command line is not available; use protocol 'acp'"
    );
    assert!(err(build_cli_invocation(
        "claude-code",
        &output(" \n", None),
        &none
    ))
    .starts_with("assemblerOutput.prompt is empty"));
    assert!(err(build("google-gemini", Some("flag"), &none))
        .starts_with("assemblerOutput.systemFlag is only for claude-code"));
    // An empty flag is no flag.
    assert!(build("google-gemini", Some(""), &none).is_ok());
    let session = InvocationOptions {
        session_id: Some("--last".into()),
        ..Default::default()
    };
    assert_eq!(
        err(build("openai-codex", None, &session)),
        "options.sessionId must not start with '-', got \"--last\""
    );
    let nul = InvocationOptions {
        extra_args: vec!["ok".into(), "a\0".into()],
        ..Default::default()
    };
    assert_eq!(
        err(build("google-gemini", None, &nul)),
        "options.extraArgs[1] must not contain a NUL character"
    );
}

fn on(platform: Platform, env: Option<Vec<(String, String)>>) -> InvocationOptions {
    InvocationOptions {
        platform: Some(platform),
        env,
        system_prompt_file: Some("/tmp/sys.md".into()),
        ..Default::default()
    }
}

fn inline(run: &CliInvocation) -> bool {
    run.args[4].starts_with("--append-system-prompt=") && run.files.is_empty()
}

#[test]
fn the_system_prompt_stays_inline_while_the_platforms_line_has_room() {
    let flag = |n: usize| "s".repeat(n);
    // Windows: 32 767 UTF-16 units for the quoted line, less the room
    // kept for node.exe + script in place of `claude`.
    let win = on(Platform::Win32, None);
    assert!(inline(
        &build("claude-code", Some(&flag(30_000)), &win).unwrap()
    ));
    let moved = build("claude-code", Some(&flag(32_500)), &win).unwrap();
    assert_eq!(moved.args[4], "--append-system-prompt-file=/tmp/sys.md");
    assert_eq!(moved.files[0].content.len(), 32_500);
    // Counted in UTF-16 units, not bytes: 20 000 × "é" is 40 000 bytes.
    assert!(inline(
        &build("claude-code", Some(&"é".repeat(20_000)), &win).unwrap()
    ));
    // macOS: no per-argument limit, 1 MiB with the environment.
    let mac = on(Platform::Darwin, None);
    assert!(inline(
        &build("claude-code", Some(&flag(900_000)), &mac).unwrap()
    ));
    let env = vec![("BIG".to_owned(), "e".repeat(200_000))];
    let mac_env = on(Platform::Darwin, Some(env));
    assert!(!inline(
        &build("claude-code", Some(&flag(900_000)), &mac_env).unwrap()
    ));
    // Linux: one argument's limit binds first.
    let linux = on(Platform::Linux, None);
    assert!(!inline(
        &build("claude-code", Some(&flag(200 * 1024)), &linux).unwrap()
    ));
    assert!(inline(
        &build("claude-code", Some(&flag(100 * 1024)), &linux).unwrap()
    ));
    // Without a file to use, the message names the platform's limit.
    let no_file = InvocationOptions {
        platform: Some(Platform::Win32),
        ..Default::default()
    };
    let message = err(build("claude-code", Some(&flag(40_000)), &no_file));
    assert!(
        message.starts_with("options.systemPromptFile is needed: systemFlag is 40000 bytes and with it the command line is 40072 of the 32767 UTF-16 units win32 allows, with 526 kept for the launcher"),
        "{message}"
    );
}

#[test]
fn a_line_too_long_for_the_platform_is_invalid_input_naming_the_limit() {
    let options = |platform| InvocationOptions {
        platform: Some(platform),
        extra_args: vec!["--append-system-prompt".into(), "x".repeat(40_000)],
        ..Default::default()
    };
    let message = err(build("google-gemini", None, &options(Platform::Win32)));
    assert_eq!(
        message,
        "the command line does not fit on win32: command line is 40059 UTF-16 units, over Windows' limit on a command line (CreateProcess, its NUL included) of 32767 UTF-16 units (the prompt travels on stdin; shorten the options)"
    );
    assert!(build("google-gemini", None, &options(Platform::Linux)).is_ok());
    assert!(build("google-gemini", None, &options(Platform::Darwin)).is_ok());
    // Linux's per-argument limit applies to options on Linux only.
    let long = InvocationOptions {
        platform: Some(Platform::Darwin),
        model: Some("m".repeat(200_000)),
        ..Default::default()
    };
    assert!(build("openai-codex", None, &long).is_ok());
    let long = InvocationOptions {
        platform: Some(Platform::Linux),
        ..long
    };
    assert_eq!(
        err(build("openai-codex", None, &long)),
        "options.model is 200000 bytes, too long for one argument on Linux"
    );
}

#[test]
fn pi_takes_its_values_apart_and_kimi_code_its_prompt_in_a_flag() {
    let options = InvocationOptions {
        model: Some("-m1".into()),
        session_id: Some("s1".into()),
        sandbox: Some(Sandbox::ReadOnly),
        ..Default::default()
    };
    let pi = build("pi", Some("Be brief"), &options).unwrap();
    assert_eq!(pi.command, "pi");
    assert_eq!(
        pi.args,
        [
            "-p",
            "--mode",
            "json",
            "--append-system-prompt",
            "Be brief",
            "--model",
            "-m1",
            "--session",
            "s1",
            "--tools",
            "read,grep,find,ls"
        ]
    );
    assert_eq!(pi.stdin, "[MESSAGE]\nHi");
    // A system prompt too long for an argument goes to a file, named by the
    // same flag.
    let long = "x".repeat(MAX_ARG_BYTES);
    let with_file = InvocationOptions {
        system_prompt_file: Some("/run/system.md".into()),
        ..Default::default()
    };
    let pi = build("pi", Some(&long), &with_file).unwrap();
    assert_eq!(pi.args[3..5], ["--append-system-prompt", "/run/system.md"]);
    assert_eq!(pi.files[0].content, long);

    let kimi = build(
        "kimi-code",
        None,
        &InvocationOptions {
            yolo: Some(true),
            sandbox: None,
            ..options.clone()
        },
    )
    .unwrap();
    assert_eq!(kimi.command, "kimi");
    assert_eq!(
        kimi.args,
        [
            "--output-format",
            "stream-json",
            "--model=-m1",
            "--session=s1",
            "--prompt=[MESSAGE]\nHi"
        ]
    );
    // Its headless mode approves everything and has no read-only mode.
    let message = err(build("kimi-code", None, &options));
    assert!(
        message.starts_with("options.sandbox 'read-only' cannot be kept by Kimi Code over its command line: its headless mode approves every tool call itself"),
        "{message}"
    );
    assert_eq!(kimi.stdin, "");
    let message = err(build_cli_invocation(
        "kimi-code",
        &output(&"y".repeat(MAX_ARG_BYTES), None),
        &InvocationOptions::default(),
    ));
    assert!(
        message.starts_with("assemblerOutput.prompt cannot be an argument (the prompt is ")
            && message.ends_with("and Kimi Code reads no prompt on stdin"),
        "{message}"
    );
}
