//! How an agent file says its agent is pointed at a model endpoint
//! ([`EndpointSpec`]): the variables, files and arguments a run sets. Part
//! of the agent's table ([`super::AgentSpec`]).

use super::ApiFamily;

/// How the agent is pointed at a model endpoint (`options.endpoint`),
/// through configuration the run owns: its environment, files in a folder
/// the run creates and removes, arguments — never the user's own files.
/// `docs/endpoint.md` says what each agent is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndpointSpec {
    /// The API families it can call, its own first (the one used when
    /// `endpoint.api` is not given), each with the variables that select it.
    pub families: &'static [FamilyUse],
    pub route: EndpointRoute,
    pub model: EndpointModel,
}

/// An API family the agent can call, and the variables that select it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FamilyUse {
    pub family: ApiFamily,
    pub env: &'static [(&'static str, &'static str)],
}

/// How the endpoint's model reaches the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointModel {
    /// As `options.model` does without an endpoint (a flag, or the
    /// variable over ACP); the agent's own default when none is given.
    Option,
    /// The same, but the agent has no default for a custom endpoint: a
    /// model must be named.
    Required,
    /// Inside the configuration the route writes (never as a flag); a model
    /// must be named.
    Config,
}

/// The mechanism that carries the endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointRoute {
    /// Environment variables, and optionally a settings file the agent
    /// merges over the user's own.
    Env(EnvRoute),
    /// A model provider of Codex's configuration, as overrides: `-c` on the
    /// command line, and the ACP adapter's `CODEX_CONFIG` (JSON). The key
    /// travels in the variable `key_env`, which the provider names.
    CodexProvider {
        id: &'static str,
        key_env: &'static str,
    },
    /// A provider in a JSON configuration held by the variable `env`
    /// (opencode's `OPENCODE_CONFIG_CONTENT`), made by the AI SDK package
    /// given for the family, whose base URL is `baseUrl` followed by the
    /// path given with it; `fixed` variables are set with it.
    JsonProvider {
        id: &'static str,
        env: &'static str,
        packages: &'static [(ApiFamily, &'static str, &'static str)],
        fixed: &'static [(&'static str, &'static str)],
    },
    /// A JSON file the run writes in its folder and names by a variable
    /// (Cline's provider settings, Droid's runtime settings), holding the
    /// endpoint; it takes no headers.
    File(FileRoute),
    /// A provider in a models file of the agent's folder in the run's home
    /// ([`RunHome`](super::RunHome)), made its default in the home's settings (pi's
    /// `models.json`, `defaultProvider`, `defaultModel`).
    ModelsFile(ModelsFile),
}

/// A provider file for the endpoint ([`EndpointRoute::ModelsFile`]):
/// `{"providers":{id:{"baseUrl","api","apiKey","headers","models":[{"id"}]}}}`
/// in `file`, written in the run's home in place of the user's own. The
/// key and each header's value go through variables the file names, never
/// in it: the agent reads a value that starts with `!` as a shell command
/// to run, and one that names a variable as that variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelsFile {
    /// The file in the agent's folder (`models.json`).
    pub file: &'static str,
    /// The provider's id (`agent-context`).
    pub id: &'static str,
    /// Per family, the agent's name for its API and the path after
    /// `baseUrl` (`openai-completions`, ``).
    pub apis: &'static [(ApiFamily, &'static str, &'static str)],
    /// The variable holding the key.
    pub key_env: &'static str,
    /// The variables holding the headers' values: this, then `0`, `1`, ….
    pub header_env: &'static str,
    /// The settings keys that make it the default, `[provider, model]`.
    pub default_keys: [&'static str; 2],
}

/// A settings file for the endpoint ([`EndpointRoute::File`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileRoute {
    /// The variable that names the file (`CLINE_PROVIDER_SETTINGS_PATH`).
    pub env: &'static str,
    /// Its name in the run's folder (`providers.json`).
    pub file: &'static str,
    /// Its JSON, where `{baseUrl}`, `{apiKey}` (or [`NO_KEY`]) and
    /// `{model}` in a string are the endpoint's.
    ///
    /// [`NO_KEY`]: crate::launch::endpoint::NO_KEY
    pub template: &'static str,
    /// Set with it, always; `{model}` in a value is the endpoint's model.
    pub fixed: &'static [(&'static str, &'static str)],
}

/// Variables that carry the endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnvRoute {
    pub base_url: &'static str,
    /// Always set: `apiKey`, else [`crate::launch::endpoint::NO_KEY`], so a key of
    /// the caller's environment meant for the vendor never goes elsewhere.
    pub api_key: &'static str,
    /// A variable that carries the model too, besides `options.model`'s
    /// usual way.
    pub model: Option<&'static str>,
    pub headers: HeaderRoute,
    /// Set with them, always.
    pub fixed: &'static [(&'static str, &'static str)],
    /// Settings the run gives it: a file in the run's folder named by a
    /// variable, or its run home's settings.
    pub settings: Option<SettingsRoute>,
}

/// How `endpoint.headers` reach the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderRoute {
    /// It takes none: headers are `INVALID_INPUT`.
    None,
    /// One variable, `Name: value` lines.
    EnvLines(&'static str),
    /// One variable, `Name: value` joined by `,` (a value may not hold one).
    EnvCommas(&'static str),
    /// An object at this key of the settings file.
    Settings(&'static [&'static str]),
}

/// Settings for the endpoint: `json` (and the headers, for
/// [`HeaderRoute::Settings`]), where `place` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettingsRoute {
    pub place: SettingsPlace,
    pub json: &'static str,
}

/// Where an agent takes the run's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingsPlace {
    /// A file `settings.json` in the run's folder, named by this variable,
    /// that the agent merges over the user's settings; the same file as
    /// [`OwnRetries::SettingsFile`](super::OwnRetries::SettingsFile)'s when both name one variable.
    EnvPath(&'static str),
    /// Merged into the user's settings in the run's home ([`RunHome`](super::RunHome)).
    Home,
}
