//! `composeSystemPrompt`: seed 004's parts, in its order, with its exact lines,
//! joined by `\n\n---\n\n`. Beyond the seed, `tool-policy.md` follows the
//! policy lines and `run-directive-protocol.md` ends the run directive.

use super::options::{AgentInfo, PromptOptions, RunContext, SessionMode, ToolPolicyConfig};
use super::templates::{
    Templates, BASE_RULES_CHAT, BASE_RULES_RUN, RUN_DIRECTIVE_PROTOCOL, TOOL_POLICY,
};

pub const PART_SEPARATOR: &str = "\n\n---\n\n";

/// `lines.join('\n')`, then a blank line and `template` when it is not empty.
fn with_template(lines: Vec<String>, template: &str) -> String {
    let mut text = lines.join("\n");
    if !template.is_empty() {
        text.push_str("\n\n");
        text.push_str(template);
    }
    text
}

fn tool_policy(policy: &ToolPolicyConfig<'_>, templates: &Templates<'_>) -> String {
    let mut lines = vec!["## Tool Policy".to_owned()];
    for (label, items) in [
        ("Allowed categories", &policy.allowed_categories),
        ("Denied categories", &policy.denied_categories),
        ("Allowed tools", &policy.allowed_tools),
        ("Denied tools", &policy.denied_tools),
    ] {
        if !items.is_empty() {
            lines.push(format!("{label}: {}", items.join(", ")));
        }
    }
    if !policy.custom_rules.is_empty() {
        lines.push(String::new());
        lines.push("### Custom Rules".to_owned());
        lines.extend(policy.custom_rules.iter().map(|r| format!("- {r}")));
    }
    if lines.len() == 1 {
        return String::new();
    }
    with_template(lines, templates.get(TOOL_POLICY))
}

fn persona(agent: &AgentInfo<'_>) -> String {
    if let Some(prompt) = agent
        .system_prompt
        .filter(|p| !crate::prompt::text::js_trim(p).is_empty())
    {
        return prompt.to_owned();
    }
    let mut lines = vec![
        "## Agent Persona".to_owned(),
        format!("**Name:** {}", agent.name),
        format!("**Role:** {}", agent.role),
    ];
    if let Some(identity) = agent.identity.filter(|s| !s.is_empty()) {
        lines.push(format!("**Identity:** {identity}"));
    }
    if let Some(style) = agent.communication_style.filter(|s| !s.is_empty()) {
        lines.push(format!("**Communication Style:** {style}"));
    }
    if !agent.principles.is_empty() {
        lines.push(String::new());
        lines.push("**Principles:**".to_owned());
        lines.extend(agent.principles.iter().map(|p| format!("- {p}")));
    }
    lines.join("\n")
}

fn run_directive(ctx: &RunContext<'_>, templates: &Templates<'_>) -> String {
    let mut lines = vec![
        "## Run Directive".to_owned(),
        format!("**Package:** {}", ctx.package_name),
        format!("**Workflow:** {}", ctx.workflow_name),
        format!("**Current Step:** {} ({})", ctx.step_name, ctx.step_id),
        String::new(),
        "### Step Instruction".to_owned(),
        ctx.step_instruction.to_owned(),
    ];
    if !ctx.steps_completed.is_empty() {
        lines.push(String::new());
        lines.push(format!(
            "**Completed Steps:** {}",
            ctx.steps_completed.join(" → ")
        ));
    }
    if !ctx.outgoing_edges.is_empty() {
        lines.push(String::new());
        lines.push("### Available Transitions".to_owned());
        for edge in &ctx.outgoing_edges {
            let default_tag = if edge.is_default { " (default)" } else { "" };
            lines.push(format!(
                "- **{}** → {}{default_tag}",
                edge.label, edge.target_node_id
            ));
        }
    }
    with_template(lines, templates.get(RUN_DIRECTIVE_PROTOCOL))
}

/// The system prompt for `options`.
pub fn compose_system_prompt(options: &PromptOptions<'_>, templates: &Templates<'_>) -> String {
    let mut parts = vec![format!("# Mode: {}", options.mode.upper())];
    parts.push(
        templates
            .get(if options.mode == SessionMode::Run {
                BASE_RULES_RUN
            } else {
                BASE_RULES_CHAT
            })
            .to_owned(),
    );
    if let Some(policy) = &options.tool_policy {
        parts.push(tool_policy(policy, templates));
    }
    if let Some(agent) = &options.agent {
        parts.push(persona(agent));
    }
    if let (SessionMode::Run, Some(ctx)) = (options.mode, &options.run_context) {
        parts.push(run_directive(ctx, templates));
    }
    parts.retain(|p| !p.is_empty());
    parts.join(PART_SEPARATOR)
}
