//! Seed 004's option types (`SessionMode`, `AgentInfo`, `ToolPolicyConfig`,
//! `RunContext`, `ContextBuildOptions`), read from JSON with path-naming errors.

use serde_json::Value;

use super::conversation::ConversationMessage;
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::Obj;

/// `'chat' | 'agent' | 'run'`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionMode {
    Chat,
    Agent,
    Run,
}

impl SessionMode {
    pub fn parse(value: &str, path: &str) -> Result<SessionMode> {
        match value {
            "chat" => Ok(SessionMode::Chat),
            "agent" => Ok(SessionMode::Agent),
            "run" => Ok(SessionMode::Run),
            other => Err(AgentContextError::invalid(format!(
                "{path} must be 'chat', 'agent' or 'run', got {other:?}"
            ))),
        }
    }

    /// As `# Mode:` writes it.
    pub fn upper(self) -> &'static str {
        match self {
            SessionMode::Chat => "CHAT",
            SessionMode::Agent => "AGENT",
            SessionMode::Run => "RUN",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentInfo<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub role: &'a str,
    pub identity: Option<&'a str>,
    pub communication_style: Option<&'a str>,
    pub principles: Vec<&'a str>,
    pub system_prompt: Option<&'a str>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolPolicyConfig<'a> {
    pub allowed_categories: Vec<&'a str>,
    pub denied_categories: Vec<&'a str>,
    pub allowed_tools: Vec<&'a str>,
    pub denied_tools: Vec<&'a str>,
    pub custom_rules: Vec<&'a str>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transition<'a> {
    pub label: &'a str,
    pub target_node_id: &'a str,
    pub is_default: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunContext<'a> {
    pub package_name: &'a str,
    pub workflow_name: &'a str,
    pub step_id: &'a str,
    pub step_name: &'a str,
    pub step_instruction: &'a str,
    pub steps_completed: Vec<&'a str>,
    pub artifacts: Vec<&'a str>,
    pub outgoing_edges: Vec<Transition<'a>>,
}

/// `settings` of `ContextBuildOptions`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// `false` only when `includeSystemPrompt === false`.
    pub include_system_prompt: bool,
    pub max_messages: Option<usize>,
}

/// The parts of `ContextBuildOptions` that shape the system prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptOptions<'a> {
    pub mode: SessionMode,
    pub agent: Option<AgentInfo<'a>>,
    pub tool_policy: Option<ToolPolicyConfig<'a>>,
    pub run_context: Option<RunContext<'a>>,
}

/// A whole `ContextBuildOptions`.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextBuildOptions<'a> {
    pub prompt: PromptOptions<'a>,
    pub messages: Vec<ConversationMessage<'a>>,
    pub settings: Settings,
}

fn list<'a>(o: &Obj<'a, '_>, key: &str) -> Result<Vec<&'a str>> {
    Ok(o.opt_str_list(key)?.unwrap_or_default())
}

fn agent_info<'a>(o: Obj<'a, '_>) -> Result<AgentInfo<'a>> {
    Ok(AgentInfo {
        id: o.opt_str("id")?.unwrap_or_default(),
        name: o.req_str("name")?,
        role: o.req_str("role")?,
        identity: o.opt_str("identity")?,
        communication_style: o.opt_str("communicationStyle")?,
        principles: list(&o, "principles")?,
        system_prompt: o.opt_str("systemPrompt")?,
    })
}

fn tool_policy<'a>(o: Obj<'a, '_>) -> Result<ToolPolicyConfig<'a>> {
    Ok(ToolPolicyConfig {
        allowed_categories: list(&o, "allowedCategories")?,
        denied_categories: list(&o, "deniedCategories")?,
        allowed_tools: list(&o, "allowedTools")?,
        denied_tools: list(&o, "deniedTools")?,
        custom_rules: list(&o, "customRules")?,
    })
}

fn run_context<'a>(o: Obj<'a, '_>) -> Result<RunContext<'a>> {
    let step_path = o.path_of("currentStep");
    let step = o.req_obj("currentStep", &step_path)?;
    let mut ctx = RunContext {
        package_name: o.req_str("packageName")?,
        workflow_name: o.req_str("workflowName")?,
        step_id: step.req_str("id")?,
        step_name: step.req_str("name")?,
        step_instruction: step.req_str("instruction")?,
        ..RunContext::default()
    };
    if let Some(state) = o.get("state") {
        let path = o.path_of("state");
        let state = Obj::new(state, &path)?;
        ctx.steps_completed = list(&state, "stepsCompleted")?;
        ctx.artifacts = list(&state, "artifacts")?;
        if let Some(vars) = state.get("variables") {
            Obj::new(vars, &state.path_of("variables"))?;
        }
    }
    if let Some(graph) = o.get("graph") {
        let path = o.path_of("graph");
        let graph = Obj::new(graph, &path)?;
        if let Some(edges) = graph.opt_array("outgoingEdges")? {
            let edges_path = graph.path_of("outgoingEdges");
            for (i, edge) in edges.iter().enumerate() {
                let edge_path = format!("{edges_path}[{i}]");
                let e = Obj::new(edge, &edge_path)?;
                ctx.outgoing_edges.push(Transition {
                    label: e.req_str("label")?,
                    target_node_id: e.req_str("targetNodeId")?,
                    is_default: e.opt_bool("isDefault")?.unwrap_or(false),
                });
            }
        }
    }
    Ok(ctx)
}

impl<'a> RunContext<'a> {
    /// Reads a `RunContext` on its own, at `path`.
    pub fn read(value: &'a Value, path: &str) -> Result<RunContext<'a>> {
        run_context(Obj::new(value, path)?)
    }
}

/// Reads the optional object at `key` with `read`, or `None` when missing.
fn optional<'a, T>(
    o: &Obj<'a, '_>,
    key: &str,
    read: impl FnOnce(Obj<'a, '_>) -> Result<T>,
) -> Result<Option<T>> {
    match o.get(key) {
        None => Ok(None),
        Some(value) => {
            let path = o.path_of(key);
            read(Obj::new(value, &path)?).map(Some)
        }
    }
}

impl<'a> PromptOptions<'a> {
    /// Reads the prompt-shaping fields of `ContextBuildOptions` at `options`.
    pub fn read(o: &Obj<'a, '_>) -> Result<PromptOptions<'a>> {
        let mode_path = o.path_of("mode");
        let mode = SessionMode::parse(o.req_str("mode")?, &mode_path)?;
        Ok(PromptOptions {
            mode,
            agent: optional(o, "agent", agent_info)?,
            tool_policy: optional(o, "toolPolicy", tool_policy)?,
            run_context: optional(o, "runContext", run_context)?,
        })
    }
}

impl<'a> ContextBuildOptions<'a> {
    /// Reads a whole `ContextBuildOptions` (the value of `options`).
    pub fn read(value: &'a Value) -> Result<ContextBuildOptions<'a>> {
        let o = Obj::new(value, "").map_err(|_| {
            AgentContextError::invalid(format!(
                "options must be an object, got {}",
                crate::formats::json_read::type_name(value)
            ))
        })?;
        let prompt = PromptOptions::read(&o)?;
        let messages = o
            .req_array("messages")?
            .iter()
            .enumerate()
            .map(|(i, m)| ConversationMessage::read(m, &format!("messages[{i}]")))
            .collect::<Result<Vec<_>>>()?;
        let mut settings = Settings {
            include_system_prompt: true,
            max_messages: None,
        };
        if let Some(s) = o.get("settings") {
            let s = Obj::new(s, "settings")?;
            settings.include_system_prompt = s.opt_bool("includeSystemPrompt")? != Some(false);
            settings.max_messages = s.opt_count("maxMessages")?;
        }
        Ok(ContextBuildOptions {
            prompt,
            messages,
            settings,
        })
    }
}
