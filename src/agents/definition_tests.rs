use super::*;
use crate::error::ErrorCode;
use serde_json::json;

fn defined(value: Value) -> (AgentDefinition, Vec<String>) {
    match read_agent(&value).unwrap() {
        (Agent::Defined(def), warnings) => (def, warnings),
        (other, _) => panic!("not a definition: {other:?}"),
    }
}

fn message(value: Value) -> String {
    let err = read_agent(&value).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput, "{}", err.message());
    err.message().to_owned()
}

#[test]
fn a_definition_is_its_command_args_and_env() {
    let (def, warnings) = defined(json!({
        "id": "my-agent", "name": "My Agent", "command": "/opt/my-agent/bin/agent",
        "args": ["--acp", "two words"], "env": {"MY_AGENT_MODE": "quiet"}, "protocol": "acp"
    }));
    assert_eq!(def.id, "my-agent");
    assert_eq!(def.name, "My Agent");
    assert_eq!(def.command, "/opt/my-agent/bin/agent");
    assert_eq!(def.args, ["--acp", "two words"]);
    assert_eq!(def.env, [("MY_AGENT_MODE".to_owned(), "quiet".to_owned())]);
    assert!(warnings.is_empty());
}

#[test]
fn a_definition_without_a_name_is_named_by_its_id() {
    let (def, _) = defined(json!({"id": "stub", "command": "stub-agent"}));
    assert_eq!(def.name, "stub");
    assert!(def.args.is_empty() && def.env.is_empty());
}

#[test]
fn a_definition_missing_or_mistyping_a_field_names_it() {
    assert_eq!(
        message(json!({"command": "x"})),
        "agentType.id must be a non-empty string, got undefined"
    );
    assert_eq!(
        message(json!({"id": "x"})),
        "agentType.command must be a non-empty string, got undefined"
    );
    assert_eq!(
        message(json!({"id": "x", "command": ""})),
        "agentType.command must be a non-empty string, got \"\""
    );
    assert_eq!(
        message(json!({"id": 7, "command": "x"})),
        "agentType.id must be a non-empty string, got a number"
    );
    assert_eq!(
        message(json!({"id": "x", "command": "x", "args": "--acp"})),
        "agentType.args must be an array of strings, got a string"
    );
    assert_eq!(
        message(json!({"id": "x", "command": "x", "args": ["--acp", 1]})),
        "agentType.args[1] must be a string, got a number"
    );
    assert_eq!(
        message(json!({"id": "x", "command": "x", "env": {"A": 1}})),
        "agentType.env.A must be a string, got a number"
    );
    assert_eq!(
        message(json!({"id": "x", "command": "x", "env": ["A=1"]})),
        "agentType.env must be an object of strings, got an array"
    );
    assert_eq!(
        message(json!({"id": "x", "command": "x", "protocol": "cli"})),
        "agentType.protocol must be 'acp' (an agent definition speaks the Agent Client Protocol), got \"cli\""
    );
}

#[test]
fn something_else_than_a_string_or_an_object_names_what_is_taken() {
    let text = message(json!(42));
    assert!(
        text.starts_with("agentType must be 'claude-code', "),
        "{text}"
    );
    assert!(
        text.contains("an agent definition ({ id, name, command, args?, env?, protocol: 'acp' })")
    );
    assert!(
        text.ends_with("or an ACP registry entry, got a number"),
        "{text}"
    );
    assert!(message(json!("aider")).ends_with("to run over ACP, got \"aider\""));
}

#[test]
fn unknown_keys_are_warned_naming_the_nearest() {
    let (_, warnings) = defined(json!({"id": "x", "command": "x", "arg": ["--acp"]}));
    assert_eq!(
        warnings,
        ["[agent-context] the agent definition has an unknown key \"arg\" (did you mean \"args\"?); it is ignored"]
    );
    let (_, warnings) = defined(
        json!({"id": "x", "name": "X", "version": "1.0.0", "description": "d",
        "distribution": {"npx": {"package": "p", "agrs": []}, "docker": {}}, "homepage": "h"}),
    );
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings[0].contains("the ACP registry entry has an unknown key \"homepage\""));
    assert!(warnings[1].contains("agentType.distribution has an unknown key \"docker\""));
    assert!(warnings[2].contains(
        "agentType.distribution.npx has an unknown key \"agrs\" (did you mean \"args\"?)"
    ));
}

#[test]
fn an_npx_entry_runs_npx_with_its_package() {
    let (def, warnings) = defined(json!({
        "id": "gemini", "name": "Gemini CLI", "version": "0.37.0", "description": "Google's CLI",
        "repository": "https://example.invalid/r", "website": "https://example.invalid", "authors": ["Google"],
        "license": "Apache-2.0", "icon": "https://example.invalid/i.svg",
        "distribution": {"npx": {"package": "@google/gemini-cli@0.37.1", "args": ["--acp"], "env": {"A": "b"}}}
    }));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        (def.id.as_str(), def.name.as_str(), def.command.as_str()),
        ("gemini", "Gemini CLI", "npx")
    );
    assert_eq!(def.args, ["-y", "@google/gemini-cli@0.37.1", "--acp"]);
    assert_eq!(def.env, [("A".to_owned(), "b".to_owned())]);
    assert_eq!(def.install, "Node.js (npx)");
}

#[test]
fn an_entry_with_a_cmd_names_the_package_and_runs_the_cmd() {
    let (def, _) = defined(json!({"id": "a", "name": "A", "distribution":
        {"npx": {"package": "@scope/pkg@1.2.3", "cmd": "pkg-acp", "args": ["serve"]}}}));
    assert_eq!(
        def.args,
        ["-y", "--package", "@scope/pkg@1.2.3", "pkg-acp", "serve"]
    );
    let (def, _) = defined(json!({"id": "k", "name": "K", "distribution":
        {"uvx": {"package": "kimi-cli==1.0", "cmd": "kimi", "args": ["acp"]}}}));
    assert_eq!(def.command, "uvx");
    assert_eq!(def.args, ["--from", "kimi-cli==1.0", "kimi", "acp"]);
    assert_eq!(def.install, "uv (uvx)");
}

#[test]
fn a_uvx_entry_runs_uvx_and_npx_is_preferred_when_both_are_given() {
    let (def, _) = defined(json!({"id": "f", "name": "F", "distribution":
        {"uvx": {"package": "fast-agent-acp", "args": ["-x"]}}}));
    assert_eq!(
        (def.command.as_str(), def.args.clone()),
        ("uvx", vec!["fast-agent-acp".to_owned(), "-x".to_owned()])
    );
    let (def, _) = defined(json!({"id": "f", "name": "F", "distribution":
        {"uvx": {"package": "py"}, "npx": {"package": "js"}, "binary": {}}}));
    assert_eq!(def.command, "npx");
}

#[test]
fn a_binary_only_entry_is_rejected_naming_what_to_do() {
    let text = message(
        json!({"id": "b", "name": "B", "distribution": {"binary": {"linux-x86_64":
        {"archive": "https://example.invalid/b.tar.gz", "cmd": "./b", "args": ["acp"]}}}}),
    );
    assert!(
        text.starts_with("agentType.distribution.binary is an archive to download and unpack"),
        "{text}"
    );
    assert!(text.contains("pass an agent definition"));
    assert_eq!(
        message(json!({"id": "b", "name": "B", "distribution": {}})),
        "agentType.distribution must have an npx or uvx distribution (or a binary one, unpacked by the host and passed as an agent definition)"
    );
}

#[test]
fn an_entry_missing_or_mistyping_a_field_names_it() {
    assert_eq!(
        message(json!({"id": "a", "distribution": {"npx": {"package": "p"}}})),
        "agentType.name must be a non-empty string, got undefined"
    );
    assert_eq!(
        message(json!({"id": "a", "name": "A", "distribution": {"npx": {}}})),
        "agentType.distribution.npx.package must be a non-empty string, got undefined"
    );
    assert_eq!(
        message(json!({"id": "a", "name": "A", "distribution": {"npx": "p"}})),
        "agentType.distribution.npx must be an object, got a string"
    );
    assert_eq!(
        message(json!({"id": "a", "name": "A", "distribution": null})),
        "agentType.distribution must be an object, got null"
    );
    assert_eq!(
        message(
            json!({"id": "a", "name": "A", "distribution": {"npx": {"package": "p", "args": [true]}}})
        ),
        "agentType.distribution.npx.args[0] must be a string, got a boolean"
    );
}

#[test]
fn a_definition_knows_nothing_of_its_agent_unless_its_id_is_built_in() {
    let (def, _) = defined(json!({"id": "stub-agent-x", "name": "Stub X", "command": "stub"}));
    let spec = def.spec();
    assert_eq!((spec.agent_type, spec.name), ("stub-agent-x", "Stub X"));
    assert!(find("stub-agent-x").is_none());
    assert!(spec.cli.is_none(), "a definition speaks ACP only");
    assert_eq!(spec.output(), OutputFormat::PlainText);
    let launch = spec.acp.unwrap();
    assert_eq!(launch.model, AcpModel::Config);
    assert!(!launch.system_prompt_meta && launch.ask_mode.is_none() && launch.ask_env.is_none());
    assert_eq!(spec.layout, &crate::prompt::layout::PLAIN_TEXT);
    // The same definition is the same table; another name another one.
    assert!(std::ptr::eq(spec, def.spec()));
    let other = AgentDefinition {
        name: "Stub Y".to_owned(),
        ..def.clone()
    };
    assert!(!std::ptr::eq(spec, other.spec()));
    let (def, _) =
        defined(json!({"id": "google-gemini", "command": "/x/gemini", "args": ["--acp"]}));
    assert_eq!(def.spec(), find("google-gemini").unwrap());
}

#[test]
fn every_built_in_agent_is_described_as_a_definition_that_reads_back() {
    for agent in super::super::AGENTS {
        let value = definition_of(agent).expect(agent.agent_type);
        let (def, warnings) = defined(value);
        assert!(warnings.is_empty());
        assert_eq!(def.spec(), *agent);
        assert_eq!(def.command, agent.acp.unwrap().command);
    }
}

#[test]
fn the_label_is_the_agent_type_or_the_id() {
    assert_eq!(agent_label(&json!("claude-code")), "claude-code");
    assert_eq!(agent_label(&json!({"id": "x", "command": 1})), "x");
    assert_eq!(agent_label(&json!(3)), "");
}
