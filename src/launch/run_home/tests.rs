use serde_json::{json, Value};

use super::*;
use crate::agents;
use crate::attempt::RunOptions;
use crate::launch::endpoint::Protocol;

fn gemini_request(keys: Value) -> HomeRequest {
    home_request(
        agents::find("google-gemini").unwrap(),
        "/run/r1",
        keys,
        Vec::new(),
    )
    .unwrap()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn a_home_only_for_an_agent_that_has_one_and_for_settings() {
    let gemini = agents::find("google-gemini").unwrap();
    let claude = agents::find("claude-code").unwrap();
    let keys = json!({"general": {"maxAttempts": 2}});
    assert!(home_request(claude, "/run/r1", keys.clone(), Vec::new()).is_none());
    assert!(home_request(gemini, "", keys.clone(), Vec::new()).is_none());
    assert!(home_request(gemini, "/run/r1", json!({}), Vec::new()).is_none());
    let r = home_request(gemini, "/run/r1/", keys, Vec::new()).unwrap();
    assert_eq!(r.env, "GEMINI_CLI_HOME");
    assert_eq!(r.path, "/run/r1/home");
    assert_eq!(r.folder, ".gemini");
    assert_eq!(r.kept, ["tmp", "history"]);
}

#[test]
fn the_users_folder_is_the_callers_home_variable_else_home() {
    let r = gemini_request(json!({"a": 1}));
    let folder = |env: &[(&str, &str)]| user_folder(&r, &pairs(env));
    assert_eq!(
        folder(&[("HOME", "/home/u")]).as_deref(),
        Some("/home/u/.gemini")
    );
    assert_eq!(
        folder(&[("HOME", "/home/u"), ("GEMINI_CLI_HOME", "/g")]).as_deref(),
        Some("/g/.gemini")
    );
    // The run's own home is never the user's.
    assert_eq!(
        folder(&[("HOME", "/home/u"), ("GEMINI_CLI_HOME", "/run/r1/home")]).as_deref(),
        Some("/home/u/.gemini")
    );
    assert_eq!(
        folder(&[("USERPROFILE", "C:\\Users\\u")]).as_deref(),
        Some("C:\\Users\\u\\.gemini")
    );
    assert_eq!(folder(&[("HOME", "")]), None);
}

#[test]
fn the_plan_links_every_entry_but_the_settings_and_merges_them() {
    let r = gemini_request(json!({"security": {"auth": {"selectedType": "gemini-api-key"}}}));
    let entries = [
        Entry {
            name: "settings.json".into(),
            dir: false,
        },
        Entry {
            name: "oauth_creds.json".into(),
            dir: false,
        },
        Entry {
            name: "tmp".into(),
            dir: true,
        },
    ];
    let user = "// mine\n{\"ui\": {\"hideTips\": true}, /* auth */ \"security\": {\"auth\": {\"selectedType\": \"oauth-personal\", \"useExternal\": true}}}";
    let plan = home_plan(&r, Some("/home/u/.gemini"), &entries, Some(user));
    // `history` was missing: made in the user's folder, then linked.
    assert_eq!(plan.kept, ["/home/u/.gemini/history"]);
    assert_eq!(plan.folders, ["/run/r1/home/.gemini"]);
    let links: Vec<(&str, &str, bool)> = plan
        .links
        .iter()
        .map(|l| (l.target.as_str(), l.path.as_str(), l.dir))
        .collect();
    assert_eq!(
        links,
        [
            (
                "/home/u/.gemini/oauth_creds.json",
                "/run/r1/home/.gemini/oauth_creds.json",
                false
            ),
            ("/home/u/.gemini/tmp", "/run/r1/home/.gemini/tmp", true),
            (
                "/home/u/.gemini/history",
                "/run/r1/home/.gemini/history",
                true
            ),
        ]
    );
    assert_eq!(plan.files.len(), 1);
    assert_eq!(plan.files[0].path, "/run/r1/home/.gemini/settings.json");
    let written: Value = serde_json::from_str(&plan.files[0].content).unwrap();
    assert_eq!(
        written,
        json!({"ui": {"hideTips": true}, "security": {"auth": {"selectedType": "gemini-api-key", "useExternal": true}}})
    );
}

#[test]
fn unreadable_user_settings_leave_the_runs_keys_alone() {
    let r = gemini_request(json!({"general": {"maxAttempts": 1}}));
    for text in [None, Some("{ not json"), Some("[1, 2]")] {
        let plan = home_plan(&r, None, &[], text);
        assert!(plan.links.is_empty() && plan.kept.is_empty());
        let written: Value = serde_json::from_str(&plan.files[0].content).unwrap();
        assert_eq!(written, json!({"general": {"maxAttempts": 1}}), "{text:?}");
    }
}

#[test]
fn comments_go_and_strings_stay() {
    let text = "{\n  // a \"comment\"\n  \"url\": \"http://h//x /* no */\", /* b\n c */ \"q\": \"\\\"//\"\n}";
    let value: Value = serde_json::from_str(&strip_json_comments(text)).unwrap();
    assert_eq!(value, json!({"url": "http://h//x /* no */", "q": "\"//"}));
    assert_eq!(strip_json_comments("{}// end"), "{}");
}

fn options(extra: Value, protocol: Protocol) -> RunOptions {
    let mut given = json!({"cd": "/w", "runFolder": "/run/r1"});
    crate::launch::endpoint::merge_json(&mut given, extra);
    let mut o = RunOptions::read(&given, "gemini").unwrap();
    let gemini = agents::find("google-gemini").unwrap();
    o.apply_endpoint(gemini, protocol).unwrap();
    o.apply_home(gemini, protocol).unwrap();
    o
}

#[test]
fn a_gemini_run_gets_the_endpoint_the_servers_and_the_retry_bound_in_its_home() {
    let o = options(
        json!({
            "endpoint": {"baseUrl": "http://127.0.0.1:9"},
            "maxRetries": 0,
            "yolo": true,
            "mcpServers": [{"name": "notes", "command": "node", "args": ["s.cjs"]}],
        }),
        Protocol::Cli,
    );
    let home = o.home.as_ref().unwrap();
    assert_eq!(
        home.settings,
        json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "mcpServers": {"notes": {"command": "node", "args": ["s.cjs"], "env": {}, "trust": true}},
            "general": {"maxAttempts": 1},
        })
    );
    assert!(o
        .endpoint_env()
        .contains(&("GEMINI_CLI_HOME".to_owned(), "/run/r1/home".to_owned())));
    // Over ACP the servers travel in session/new; the default retry bound
    // (maxRetries 1) still makes a home.
    let o = options(json!({}), Protocol::Acp);
    assert_eq!(
        o.home.unwrap().settings,
        json!({"general": {"maxAttempts": 2}})
    );
    // Without the run's folder (Gemini tool), no home at all.
    let mut o = RunOptions::read(&json!({"cd": "/w"}), "gemini").unwrap();
    o.apply_home(agents::find("google-gemini").unwrap(), Protocol::Cli)
        .unwrap();
    assert!(o.home.is_none() && o.endpoint_env().is_empty());
}

#[test]
fn a_home_and_its_entries_are_read_or_refused_by_name() {
    let err = HomeRequest::read(serde_json::json!({ "env": 1 })).unwrap_err();
    assert!(
        err.message().starts_with("home is not a run's home: "),
        "{}",
        err.message()
    );
    let entries = read_entries(serde_json::json!([{ "name": "tmp", "dir": true }])).unwrap();
    assert_eq!(
        entries,
        [Entry {
            name: "tmp".into(),
            dir: true
        }]
    );
    let err = read_entries(serde_json::json!({})).unwrap_err();
    assert!(err.message().starts_with("entries: "), "{}", err.message());
}

#[test]
fn pis_home_is_its_folder_with_the_endpoints_models_file_in_place_of_the_users() {
    let mut given = json!({
        "cd": "/w",
        "runFolder": "/run/r1",
        "maxRetries": 0,
        "endpoint": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "!rm -rf ~", "model": "m1", "headers": {"X-A": "1"}},
    });
    crate::launch::endpoint::merge_json(&mut given, json!({}));
    let pi = agents::find("pi").unwrap();
    let mut o = RunOptions::read(&given, "pi").unwrap();
    o.apply_endpoint(pi, Protocol::Acp).unwrap();
    o.apply_home(pi, Protocol::Acp).unwrap();
    let home = o.home.clone().unwrap();
    // The variable names the agent's folder itself.
    assert!(o.endpoint_env().contains(&(
        "PI_CODING_AGENT_DIR".to_owned(),
        "/run/r1/home/.pi/agent".to_owned()
    )));
    // Its fixed settings, under the endpoint's and the retry bound.
    assert_eq!(
        home.settings,
        json!({
            "quietStartup": true,
            "retry": {"provider": {"maxRetries": 0}, "maxRetries": 0},
            "defaultProvider": "agent-context",
            "defaultModel": "m1",
        })
    );
    // The user's folder: PI_CODING_AGENT_DIR as the caller has it, else ~/.pi/agent.
    let folder = |env: &[(&str, &str)]| user_folder(&home, &pairs(env));
    assert_eq!(
        folder(&[("HOME", "/home/u")]).as_deref(),
        Some("/home/u/.pi/agent")
    );
    assert_eq!(
        folder(&[("HOME", "/home/u"), ("PI_CODING_AGENT_DIR", "/p")]).as_deref(),
        Some("/p")
    );
    assert_eq!(
        folder(&[
            ("HOME", "/home/u"),
            ("PI_CODING_AGENT_DIR", "/run/r1/home/.pi/agent")
        ])
        .as_deref(),
        Some("/home/u/.pi/agent")
    );
    let entries = [
        Entry {
            name: "models.json".into(),
            dir: false,
        },
        Entry {
            name: "auth.json".into(),
            dir: false,
        },
        Entry {
            name: "settings.json".into(),
            dir: false,
        },
    ];
    let plan = home_plan(
        &home,
        Some("/home/u/.pi/agent"),
        &entries,
        Some(r#"{"theme": "light", "defaultModel": "mine"}"#),
    );
    // Sessions are kept in the user's folder; models.json is the run's.
    assert_eq!(plan.kept, ["/home/u/.pi/agent/sessions"]);
    let linked: Vec<&str> = plan.links.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(
        linked,
        [
            "/run/r1/home/.pi/agent/auth.json",
            "/run/r1/home/.pi/agent/sessions"
        ]
    );
    let files: Vec<&str> = plan.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        files,
        [
            "/run/r1/home/.pi/agent/settings.json",
            "/run/r1/home/.pi/agent/models.json"
        ]
    );
    let settings: Value = serde_json::from_str(&plan.files[0].content).unwrap();
    assert_eq!(settings["theme"], "light");
    assert_eq!(settings["defaultModel"], "m1");
    // Sessions go to the user's folder by its real path (its ACP adapter
    // keeps that path), unless the user's settings name a folder.
    assert_eq!(settings["sessionDir"], "/home/u/.pi/agent/sessions");
    let own = home_plan(
        &home,
        Some("/home/u/.pi/agent"),
        &entries,
        Some(r#"{"sessionDir": "~/pi-sessions"}"#),
    );
    let own: Value = serde_json::from_str(&own.files[0].content).unwrap();
    assert_eq!(own["sessionDir"], "~/pi-sessions");
    let models: Value = serde_json::from_str(&plan.files[1].content).unwrap();
    // The key and the headers' values are variables' names, never the
    // values (pi runs a value starting with `!`).
    assert_eq!(
        models,
        json!({"providers": {"agent-context": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "AGENT_CONTEXT_ENDPOINT_KEY",
            "headers": {"X-A": "AGENT_CONTEXT_ENDPOINT_HEADER_0"},
            "models": [{"id": "m1", "input": ["text", "image"]}],
        }}})
    );
    let env = o.endpoint_env();
    assert!(env.contains(&(
        "AGENT_CONTEXT_ENDPOINT_KEY".to_owned(),
        "!rm -rf ~".to_owned()
    )));
    assert!(env.contains(&("AGENT_CONTEXT_ENDPOINT_HEADER_0".to_owned(), "1".to_owned())));
    // Its model goes in the settings, never as a flag.
    assert_eq!(o.model, None);
    // A home request written by an older engine (no new keys) still reads.
    let old = HomeRequest::read(json!({"env": "GEMINI_CLI_HOME", "path": "/r/home", "folder": ".gemini", "settingsFile": "settings.json", "kept": [], "settings": {}})).unwrap();
    assert!(!old.names_folder && old.files.is_empty());
    assert_eq!(old.env_value(), "/r/home");
}
