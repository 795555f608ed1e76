use serde_json::{json, Value};

use super::*;
use crate::agents;
use crate::error::ErrorCode;

const FOLDER: &str = "/tmp/run-1";

fn endpoint(value: Value) -> Endpoint {
    Endpoint::read(&value, "options.endpoint").unwrap()
}

fn setup(
    agent: &str,
    protocol: Protocol,
    value: Value,
) -> std::result::Result<EndpointSetup, String> {
    endpoint_setup(
        agents::find(agent).unwrap(),
        protocol,
        &endpoint(value),
        FOLDER,
        None,
    )
    .map_err(|e| {
        assert_eq!(e.code(), ErrorCode::InvalidInput);
        e.message().to_owned()
    })
}

fn env<'a>(s: &'a EndpointSetup, name: &str) -> Option<&'a str> {
    s.env
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn full() -> Value {
    json!({ "baseUrl": "http://127.0.0.1:8080/", "apiKey": "k1", "model": "m1", "headers": { "X-A": "1", "X-B": "2" } })
}

#[test]
fn claude_code_takes_its_variables() {
    let s = setup("claude-code", Protocol::Cli, full()).unwrap();
    assert_eq!(s.family, ApiFamily::AnthropicMessages);
    assert_eq!(env(&s, "ANTHROPIC_BASE_URL"), Some("http://127.0.0.1:8080"));
    assert_eq!(env(&s, "ANTHROPIC_API_KEY"), Some("k1"));
    assert_eq!(env(&s, "ANTHROPIC_CUSTOM_HEADERS"), Some("X-A: 1\nX-B: 2"));
    assert_eq!(s.model.as_deref(), Some("m1"));
    assert!(s.files.is_empty() && s.args.is_empty());
    // Without a key, a placeholder: the caller's own key stays home.
    let s = setup(
        "claude-code",
        Protocol::Acp,
        json!({ "baseUrl": "https://gw.example" }),
    )
    .unwrap();
    assert_eq!(env(&s, "ANTHROPIC_API_KEY"), Some(NO_KEY));
    assert_eq!(env(&s, "ANTHROPIC_CUSTOM_HEADERS"), None);
    assert_eq!(s.model, None);
}

#[test]
fn codex_gets_a_model_provider_as_overrides() {
    let s = setup("openai-codex", Protocol::Cli, full()).unwrap();
    assert_eq!(s.family, ApiFamily::OpenaiResponses);
    assert_eq!(
        s.args,
        [
            "-c",
            "model_provider=\"agent_context\"",
            "-c",
            "model_providers.agent_context={ \"name\" = \"agent-context endpoint\", \"base_url\" = \"http://127.0.0.1:8080\", \"wire_api\" = \"responses\", \"env_key\" = \"AGENT_CONTEXT_ENDPOINT_KEY\", \"http_headers\" = { \"X-A\" = \"1\", \"X-B\" = \"2\" } }",
        ]
    );
    assert_eq!(env(&s, "AGENT_CONTEXT_ENDPOINT_KEY"), Some("k1"));
    assert_eq!(env(&s, "CODEX_CONFIG"), None);
    let s = setup("openai-codex", Protocol::Acp, full()).unwrap();
    let config: Value = serde_json::from_str(env(&s, "CODEX_CONFIG").unwrap()).unwrap();
    assert_eq!(config["model_provider"], "agent_context");
    assert_eq!(config["model"], "m1");
    assert_eq!(
        config["model_providers"]["agent_context"]["base_url"],
        "http://127.0.0.1:8080"
    );
    assert_eq!(
        config["model_providers"]["agent_context"]["http_headers"]["X-B"],
        "2"
    );
    // No key: no env_key, so no Authorization header at all.
    let s = setup(
        "openai-codex",
        Protocol::Cli,
        json!({ "baseUrl": "http://h:1/v1" }),
    )
    .unwrap();
    assert!(!s.args[3].contains("env_key"));
    assert_eq!(env(&s, "AGENT_CONTEXT_ENDPOINT_KEY"), None);
}

#[test]
fn gemini_cli_gets_variables_and_settings_for_its_run_home() {
    let s = setup("google-gemini", Protocol::Cli, full()).unwrap();
    assert_eq!(
        env(&s, "GOOGLE_GEMINI_BASE_URL"),
        Some("http://127.0.0.1:8080")
    );
    assert_eq!(env(&s, "GEMINI_API_KEY"), Some("k1"));
    assert_eq!(env(&s, "GEMINI_CLI_CUSTOM_HEADERS"), Some("X-A: 1, X-B: 2"));
    // No system settings file (read only when root owns it): the keys go
    // to the settings of the run's home (crate::launch::run_home).
    assert_eq!(env(&s, "GEMINI_CLI_SYSTEM_SETTINGS_PATH"), None);
    assert!(s.files.is_empty());
    assert_eq!(
        s.home_settings,
        Some(json!({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    );
    let err = setup(
        "google-gemini",
        Protocol::Cli,
        json!({ "baseUrl": "http://h", "headers": { "X-A": "a, B: c" } }),
    )
    .unwrap_err();
    assert!(
        err.starts_with("options.endpoint.headers.X-A must not hold a comma for Gemini CLI"),
        "{err}"
    );
}

#[test]
fn qwen_code_gets_variables_and_headers_in_its_settings() {
    let s = setup("qwen-code", Protocol::Acp, full()).unwrap();
    assert_eq!(env(&s, "OPENAI_BASE_URL"), Some("http://127.0.0.1:8080"));
    assert_eq!(env(&s, "OPENAI_API_KEY"), Some("k1"));
    assert_eq!(env(&s, "OPENAI_MODEL"), Some("m1"));
    assert_eq!(
        env(&s, "QWEN_CODE_SYSTEM_SETTINGS_PATH"),
        Some("/tmp/run-1/settings.json")
    );
    let settings: Value = serde_json::from_str(&s.files[0].content).unwrap();
    assert_eq!(
        settings,
        json!({ "security": { "auth": { "selectedType": "openai" } }, "model": { "generationConfig": { "customHeaders": { "X-A": "1", "X-B": "2" } } } })
    );
}

#[test]
fn copilot_takes_three_families_and_needs_a_model() {
    let s = setup("github-copilot", Protocol::Cli, full()).unwrap();
    assert_eq!(s.family, ApiFamily::OpenaiChat);
    assert_eq!(env(&s, "COPILOT_PROVIDER_TYPE"), Some("openai"));
    assert_eq!(env(&s, "COPILOT_PROVIDER_WIRE_API"), Some("completions"));
    assert_eq!(
        env(&s, "COPILOT_PROVIDER_BASE_URL"),
        Some("http://127.0.0.1:8080")
    );
    assert_eq!(env(&s, "COPILOT_PROVIDER_API_KEY"), Some("k1"));
    assert_eq!(env(&s, "COPILOT_MODEL"), Some("m1"));
    assert_eq!(env(&s, "COPILOT_PROVIDER_HEADERS"), Some("X-A: 1\nX-B: 2"));
    let mut responses = full();
    responses["api"] = json!("openai-responses");
    let s = setup("github-copilot", Protocol::Cli, responses).unwrap();
    assert_eq!(env(&s, "COPILOT_PROVIDER_WIRE_API"), Some("responses"));
    let mut anthropic = full();
    anthropic["api"] = json!("anthropic-messages");
    let s = setup("github-copilot", Protocol::Acp, anthropic).unwrap();
    assert_eq!(env(&s, "COPILOT_PROVIDER_TYPE"), Some("anthropic"));
    assert_eq!(env(&s, "COPILOT_PROVIDER_WIRE_API"), None);
    let err = setup(
        "github-copilot",
        Protocol::Cli,
        json!({ "baseUrl": "http://h/v1" }),
    )
    .unwrap_err();
    assert_eq!(err, "options.endpoint.model is required for GitHub Copilot CLI: it has no default model at an endpoint of its own");
}

#[test]
fn opencode_gets_a_provider_in_its_configuration_variable() {
    let s = setup("opencode", Protocol::Cli, full()).unwrap();
    let config: Value = serde_json::from_str(env(&s, "OPENCODE_CONFIG_CONTENT").unwrap()).unwrap();
    assert_eq!(config["model"], "agent-context/m1");
    assert_eq!(config["small_model"], "agent-context/m1");
    let provider = &config["provider"]["agent-context"];
    assert_eq!(provider["npm"], "@ai-sdk/openai-compatible");
    assert_eq!(provider["options"]["baseURL"], "http://127.0.0.1:8080");
    assert_eq!(provider["options"]["apiKey"], "k1");
    assert_eq!(provider["options"]["headers"]["X-A"], "1");
    assert_eq!(provider["models"]["m1"]["name"], "m1");
    // The model is the configuration's, not a flag.
    assert_eq!(s.model, None);
    for (api, npm, url) in [
        (
            "openai-responses",
            "@ai-sdk/openai",
            "http://127.0.0.1:8080",
        ),
        (
            "anthropic-messages",
            "@ai-sdk/anthropic",
            "http://127.0.0.1:8080/v1",
        ),
        ("gemini", "@ai-sdk/google", "http://127.0.0.1:8080/v1beta"),
    ] {
        let mut given = full();
        given["api"] = json!(api);
        let s = setup("opencode", Protocol::Acp, given).unwrap();
        let config: Value =
            serde_json::from_str(env(&s, "OPENCODE_CONFIG_CONTENT").unwrap()).unwrap();
        assert_eq!(config["provider"]["agent-context"]["npm"], npm, "{api}");
        assert_eq!(
            config["provider"]["agent-context"]["options"]["baseURL"], url,
            "{api}"
        );
    }
}

#[test]
fn a_family_the_agent_cannot_call_names_the_one_it_needs() {
    let cases = [
        ("claude-code", "openai-chat", "Claude Code calls Anthropic Messages endpoints only ('anthropic-messages')"),
        ("openai-codex", "openai-chat", "Codex calls OpenAI Responses endpoints only ('openai-responses')"),
        ("google-gemini", "anthropic-messages", "Gemini CLI calls Gemini endpoints only ('gemini')"),
        ("qwen-code", "gemini", "Qwen Code calls OpenAI-compatible chat completions endpoints only ('openai-chat')"),
        ("github-copilot", "gemini", "GitHub Copilot CLI calls OpenAI-compatible chat completions or OpenAI Responses or Anthropic Messages endpoints only ('openai-chat', 'openai-responses' or 'anthropic-messages')"),
    ];
    for (agent, api, says) in cases {
        let err = setup(
            agent,
            Protocol::Cli,
            json!({ "baseUrl": "http://h", "api": api, "model": "m" }),
        )
        .unwrap_err();
        assert_eq!(
            err,
            format!("options.endpoint.api is '{api}', but {says}: point it at one of those")
        );
    }
}

#[test]
fn the_model_is_named_once() {
    let agent = agents::find("qwen-code").unwrap();
    let e = endpoint(json!({ "baseUrl": "http://h", "model": "a" }));
    let err = endpoint_setup(agent, Protocol::Cli, &e, FOLDER, Some("b")).unwrap_err();
    assert_eq!(
        err.message(),
        "options.model (\"b\") and options.endpoint.model (\"a\") name different models: give one"
    );
    let same = endpoint_setup(agent, Protocol::Cli, &e, FOLDER, Some("a")).unwrap();
    assert_eq!(same.model.as_deref(), Some("a"));
    // options.model alone names the endpoint's model.
    let e = endpoint(json!({ "baseUrl": "http://h" }));
    let opencode = agents::find("opencode").unwrap();
    let s = endpoint_setup(opencode, Protocol::Cli, &e, FOLDER, Some("b")).unwrap();
    assert!(s.env[0].1.contains("\"agent-context/b\""), "{:?}", s.env);
}

#[test]
fn bad_endpoints_name_the_field() {
    let cases = [
        (json!("http://h"), "options.endpoint must be an object, got a string"),
        (json!({}), "options.endpoint.baseUrl is required"),
        (json!({ "baseUrl": 8080 }), "options.endpoint.baseUrl must be a URL string, got a number"),
        (json!({ "baseUrl": "127.0.0.1:8080" }), "options.endpoint.baseUrl must be an http or https URL"),
        (json!({ "baseUrl": "ftp://h" }), "options.endpoint.baseUrl must be an http or https URL"),
        (json!({ "baseUrl": "http://" }), "options.endpoint.baseUrl must be an http or https URL such as \"http://127.0.0.1:8080\" (it names no host)"),
        (json!({ "baseUrl": "http://h:port" }), "options.endpoint.baseUrl must be an http or https URL such as \"http://127.0.0.1:8080\" (the port must be a number)"),
        (json!({ "baseUrl": "http://u:p@h" }), "options.endpoint.baseUrl must be an http or https URL such as \"http://127.0.0.1:8080\" (credentials go in apiKey or headers"),
        (json!({ "baseUrl": "http://h/v1?x=1" }), "options.endpoint.baseUrl must be an http or https URL such as \"http://127.0.0.1:8080\" (no query or fragment)"),
        (json!({ "baseUrl": "http://h", "api": "openai" }), "options.endpoint.api must be one of 'anthropic-messages', 'openai-responses', 'openai-chat' or 'gemini', got \"openai\""),
        (json!({ "baseUrl": "http://h", "api": 1 }), "options.endpoint.api must be a string, got a number"),
        (json!({ "baseUrl": "http://h", "apiKey": 1 }), "options.endpoint.apiKey must be a string, got a number"),
        (json!({ "baseUrl": "http://h", "apiKey": "" }), "options.endpoint.apiKey must not be empty"),
        (json!({ "baseUrl": "http://h", "model": "a\nb" }), "options.endpoint.model must not hold control characters"),
        (json!({ "baseUrl": "http://h", "headers": ["X: y"] }), "options.endpoint.headers must be an object of strings, got an array"),
        (json!({ "baseUrl": "http://h", "headers": { "X": 1 } }), "options.endpoint.headers.X must be a string, got a number"),
        (json!({ "baseUrl": "http://h", "headers": { "X Y": "1" } }), "options.endpoint.headers has a header name that is not an HTTP token: \"X Y\""),
        (json!({ "baseUrl": "http://h", "headers": { "X": "1\r\nY: 2" } }), "options.endpoint.headers.X must not hold line breaks"),
    ];
    for (value, says) in cases {
        let err = Endpoint::read(&value, "options.endpoint").unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert!(
            err.message().starts_with(says),
            "{value}: {}",
            err.message()
        );
    }
    for good in [
        "http://[::1]:8080/v1",
        "https://h.example",
        "http://127.0.0.1:1",
    ] {
        let e = endpoint(json!({ "baseUrl": good }));
        assert_eq!(e.base_url, good);
    }
}

#[test]
fn files_for_one_path_are_merged() {
    use crate::launch::invocation::InvocationFile;
    let file = |c: &str| InvocationFile {
        path: "/r/settings.json".into(),
        content: c.into(),
    };
    let merged = merge_json_files(vec![
        file("{\"general\":{\"maxAttempts\":1}}\n"),
        file("{\"general\":{\"x\":2},\"security\":{}}\n"),
    ]);
    assert_eq!(
        merged,
        [file(
            "{\"general\":{\"maxAttempts\":1,\"x\":2},\"security\":{}}\n"
        )]
    );
    let mut env = vec![("CODEX_CONFIG".to_owned(), "{\"model\":\"m\"}".to_owned())];
    merge_env(
        &mut env,
        vec![(
            "CODEX_CONFIG".to_owned(),
            "{\"model_provider\":\"p\"}".to_owned(),
        )],
    );
    assert_eq!(env[0].1, "{\"model\":\"m\",\"model_provider\":\"p\"}");
}

#[test]
fn every_agent_names_a_family_and_a_way() {
    for agent in agents::AGENTS {
        let spec = &agent.endpoint;
        assert!(!spec.families.is_empty(), "{}", agent.agent_type);
        let s = endpoint_setup(
            agent,
            Protocol::Cli,
            &endpoint(json!({ "baseUrl": "http://h", "model": "m", "apiKey": "k" })),
            FOLDER,
            None,
        )
        .unwrap();
        assert_eq!(s.family, spec.families[0].family, "{}", agent.agent_type);
        assert!(!s.env.is_empty(), "{}", agent.agent_type);
        for file in &s.files {
            assert!(!file.path.starts_with('/'), "relative: {}", file.path);
        }
    }
}

#[test]
fn a_file_route_writes_the_endpoint_into_a_file_named_by_its_variable() {
    use crate::agents::{AgentSpec, EndpointRoute, EndpointSpec, FamilyUse, FileRoute};
    static FILED: AgentSpec = AgentSpec {
        endpoint: EndpointSpec {
            families: &[FamilyUse {
                family: ApiFamily::OpenaiChat,
                env: &[("SOME_PROVIDER", "chat")],
            }],
            route: EndpointRoute::File(FileRoute {
                env: "SOME_SETTINGS_PATH",
                file: "providers.json",
                template: r#"{"p":{"url":"{baseUrl}/chat","key":"{apiKey}","models":["{model}"]},"n":1}"#,
                fixed: &[("SOME_MODEL", "{model}"), ("SOME_KEY", "placeholder")],
            }),
            model: crate::agents::EndpointModel::Config,
        },
        ..*agents::AGENTS[0]
    };
    let e = endpoint(json!({ "baseUrl": "http://127.0.0.1:9/v1/", "apiKey": "k1", "model": "m1" }));
    let s = endpoint_setup(&FILED, Protocol::Acp, &e, FOLDER, None).unwrap();
    assert_eq!(s.family, ApiFamily::OpenaiChat);
    assert_eq!(env(&s, "SOME_PROVIDER"), Some("chat"));
    assert_eq!(
        env(&s, "SOME_SETTINGS_PATH"),
        Some("/tmp/run-1/providers.json")
    );
    assert_eq!(env(&s, "SOME_MODEL"), Some("m1"));
    assert_eq!(env(&s, "SOME_KEY"), Some("placeholder"));
    assert_eq!(s.files.len(), 1);
    assert_eq!(s.files[0].path, "providers.json");
    let written: Value = serde_json::from_str(&s.files[0].content).unwrap();
    assert_eq!(
        written,
        json!({"p":{"url":"http://127.0.0.1:9/v1/chat","key":"k1","models":["m1"]},"n":1})
    );
    // The route carries the model; options.model does not go elsewhere.
    assert_eq!(s.model, None);
    // Without a key, the placeholder; without a model, INVALID_INPUT naming it.
    let e = endpoint(json!({ "baseUrl": "http://h/v1", "model": "m1" }));
    let s = endpoint_setup(&FILED, Protocol::Cli, &e, FOLDER, None).unwrap();
    assert!(s.files[0]
        .content
        .contains(&format!("\"key\":\"{NO_KEY}\"")));
    let e = endpoint(json!({ "baseUrl": "http://h/v1" }));
    let err = endpoint_setup(&FILED, Protocol::Acp, &e, FOLDER, None).unwrap_err();
    assert!(
        err.message()
            .starts_with("options.endpoint.model is required for"),
        "{}",
        err.message()
    );
    // Headers it cannot take.
    let e = endpoint(json!({ "baseUrl": "http://h/v1", "model": "m", "headers": { "X-A": "1" } }));
    let err = endpoint_setup(&FILED, Protocol::Acp, &e, FOLDER, None).unwrap_err();
    assert!(
        err.message()
            .starts_with("options.endpoint.headers cannot be given to"),
        "{}",
        err.message()
    );
}

#[test]
fn loopback_addresses_are_found_with_their_port() {
    let cases = [
        ("http://127.0.0.1:8080/v1", Some(("127.0.0.1", 8080))),
        ("http://127.1.2.3", Some(("127.1.2.3", 80))),
        ("https://LocalHost/v1", Some(("localhost", 443))),
        ("http://[::1]:11434", Some(("::1", 11434))),
        ("http://[::1]", Some(("::1", 80))),
        ("http://10.0.0.2:8080", None),
        ("https://api.example.com/v1", None),
        ("http://localhost.example.com:80", None),
        ("http://127.0.0.1:0", None),
        ("ftp://127.0.0.1:21", None),
    ];
    for (url, expected) in cases {
        let got = loopback_address(url);
        assert_eq!(
            got.as_ref().map(|(h, p)| (h.as_str(), *p)),
            expected,
            "{url}"
        );
    }
}

#[test]
fn pi_gets_a_provider_per_family_and_kimi_code_its_variables() {
    let e = json!({ "baseUrl": "http://127.0.0.1:8080", "apiKey": "k1", "model": "m1" });
    for (api, name, base) in [
        ("openai-chat", "openai-completions", "http://127.0.0.1:8080"),
        (
            "openai-responses",
            "openai-responses",
            "http://127.0.0.1:8080",
        ),
        (
            "anthropic-messages",
            "anthropic-messages",
            "http://127.0.0.1:8080",
        ),
        (
            "gemini",
            "google-generative-ai",
            "http://127.0.0.1:8080/v1beta",
        ),
    ] {
        let mut given = e.clone();
        given["api"] = json!(api);
        let s = setup("pi", Protocol::Cli, given).unwrap();
        let file: Value = serde_json::from_str(&s.home_files[0].content).unwrap();
        let provider = &file["providers"]["agent-context"];
        assert_eq!(provider["api"], name, "{api}");
        assert_eq!(provider["baseUrl"], base, "{api}");
        assert_eq!(s.home_files[0].path, "models.json");
        assert_eq!(env(&s, "AGENT_CONTEXT_ENDPOINT_KEY"), Some("k1"));
        assert!(s.args.is_empty() && s.model.is_none() && s.files.is_empty());
    }
    // A model must be named: pi knows only the models its file lists.
    let err = setup("pi", Protocol::Cli, json!({ "baseUrl": "http://h" })).unwrap_err();
    assert!(
        err.contains("options.endpoint.model is required for pi"),
        "{err}"
    );

    let s = setup("kimi-code", Protocol::Acp, full()).unwrap();
    assert_eq!(
        env(&s, "KIMI_MODEL_BASE_URL"),
        Some("http://127.0.0.1:8080")
    );
    assert_eq!(env(&s, "KIMI_MODEL_API_KEY"), Some("k1"));
    assert_eq!(env(&s, "KIMI_MODEL_NAME"), Some("m1"));
    assert_eq!(env(&s, "KIMI_MODEL_PROVIDER_TYPE"), Some("openai"));
    assert_eq!(env(&s, "KIMI_CODE_CUSTOM_HEADERS"), Some("X-A: 1\nX-B: 2"));
    // Its `--model` names an alias of its own configuration: no flag.
    assert_eq!(s.model, None);
    let mut anthropic = full();
    anthropic["api"] = json!("anthropic-messages");
    let s = setup("kimi-code", Protocol::Cli, anthropic).unwrap();
    assert_eq!(env(&s, "KIMI_MODEL_PROVIDER_TYPE"), Some("anthropic"));
    let mut gemini = full();
    gemini["api"] = json!("gemini");
    let err = setup("kimi-code", Protocol::Cli, gemini).unwrap_err();
    assert!(err.contains("Kimi Code calls"), "{err}");
}
