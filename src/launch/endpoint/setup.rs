//! [`endpoint_setup`]: an [`Endpoint`] and an agent's [`EndpointSpec`] made
//! into what the run owns — variables, files (relative to the run's folder)
//! and arguments. Pure: the host creates the folder, writes the files,
//! sets the variables and removes the folder when the run or session ends.

use serde_json::{json, Map, Value};

use super::{ApiFamily, Endpoint};
use crate::agents::api_family::quoted;
use crate::agents::{
    AgentSpec, EndpointModel, EndpointRoute, EnvRoute, HeaderRoute, ModelsFile, SettingsPlace,
};
use crate::error::{AgentContextError, Result};
use crate::formats::toml_text::toml_string;
use crate::launch::invocation::InvocationFile;

/// The key variable's value when `apiKey` is not given: a key of the
/// caller's environment meant for the agent's own vendor never goes to
/// another endpoint.
pub const NO_KEY: &str = "no-key";

/// The settings file a route writes, relative to the run's folder.
pub const SETTINGS_FILE: &str = "settings.json";

/// Over which protocol the agent is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Cli,
    Acp,
}

/// A file to write before the agent starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunFile {
    /// Relative to the run's folder (`settings.json`).
    pub path: String,
    pub content: String,
}

/// What the run sets for the endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointSetup {
    /// The family the agent calls.
    pub family: ApiFamily,
    /// Variables of the child's environment; they replace the caller's.
    pub env: Vec<(String, String)>,
    /// Files in the run's folder.
    pub files: Vec<RunFile>,
    /// Arguments for the command line (after the agent's own options).
    pub args: Vec<String>,
    /// What `options.model` becomes: the model named by either, or `None`
    /// when the route carries it itself.
    pub model: Option<String>,
    /// Settings merged into the agent's settings in the run's home
    /// (`crate::launch::run_home`).
    pub home_settings: Option<Value>,
    /// Files of the agent's folder in the run's home, in place of the
    /// user's own of that name (pi's `models.json`).
    pub home_files: Vec<RunFile>,
}

/// What `agent` is given for `endpoint` over `protocol`; `folder` is the
/// run's folder (absolute), named by variables that point at its files.
/// `options_model` is `options.model`. `INVALID_INPUT` names the field:
/// a family the agent cannot call, headers it cannot take, a model it
/// needs, two models that differ.
pub fn endpoint_setup(
    agent: &AgentSpec,
    protocol: Protocol,
    endpoint: &Endpoint,
    folder: &str,
    options_model: Option<&str>,
) -> Result<EndpointSetup> {
    let spec = &agent.endpoint;
    let Some(own) = spec.families.first() else {
        return Err(AgentContextError::invalid(format!(
            "{} is given, but the library does not know how to point {} at an endpoint: set its variables in the agent definition's env instead",
            endpoint.path_of("baseUrl"),
            agent.name,
        )));
    };
    let family = endpoint.api.unwrap_or(own.family);
    let Some(used) = spec.families.iter().find(|f| f.family == family) else {
        let names: Vec<ApiFamily> = spec.families.iter().map(|f| f.family).collect();
        let titles: Vec<&str> = names.iter().map(|f| f.title()).collect();
        return Err(AgentContextError::invalid(format!(
            "{} is '{}', but {} calls {} endpoints only ({}): point it at one of those",
            endpoint.path_of("api"),
            family.name(),
            agent.name,
            titles.join(" or "),
            quoted(&names),
        )));
    };
    let model = match (endpoint.model.as_deref(), options_model) {
        (Some(a), Some(b)) if a != b => {
            return Err(AgentContextError::invalid(format!(
                "options.model (\"{b}\") and {} (\"{a}\") name different models: give one",
                endpoint.path_of("model")
            )))
        }
        (a, b) => a.or(b).map(str::to_owned),
    };
    if model.is_none() && spec.model != EndpointModel::Option {
        return Err(AgentContextError::invalid(format!(
            "{} is required for {}: it has no default model at an endpoint of its own",
            endpoint.path_of("model"),
            agent.name
        )));
    }
    let mut setup = EndpointSetup {
        family,
        env: pairs(used.env),
        files: Vec::new(),
        args: Vec::new(),
        model: model.clone(),
        home_settings: None,
        home_files: Vec::new(),
    };
    match spec.route {
        EndpointRoute::Env(route) => {
            env_route(&route, endpoint, agent, folder, &model, &mut setup)?;
            if spec.model == EndpointModel::Config {
                // Its variable carries the model: no flag (Kimi Code's
                // `--model` names an alias of its own configuration).
                setup.model = None;
            }
        }
        EndpointRoute::ModelsFile(route) => {
            models_file(&route, endpoint, agent, family, &model, &mut setup)?
        }
        EndpointRoute::CodexProvider { id, key_env } => {
            let mut provider = Map::new();
            provider.insert("name".into(), json!("agent-context endpoint"));
            provider.insert("base_url".into(), json!(endpoint.base_url));
            provider.insert("wire_api".into(), json!("responses"));
            if let Some(key) = &endpoint.api_key {
                provider.insert("env_key".into(), json!(key_env));
                setup.env.push((key_env.to_owned(), key.clone()));
            }
            if !endpoint.headers.is_empty() {
                provider.insert("http_headers".into(), header_object(&endpoint.headers));
            }
            let provider = Value::Object(provider);
            setup.args = vec![
                "-c".to_owned(),
                format!("model_provider={}", toml_string(id)),
                "-c".to_owned(),
                format!("model_providers.{id}={}", toml_inline(&provider)),
            ];
            if protocol == Protocol::Acp {
                // The maintained ACP adapter ignores its arguments and
                // reads Codex's settings from this variable (JSON).
                let mut config =
                    json!({ "model_provider": id, "model_providers": { id: provider } });
                if let Some(model) = &model {
                    config["model"] = json!(model);
                }
                setup
                    .env
                    .push(("CODEX_CONFIG".to_owned(), config.to_string()));
            }
        }
        EndpointRoute::JsonProvider {
            id,
            env,
            packages,
            fixed,
        } => {
            let Some((_, package, suffix)) = packages.iter().find(|(f, _, _)| *f == family) else {
                return Err(AgentContextError::invalid(format!(
                    "{} is '{}', which {} has no provider package for",
                    endpoint.path_of("api"),
                    family.name(),
                    agent.name
                )));
            };
            let model = model.unwrap_or_default();
            let mut options = Map::new();
            options.insert(
                "baseURL".into(),
                json!(format!("{}{suffix}", endpoint.base_url)),
            );
            if let Some(key) = &endpoint.api_key {
                options.insert("apiKey".into(), json!(key));
            }
            if !endpoint.headers.is_empty() {
                options.insert("headers".into(), header_object(&endpoint.headers));
            }
            let named = format!("{id}/{model}");
            let config = json!({
                "model": named,
                "small_model": named,
                "provider": { id: {
                    "npm": package,
                    "name": "agent-context endpoint",
                    "options": options,
                    "models": { model.clone(): { "name": model } },
                }},
            });
            setup.env.push((env.to_owned(), config.to_string()));
            setup.env.extend(pairs(fixed));
            setup.model = None;
        }
        EndpointRoute::File(route) => {
            if !endpoint.headers.is_empty() {
                return Err(AgentContextError::invalid(format!(
                    "{} cannot be given to {}: it takes no headers for a model endpoint",
                    endpoint.path_of("headers"),
                    agent.name
                )));
            }
            let values = [
                ("{baseUrl}", endpoint.base_url.as_str()),
                ("{apiKey}", endpoint.api_key.as_deref().unwrap_or(NO_KEY)),
                ("{model}", model.as_deref().unwrap_or_default()),
            ];
            let fill = |text: &str| {
                values
                    .iter()
                    .fold(text.to_owned(), |t, (mark, value)| t.replace(mark, value))
            };
            let mut value: Value = serde_json::from_str(route.template).unwrap_or(Value::Null);
            fill_strings(&mut value, &fill);
            setup
                .env
                .push((route.env.to_owned(), join(folder, route.file)));
            setup
                .env
                .extend(route.fixed.iter().map(|(k, v)| ((*k).to_owned(), fill(v))));
            setup.files.push(RunFile {
                path: route.file.to_owned(),
                content: format!("{value}\n"),
            });
            setup.model = None;
        }
    }
    Ok(setup)
}

/// A provider of the agent's models file in the run's home, made its
/// default in the home's settings; the key and the headers' values in
/// variables the file names (pi runs a value starting with `!` as a shell
/// command).
fn models_file(
    route: &ModelsFile,
    endpoint: &Endpoint,
    agent: &AgentSpec,
    family: ApiFamily,
    model: &Option<String>,
    setup: &mut EndpointSetup,
) -> Result<()> {
    let Some((_, api, suffix)) = route.apis.iter().find(|(f, _, _)| *f == family) else {
        return Err(AgentContextError::invalid(format!(
            "{} is '{}', which {} has no API name for",
            endpoint.path_of("api"),
            family.name(),
            agent.name
        )));
    };
    let model = model.clone().unwrap_or_default();
    let key = endpoint.api_key.as_deref().unwrap_or(NO_KEY);
    setup.env.push((route.key_env.to_owned(), key.to_owned()));
    let mut provider = Map::new();
    provider.insert(
        "baseUrl".into(),
        json!(format!("{}{suffix}", endpoint.base_url)),
    );
    provider.insert("api".into(), json!(api));
    provider.insert("apiKey".into(), json!(route.key_env));
    if !endpoint.headers.is_empty() {
        let mut headers = Map::new();
        for (i, (name, value)) in endpoint.headers.iter().enumerate() {
            let var = format!("{}{i}", route.header_env);
            headers.insert(name.clone(), json!(var));
            setup.env.push((var, value.clone()));
        }
        provider.insert("headers".into(), Value::Object(headers));
    }
    // Declared to take images: an attachment then reaches the model.
    provider.insert(
        "models".into(),
        json!([{ "id": model, "input": ["text", "image"] }]),
    );
    let file = json!({ "providers": { route.id: provider } });
    setup.home_files.push(RunFile {
        path: route.file.to_owned(),
        content: format!("{file}\n"),
    });
    let [provider_key, model_key] = route.default_keys;
    setup.home_settings = Some(json!({ provider_key: route.id, model_key: model }));
    setup.model = None;
    Ok(())
}

/// Every string in `value` passed through `fill`.
fn fill_strings(value: &mut Value, fill: &dyn Fn(&str) -> String) {
    match value {
        Value::String(s) => *s = fill(s),
        Value::Array(items) => items.iter_mut().for_each(|v| fill_strings(v, fill)),
        Value::Object(map) => map.values_mut().for_each(|v| fill_strings(v, fill)),
        _ => {}
    }
}

fn env_route(
    route: &EnvRoute,
    endpoint: &Endpoint,
    agent: &AgentSpec,
    folder: &str,
    model: &Option<String>,
    setup: &mut EndpointSetup,
) -> Result<()> {
    setup
        .env
        .push((route.base_url.to_owned(), endpoint.base_url.clone()));
    let key = endpoint.api_key.as_deref().unwrap_or(NO_KEY);
    setup.env.push((route.api_key.to_owned(), key.to_owned()));
    if let (Some(name), Some(model)) = (route.model, model) {
        setup.env.push((name.to_owned(), model.clone()));
    }
    setup.env.extend(pairs(route.fixed));
    let headers = &endpoint.headers;
    let mut settings_headers = None;
    match route.headers {
        _ if headers.is_empty() => {}
        HeaderRoute::None => {
            return Err(AgentContextError::invalid(format!(
                "{} cannot be given to {}: it takes no headers for a model endpoint",
                endpoint.path_of("headers"),
                agent.name
            )))
        }
        HeaderRoute::EnvLines(name) => {
            let lines: Vec<String> = headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            setup.env.push((name.to_owned(), lines.join("\n")));
        }
        HeaderRoute::EnvCommas(name) => {
            if let Some((k, _)) = headers.iter().find(|(_, v)| v.contains(',')) {
                return Err(AgentContextError::invalid(format!(
                    "{}.{k} must not hold a comma for {}: it reads the headers from one comma-separated variable",
                    endpoint.path_of("headers"),
                    agent.name
                )));
            }
            let items: Vec<String> = headers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            setup.env.push((name.to_owned(), items.join(", ")));
        }
        HeaderRoute::Settings(key) => settings_headers = Some(key),
    }
    if let Some(settings) = route.settings {
        let mut value: Value = serde_json::from_str(settings.json).unwrap_or(Value::Null);
        if let Some(key) = settings_headers {
            merge_json(&mut value, nest(key, header_object(headers)));
        }
        match settings.place {
            SettingsPlace::EnvPath(env) => {
                setup
                    .env
                    .push((env.to_owned(), join(folder, SETTINGS_FILE)));
                setup.files.push(RunFile {
                    path: SETTINGS_FILE.to_owned(),
                    content: format!("{value}\n"),
                });
            }
            SettingsPlace::Home => setup.home_settings = Some(value),
        }
    }
    Ok(())
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn header_object(headers: &[(String, String)]) -> Value {
    Value::Object(
        headers
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// `value` at `key` (`["a", "b"]` → `{"a":{"b":value}}`).
fn nest(key: &[&str], value: Value) -> Value {
    key.iter().rev().fold(value, |inner, part| {
        let mut map = Map::new();
        map.insert((*part).to_owned(), inner);
        Value::Object(map)
    })
}

/// `folder` and `file`, with the folder's own separator.
pub fn join(folder: &str, file: &str) -> String {
    let sep = if folder.contains('\\') && !folder.contains('/') {
        '\\'
    } else {
        '/'
    };
    format!("{}{sep}{file}", folder.trim_end_matches(['/', '\\']))
}

/// A JSON object of strings and objects as a TOML inline table.
fn toml_inline(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{} = {}", toml_string(k), toml_inline(v)))
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
        Value::String(s) => toml_string(s),
        other => other.to_string(),
    }
}

/// Merges `add` into `base`: objects key by key, anything else replaced.
pub fn merge_json(base: &mut Value, add: Value) {
    match (base, add) {
        (Value::Object(base), Value::Object(add)) => {
            for (k, v) in add {
                match base.get_mut(&k) {
                    Some(slot) => merge_json(slot, v),
                    None => {
                        base.insert(k, v);
                    }
                }
            }
        }
        (base, add) => *base = add,
    }
}

/// Files for one path made one: JSON objects merged (the later wins key by
/// key), anything else the later file; first-seen order kept.
pub fn merge_json_files(files: Vec<InvocationFile>) -> Vec<InvocationFile> {
    let mut out: Vec<InvocationFile> = Vec::new();
    for file in files {
        match out.iter_mut().find(|f| f.path == file.path) {
            None => out.push(file),
            Some(seen) => {
                let merged = match (
                    serde_json::from_str::<Value>(&seen.content),
                    serde_json::from_str::<Value>(&file.content),
                ) {
                    (Ok(mut a @ Value::Object(_)), Ok(b @ Value::Object(_))) => {
                        merge_json(&mut a, b);
                        format!("{a}\n")
                    }
                    _ => file.content,
                };
                seen.content = merged;
            }
        }
    }
    out
}

/// Adds `add` to `env`: a variable already there is replaced, or merged
/// with it when both hold JSON objects (Codex's `CODEX_CONFIG`).
pub fn merge_env(env: &mut Vec<(String, String)>, add: Vec<(String, String)>) {
    for (name, value) in add {
        match env.iter_mut().find(|(k, _)| *k == name) {
            None => env.push((name, value)),
            Some(slot) => {
                slot.1 = match (
                    serde_json::from_str::<Value>(&slot.1),
                    serde_json::from_str::<Value>(&value),
                ) {
                    (Ok(mut a @ Value::Object(_)), Ok(b @ Value::Object(_))) => {
                        merge_json(&mut a, b);
                        a.to_string()
                    }
                    _ => value,
                }
            }
        }
    }
}
