//! A home folder of the run's own for an agent that takes the run's
//! settings only from its user settings file (Gemini CLI: a system settings
//! file counts only when root owns it and every folder above it). Its
//! agent file names it ([`RunHome`]); pure, in three steps:
//!
//! 1. [`home_request`]: the run's keys (the endpoint's, the MCP servers of
//!    a command-line run, the retry bound) and where the home goes in the
//!    run's folder; `None` when the run gives the agent no settings.
//! 2. [`user_folder`]: the user's own folder for the agent (`~/.gemini`),
//!    from the child's environment.
//! 3. [`home_plan`]: given what that folder holds (listed and read by the
//!    host), the folders to make, the links to the user's entries and the
//!    settings file: the user's own settings (comments allowed, as the
//!    agent reads them) merged with the run's keys. The user's folder is
//!    never written, except that its session folders are made when missing
//!    (the agent would make them there itself).
//!
//! The host makes them before the agent starts and removes the run's folder
//! after; the links keep sessions, credentials and history in the user's
//! folder, so a session resumes across runs.
//!
//! ```
//! use agent_context::{agents, launch::run_home};
//! use serde_json::json;
//!
//! let gemini = agents::find("google-gemini").unwrap();
//! let keys = json!({ "general": { "maxAttempts": 2 } });
//! let request = run_home::home_request(gemini, "/run/r1", keys, Vec::new()).unwrap();
//! assert_eq!(request.path, "/run/r1/home");
//! let user = run_home::user_folder(&request, &[("HOME".into(), "/home/u".into())]).unwrap();
//! assert_eq!(user, "/home/u/.gemini");
//! let entries = [run_home::Entry { name: "tmp".into(), dir: true }];
//! let plan = run_home::home_plan(&request, Some(&user), &entries, Some(r#"{"ui":{"hideTips":true}}"#));
//! assert_eq!(plan.links[0].target, "/home/u/.gemini/tmp");
//! assert!(plan.files[0].content.contains("maxAttempts"));
//! ```

mod comments;
#[cfg(test)]
mod tests;

pub use comments::strip_json_comments;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agents::AgentSpec;
use crate::launch::endpoint::{join, merge_json};
use crate::launch::invocation::InvocationFile;

/// The run's home, as the host is told to make it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HomeRequest {
    /// The variable naming the home (`GEMINI_CLI_HOME`).
    pub env: String,
    /// The home: `home` in the run's folder.
    pub path: String,
    /// The agent's folder in a home (`.gemini`).
    pub folder: String,
    /// Its settings file there (`settings.json`).
    pub settings_file: String,
    /// The user's folders made when missing (`tmp`, `history`).
    pub kept: Vec<String>,
    /// The run's keys, merged over the user's settings.
    pub settings: Value,
    /// True when the variable names the agent's folder itself (pi's
    /// `PI_CODING_AGENT_DIR`), not a home holding it.
    #[serde(default)]
    pub names_folder: bool,
    /// Files of the run's own in the agent's folder, in place of the
    /// user's of that name (pi's `models.json` for an endpoint).
    #[serde(default)]
    pub files: Vec<HomeFile>,
    /// A setting given the real path of a kept folder of the user's unless
    /// the user's settings set it: `[key, folder]` (pi's `sessionDir`).
    #[serde(default)]
    pub kept_setting: Option<(String, String)>,
}

/// A file of the run's home ([`HomeRequest::files`]): its name in the
/// agent's folder, and its text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HomeFile {
    pub name: String,
    pub content: String,
}

impl HomeRequest {
    /// The variable's value for the agent: the home, or the agent's folder
    /// in it when the variable names that ([`HomeRequest::names_folder`]).
    pub fn env_value(&self) -> String {
        if self.names_folder {
            join(&self.path, &self.folder)
        } else {
            self.path.clone()
        }
    }

    /// A plan's `home`, as the engine wrote it.
    pub fn read(value: Value) -> crate::error::Result<HomeRequest> {
        serde_json::from_value(value).map_err(|e| {
            crate::error::AgentContextError::invalid(format!("home is not a run's home: {e}"))
        })
    }
}

/// What the host listed of the user's folder (`[{ name, dir }]`).
pub fn read_entries(value: Value) -> crate::error::Result<Vec<Entry>> {
    serde_json::from_value(value)
        .map_err(|e| crate::error::AgentContextError::invalid(format!("entries: {e}")))
}

/// One entry of the user's folder, as the host listed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub name: String,
    /// A folder (linked as one: a junction on Windows).
    pub dir: bool,
}

/// A link `path` → `target`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub target: String,
    pub path: String,
    pub dir: bool,
}

/// What the host makes, in this order: `kept` (the user's session folders,
/// when missing), `folders`, `links`, `files`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HomePlan {
    pub kept: Vec<String>,
    pub folders: Vec<String>,
    pub links: Vec<Link>,
    pub files: Vec<InvocationFile>,
}

/// The home `agent` is given in `run_folder` for the run's `settings` (an
/// object of the keys to merge, over the agent's own fixed ones:
/// `RunHome::fixed`) and `files` (`[(name, content)]`); `None` when the
/// agent has no run home or the run gives it no settings.
pub fn home_request(
    agent: &AgentSpec,
    run_folder: &str,
    settings: Value,
    files: Vec<(String, String)>,
) -> Option<HomeRequest> {
    let home = agent.home?;
    if run_folder.is_empty() || !settings.as_object().is_some_and(|m| !m.is_empty()) {
        return None;
    }
    let mut keys: Value = serde_json::from_str(home.fixed)
        .ok()
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::Object(Default::default()));
    merge_json(&mut keys, settings);
    Some(HomeRequest {
        env: home.env.to_owned(),
        path: join(run_folder, "home"),
        folder: home.folder.to_owned(),
        settings_file: home.settings.to_owned(),
        kept: home.kept.iter().map(|k| (*k).to_owned()).collect(),
        settings: keys,
        names_folder: home.names_folder,
        kept_setting: home
            .kept_setting
            .map(|(key, folder)| (key.to_owned(), folder.to_owned())),
        files: files
            .into_iter()
            .map(|(name, content)| HomeFile { name, content })
            .collect(),
    })
}

/// The user's folder for the agent: in the caller's own value of the
/// home variable, else `HOME`, else `USERPROFILE` (Windows); `None`
/// without any.
pub fn user_folder(request: &HomeRequest, env: &[(String, String)]) -> Option<String> {
    let get = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    };
    let own = request.env_value();
    if let Some(folder) = get(&request.env).filter(|v| *v != own) {
        return Some(if request.names_folder {
            folder.to_owned()
        } else {
            join(folder, &request.folder)
        });
    }
    let home = get("HOME").or_else(|| get("USERPROFILE"))?;
    Some(join(home, &request.folder))
}

/// What to make for `request`: `user` is the user's folder ([`user_folder`]),
/// `entries` what it holds (none when it is missing), `user_settings` the
/// text of its settings file (`None` when missing or unreadable). Settings
/// that are not a JSON object once comments are taken out are left out:
/// the run's keys alone are written.
pub fn home_plan(
    request: &HomeRequest,
    user: Option<&str>,
    entries: &[Entry],
    user_settings: Option<&str>,
) -> HomePlan {
    let own = join(&request.path, &request.folder);
    let mut plan = HomePlan {
        folders: vec![own.clone()],
        ..HomePlan::default()
    };
    let mut settings = user_settings
        .and_then(|text| serde_json::from_str::<Value>(&strip_json_comments(text)).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| Value::Object(Default::default()));
    merge_json(&mut settings, request.settings.clone());
    if let (Some(user), Some((key, folder)), Value::Object(map)) =
        (user, &request.kept_setting, &mut settings)
    {
        if !map.contains_key(key) {
            map.insert(key.clone(), Value::String(join(user, folder)));
        }
    }
    if let Some(user) = user {
        let mut linked: Vec<Entry> = entries
            .iter()
            .filter(|e| e.name != request.settings_file && !e.name.contains(['/', '\\']))
            .filter(|e| !request.files.iter().any(|f| f.name == e.name))
            .filter(|e| e.name != "." && e.name != "..")
            .cloned()
            .collect();
        for kept in &request.kept {
            if !linked.iter().any(|e| &e.name == kept) {
                plan.kept.push(join(user, kept));
                linked.push(Entry {
                    name: kept.clone(),
                    dir: true,
                });
            }
        }
        plan.links = linked
            .into_iter()
            .map(|e| Link {
                target: join(user, &e.name),
                path: join(&own, &e.name),
                dir: e.dir,
            })
            .collect();
    }
    let text = serde_json::to_string_pretty(&settings).unwrap_or_else(|_| settings.to_string());
    plan.files.push(InvocationFile {
        path: join(&own, &request.settings_file),
        content: format!("{text}\n"),
    });
    plan.files
        .extend(request.files.iter().map(|f| InvocationFile {
            path: join(&own, &f.name),
            content: f.content.clone(),
        }));
    plan
}
