#![cfg(not(target_arch = "wasm32"))]
//! The command lines of Qwen Code, GitHub Copilot CLI and opencode (SPEC
//! §11), with each CLI's traps: the prompt on stdin (Copilot: never `-p`,
//! which drops stdin), Copilot's usage file listed in `outputs`, opencode's
//! quoting of arguments with whitespace, Qwen's system prompt flag without
//! a file variant.

use agent_context::agents;
use agent_context::launch::invocation::{
    build_cli_invocation, CliInvocation, InvocationOptions, InvocationOutput, OutputKind, Sandbox,
    MAX_ARG_BYTES,
};
use agent_context::AssemblerOutput;

fn output(flag: Option<&str>) -> AssemblerOutput {
    AssemblerOutput {
        prompt: "[MESSAGE]\nWhat UI framework should we use?".into(),
        system_flag: flag.map(Into::into),
    }
}

fn build(agent: &str, flag: Option<&str>, options: &InvocationOptions) -> CliInvocation {
    build_cli_invocation(agent, &output(flag), options).unwrap()
}

fn error(agent: &str, flag: Option<&str>, options: &InvocationOptions) -> String {
    let e = build_cli_invocation(agent, &output(flag), options).unwrap_err();
    assert_eq!(e.code(), agent_context::ErrorCode::InvalidInput);
    e.message().to_owned()
}

#[test]
fn each_new_cli_gets_its_json_flags_and_the_prompt_on_stdin() {
    let none = InvocationOptions::default();
    let qwen = build("qwen-code", Some("You are Carol"), &none);
    assert_eq!(qwen.command, "qwen");
    assert_eq!(
        qwen.args,
        ["-o", "stream-json", "--append-system-prompt=You are Carol"]
    );
    let copilot = build("github-copilot", None, &none);
    assert_eq!(copilot.command, "copilot");
    assert_eq!(copilot.args, ["--output-format", "json", "--no-ask-user"]);
    let opencode = build("opencode", None, &none);
    assert_eq!(opencode.command, "opencode");
    assert_eq!(
        opencode.args,
        [
            "run",
            "--format",
            "json",
            "--print-logs",
            "--log-level",
            "ERROR"
        ]
    );
    for run in [&qwen, &copilot, &opencode] {
        assert_eq!(run.stdin, output(None).prompt);
        assert!(run.files.is_empty());
        assert!(run.outputs.is_empty());
    }
}

#[test]
fn copilot_never_gets_p_and_its_usage_file_is_an_output() {
    let options = InvocationOptions {
        model: Some("gpt-mock".into()),
        session_id: Some("0f6f3a0c-5c1e-4d2a-9f3b-7c1a2b3c4d5e".into()),
        usage_file: Some("/tmp/run 1/usage.json".into()),
        yolo: Some(true),
        ..Default::default()
    };
    let copilot = build("github-copilot", None, &options);
    assert_eq!(
        copilot.args,
        [
            "--output-format",
            "json",
            "--no-ask-user",
            "--model=gpt-mock",
            "--session-id=0f6f3a0c-5c1e-4d2a-9f3b-7c1a2b3c4d5e",
            "--allow-all-tools",
            "--usage-output-file=/tmp/run 1/usage.json",
        ]
    );
    // With -p (or --prompt) Copilot drops stdin silently; the prompt is on stdin.
    assert!(!copilot
        .args
        .iter()
        .any(|a| a == "-p" || a.starts_with("--prompt")));
    assert_eq!(
        copilot.outputs,
        [InvocationOutput {
            path: "/tmp/run 1/usage.json".into(),
            kind: OutputKind::Usage
        }]
    );
    let json = serde_json::to_value(&copilot).unwrap();
    assert_eq!(
        json["outputs"],
        serde_json::json!([{ "path": "/tmp/run 1/usage.json", "kind": "usage" }])
    );
    // The others print their usage: the option changes nothing for them,
    // and their invocation JSON keeps its four keys.
    for agent in ["claude-code", "qwen-code", "opencode"] {
        let with = build(agent, None, &options);
        assert!(with.outputs.is_empty(), "{agent}");
        assert!(!with.args.iter().any(|a| a.contains("usage")), "{agent}");
        let keys: Vec<String> = serde_json::to_value(&with)
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["command", "args", "stdin", "files"], "{agent}");
    }
}

#[test]
fn approval_flags_per_cli() {
    let with = |sandbox, yolo| InvocationOptions {
        sandbox,
        yolo,
        ..Default::default()
    };
    let tail = |agent: &str, options: &InvocationOptions| {
        let base = agents::find(agent).unwrap().cli.unwrap().base_args.len();
        build(agent, None, options).args[base..].to_vec()
    };
    let read_only = with(Some(Sandbox::ReadOnly), Some(true));
    let yolo = with(None, Some(true));
    let edits = with(Some(Sandbox::WorkspaceWrite), None);
    assert_eq!(tail("qwen-code", &read_only), ["--approval-mode=plan"]);
    assert_eq!(tail("qwen-code", &yolo), ["--approval-mode=yolo"]);
    assert_eq!(tail("qwen-code", &edits), ["--approval-mode=auto-edit"]);
    assert_eq!(tail("github-copilot", &read_only), ["--mode=plan"]);
    assert_eq!(tail("github-copilot", &yolo), ["--allow-all-tools"]);
    assert_eq!(tail("github-copilot", &edits), ["--allow-tool=write"]);
    assert_eq!(tail("opencode", &read_only), ["--agent=plan"]);
    assert_eq!(tail("opencode", &yolo), ["--auto"]);
    assert!(tail("opencode", &edits).is_empty());
    for agent in ["qwen-code", "github-copilot", "opencode"] {
        assert!(tail(agent, &InvocationOptions::default()).is_empty());
    }
}

#[test]
fn resume_flags_per_cli() {
    let options = InvocationOptions {
        session_id: Some("ses_dfa91c34bffe4V0yNtxWRR97wx".into()),
        model: Some("mock/gpt-mock".into()),
        ..Default::default()
    };
    assert_eq!(
        build("opencode", None, &options).args[6..],
        [
            "--model=mock/gpt-mock",
            "--session=ses_dfa91c34bffe4V0yNtxWRR97wx"
        ]
    );
    assert_eq!(
        build("qwen-code", None, &options).args[2..],
        [
            "--model=mock/gpt-mock",
            "--resume=ses_dfa91c34bffe4V0yNtxWRR97wx"
        ]
    );
}

#[test]
fn opencode_refuses_arguments_with_whitespace_naming_the_option() {
    let model = InvocationOptions {
        model: Some("mock/gpt mock".into()),
        ..Default::default()
    };
    assert_eq!(
        error("opencode", None, &model),
        "options.model must not contain whitespace for opencode: it would reach the agent wrapped in quotes; got \"--model=mock/gpt mock\""
    );
    let extra = InvocationOptions {
        extra_args: vec!["--title=ok".into(), "two words".into()],
        ..Default::default()
    };
    assert!(error("opencode", None, &extra)
        .starts_with("options.extraArgs[1] must not contain whitespace"));
    let tab = InvocationOptions {
        session_id: Some("ses\t1".into()),
        ..Default::default()
    };
    assert!(
        error("opencode", None, &tab).starts_with("options.sessionId must not contain whitespace")
    );
    // The prompt, spaces and all, travels on stdin; other CLIs take spaces.
    let run = build("opencode", None, &InvocationOptions::default());
    assert!(run.stdin.contains(' '));
    assert_eq!(
        build("qwen-code", None, &model).args[2],
        "--model=mock/gpt mock"
    );
}

#[test]
fn qwen_takes_the_system_flag_inline_only() {
    let fits = "x".repeat(MAX_ARG_BYTES - 1 - "--append-system-prompt=".len());
    let qwen = build("qwen-code", Some(&fits), &InvocationOptions::default());
    assert_eq!(qwen.args[2].len(), MAX_ARG_BYTES - 1);
    let over = format!("{fits}y");
    let with_file = InvocationOptions {
        system_prompt_file: Some("/tmp/sys.md".into()),
        ..Default::default()
    };
    let message = error("qwen-code", Some(&over), &with_file);
    assert!(
        message.starts_with("assemblerOutput.systemFlag cannot be an argument (systemFlag is 131049 bytes, over the 131048"),
        "{message}"
    );
    assert!(
        message.ends_with("and qwen-code has no file flag for it"),
        "{message}"
    );
    assert!(error("qwen-code", Some("a\0b"), &with_file).contains("NUL"));
    // Copilot and opencode take the instructions inline (Codex's layout).
    for agent in ["github-copilot", "opencode"] {
        assert!(error(agent, Some("flag"), &InvocationOptions::default())
            .starts_with("assemblerOutput.systemFlag is only for claude-code, qwen-code and pi:"));
    }
}

#[test]
fn the_registry_describes_the_new_agents() {
    for (agent, command, package, tool, flag) in [
        ("qwen-code", "qwen", "@qwen-code/qwen-code", "qwen", "flag"),
        (
            "github-copilot",
            "copilot",
            "@github/copilot",
            "copilot",
            "inline",
        ),
        ("opencode", "opencode", "opencode-ai", "opencode", "inline"),
    ] {
        let info = agents::find(agent).unwrap().info();
        assert_eq!(
            (
                info.command,
                info.package,
                info.mcp_tool,
                info.system_prompt,
                info.assembler_class
            ),
            (command, package, tool, flag, None),
            "{agent}"
        );
    }
    // Layouts: Qwen is Claude's, the other two are Codex's, each under its own type.
    let same = |a: &agent_context::prompt::layout::Layout,
                b: &agent_context::prompt::layout::Layout| {
        agent_context::prompt::layout::Layout {
            agent_type: b.agent_type,
            ..*a
        } == *b
    };
    assert!(same(&agents::CLAUDE, &agents::QWEN));
    assert!(same(&agents::CODEX, &agents::COPILOT));
    assert!(same(&agents::CODEX, &agents::OPENCODE));
}
