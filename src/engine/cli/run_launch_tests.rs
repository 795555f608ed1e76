//! A run over the CLI as it is launched (scripted): a long system prompt
//! as a file, a launcher before the agent's arguments, the platform's
//! command-line limits, a command not found, a spawn refused, and the
//! agent's own retries past maxRetries.

use super::run_script::ScriptedRun;
use super::run_tests::*;
use crate::attempt::AttemptEnd;
use serde_json::{json, Value};

#[test]
fn a_long_system_prompt_is_a_file_to_write() {
    let long = "Be careful. ".repeat(20_000);
    let run = ScriptedRun::new(
        CLAUDE,
        &json!({"prompt": "x", "systemFlag": long}),
        &json!({"cd": "/w", "systemPromptFile": "/tmp/ac/system.md", "model": "sonnet", "sessionId": UNKNOWN_ID}),
        "/bin/claude",
    );
    let plan = run.plan().unwrap();
    assert_eq!(plan.files.len(), 1);
    assert_eq!(plan.files[0].path, "/tmp/ac/system.md");
    assert!(plan
        .args
        .contains(&"--append-system-prompt-file=/tmp/ac/system.md".to_owned()));
    assert!(plan.args.contains(&format!("--resume={UNKNOWN_ID}")));
    assert_eq!(plan.command, "/bin/claude");
}

pub(super) fn result_of(run: &mut ScriptedRun) -> Value {
    run.result(5).unwrap()
}

#[test]
fn a_launcher_goes_before_the_agents_arguments_and_is_named_in_messages() {
    use crate::launch::platform::Platform;
    let options = json!({"cd": "/w", "maxRetries": 0, "extraArgs": ["--x", "a b"]});
    let mut run = ScriptedRun::new(CLAUDE, &json!({"prompt": "Hi"}), &options, "claude");
    let before: Vec<String> = run.plan().unwrap().args.to_vec();
    assert!(before.ends_with(&["--x".to_owned(), "a b".to_owned()]));
    let env = vec![("PATH".to_owned(), "/bin".to_owned())];
    run.launch(
        Platform::Win32,
        "C:\\npm\\claude.cmd",
        "C:\\node\\node.exe",
        &["C:\\npm\\cli.js".to_owned()],
        env,
    );
    let plan = run.plan().unwrap();
    assert_eq!(plan.command, "C:\\node\\node.exe");
    assert_eq!(plan.args[0], "C:\\npm\\cli.js");
    assert_eq!(&plan.args[1..], &before[..]);
    run.start_attempt();
    let end = AttemptEnd {
        spawn_error: Some("EACCES".to_owned()),
        ..Default::default()
    };
    assert_eq!(run.end_attempt(&end, 5), None);
    let r = result_of(&mut run);
    assert_eq!(kind(&r), "spawn_failed");
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .ends_with("C:\\npm\\claude.cmd"));
}

#[test]
fn a_launched_line_over_the_platforms_limit_is_invalid_params_before_any_spawn() {
    use crate::launch::platform::Platform;
    let model = "m".repeat(32_690);
    let options = json!({"cd": "/w", "model": model});
    let mut run = ScriptedRun::new(CODEX, &json!({"prompt": "Hi"}), &options, "codex");
    assert!(run.plan().is_some(), "fits Linux");
    run.launch(
        Platform::Win32,
        "C:\\npm\\codex.cmd",
        "C:\\Program Files\\nodejs\\node.exe",
        &["C:\\npm\\node_modules\\@openai\\codex\\bin\\codex.js".to_owned()],
        Vec::new(),
    );
    assert!(run.plan().is_none());
    let r = result_of(&mut run);
    assert_eq!(kind(&r), "invalid_params");
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("does not fit on win32"));
    assert_eq!(r["attempts"], 0);
}

#[test]
fn a_command_not_resolved_is_command_not_found_with_every_place_searched() {
    let mut run = ScriptedRun::new(
        GEMINI,
        &json!({"prompt": "Hi"}),
        &json!({"cd": "/w"}),
        "gemini",
    );
    run.cannot_launch(
        false,
        "gemini was not found; looked at:\n  /a/gemini (PATH)",
    );
    assert!(run.plan().is_none());
    let r = result_of(&mut run);
    assert_eq!(kind(&r), "command_not_found");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("`gemini` is not on PATH"), "{message}");
    assert!(
        message.ends_with("looked at:\n  /a/gemini (PATH)"),
        "{message}"
    );
    assert_eq!(r["attempts"], 0);
    assert_eq!(r["error"]["retryable"], false);

    let mut run = ScriptedRun::new(
        CLAUDE,
        &json!({"prompt": "Hi"}),
        &json!({"cd": "/w"}),
        "claude",
    );
    run.cannot_launch(true, "C:\\x\\claude.cmd is not a package manager's shim");
    assert_eq!(kind(&result_of(&mut run)), "spawn_failed");
}

#[test]
fn a_spawn_refused_as_too_long_names_the_platforms_limit() {
    use crate::launch::platform::Platform;
    for (platform, says) in [
        (
            Platform::Linux,
            "on linux 131072 bytes per argument and 2097152",
        ),
        (Platform::Darwin, "on darwin 1048576 bytes (ARG_MAX)"),
        (Platform::Win32, "on win32 32767 UTF-16 units"),
    ] {
        for code in ["E2BIG", "ENAMETOOLONG"] {
            let mut run = ScriptedRun::new(
                CODEX,
                &json!({"prompt": "Hi"}),
                &json!({"cd": "/w", "maxRetries": 0}),
                "codex",
            );
            run.launch(platform, "/bin/codex", "/bin/codex", &[], Vec::new());
            run.start_attempt();
            let end = AttemptEnd {
                spawn_error: Some(code.to_owned()),
                ..Default::default()
            };
            assert_eq!(run.end_attempt(&end, 5), None);
            let r = result_of(&mut run);
            assert_eq!(kind(&r), "spawn_failed");
            let message = r["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(code) && message.contains(says),
                "{message}"
            );
        }
    }
}

/// The agent's own retries, counted from its output (Gemini CLI's stderr,
/// Codex's stdout, as printed against the mock), past `maxRetries`: the host
/// is told to stop it, and the attempt ends as the retried failure says.
#[test]
fn own_retries_past_max_retries_stop_the_attempt() {
    let gemini_retry = |n: u32| {
        format!("Attempt {n} failed with status 500. Retrying with backoff... _ApiError: {{\"error\":{{\"code\":500,\"message\":\"Mock internal error, please retry.\",\"status\":\"INTERNAL\"}}}}\n  status: 500\n")
    };
    let codex_retry = |n: u32| {
        format!("{{\"type\":\"error\",\"message\":\"Reconnecting... {n}/5 (We\u{2019}re currently experiencing high demand, which may cause temporary errors.)\"}}\n")
    };
    for (agent, stderr, stdout, says) in [
        (
            GEMINI,
            true,
            &gemini_retry as &dyn Fn(u32) -> String,
            "2 times (HTTP 500)",
        ),
        (CODEX, false, &codex_retry, "2 times (upstream_error)"),
    ] {
        let options = json!({"cd": "/w", "maxRetries": 1});
        let mut run = ScriptedRun::new(agent, &json!({"prompt": "Hello"}), &options, "agent");
        assert!(run.plan().is_some());
        run.start_attempt();
        let push = |run: &mut ScriptedRun, text: String| {
            if stderr {
                run.push_stderr(text.as_bytes());
            } else {
                run.push_stdout(text.as_bytes());
            }
        };
        push(&mut run, stdout(1));
        assert!(
            !run.stopped_for_own_retries(),
            "{agent}: one retry is within maxRetries 1"
        );
        push(&mut run, stdout(2));
        assert!(run.stopped_for_own_retries(), "{agent}");
        // The engine killed the tree (Kill); the process ends by its signal.
        let end = AttemptEnd {
            signal: Some("SIGTERM".into()),
            ..Default::default()
        };
        // No retry of ours follows: the agent's own spent maxRetries.
        assert_eq!(run.end_attempt(&end, 1_000), None);
        let result = serde_json::to_value(run.result(1_000).unwrap()).unwrap();
        assert_eq!(result["attempts"], 1, "{result}");
        assert_eq!(kind(&result), "upstream_error", "{result}");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
        assert!(message.contains("more than maxRetries"), "{message}");
    }
    // Claude Code's retries are bounded by CLAUDE_CODE_MAX_RETRIES, not counted.
    let mut run = ScriptedRun::new(
        CLAUDE,
        &json!({"prompt": "Hi"}),
        &json!({"cd": "/w", "maxRetries": 0}),
        "agent",
    );
    assert!(run.plan().is_some());
    run.start_attempt();
    run.push_stderr(gemini_retry(1).as_bytes());
    assert!(!run.stopped_for_own_retries());
}
