//! Seed 003's prompt template (`templates/gemini-tool-prompt.md`, embedded):
//! the task type, background, numbered tasks, expected output and, when the
//! caller gives it, the engineering context (`ai/contracts/current.md`,
//! `ai/engineering_codex.md`, `ai/PROJECT_CONTEXT.md`: Gemini never loads
//! them itself, the caller injects them).
//!
//! A paragraph of the template whose placeholders are all empty is left out
//! (the engineering context, the expected output); a line whose placeholders
//! are all empty too (the background).

use serde_json::Value;

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::{type_name, Obj};
use crate::prompt::text::js_trim;

use super::search::{find, split};

/// The template, as embedded.
pub const GEMINI_TOOL_PROMPT_TEMPLATE: &str =
    include_str!("../../../templates/gemini-tool-prompt.md");

/// 咨询 / 审核 / 执行.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskType {
    Consult,
    Review,
    Execute,
}

impl TaskType {
    fn parse(name: &str) -> Option<TaskType> {
        match name {
            "consult" | "咨询" => Some(TaskType::Consult),
            "review" | "审核" => Some(TaskType::Review),
            "execute" | "执行" => Some(TaskType::Execute),
            _ => None,
        }
    }

    /// The seed's word for it.
    pub fn label(self) -> &'static str {
        match self {
            TaskType::Consult => "咨询",
            TaskType::Review => "审核",
            TaskType::Execute => "执行",
        }
    }
}

/// One injected file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextFile {
    pub path: String,
    pub content: String,
}

/// The engineering context: a text as it is, or files, each under its path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineeringContext {
    Text(String),
    Files(Vec<ContextFile>),
}

/// `composeGeminiToolPrompt`'s input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolPromptInput {
    pub task_type: TaskType,
    pub background: String,
    pub tasks: Vec<String>,
    pub expected_output: Vec<String>,
    pub engineering_context: Option<EngineeringContext>,
}

impl ToolPromptInput {
    /// `{ taskType, background?, tasks, expectedOutput?, engineeringContext? }`;
    /// `tasks` and `expectedOutput` are a string or an array of strings.
    pub fn read(value: &Value) -> Result<ToolPromptInput> {
        if !value.is_object() {
            return Err(AgentContextError::invalid(format!(
                "input must be an object, got {}",
                type_name(value)
            )));
        }
        let o = Obj::new(value, "")?;
        let name = o.req_str("taskType")?;
        let task_type = TaskType::parse(name).ok_or_else(|| {
            AgentContextError::invalid(format!(
                "taskType must be 'consult', 'review' or 'execute' (咨询, 审核, 执行), got \"{name}\""
            ))
        })?;
        let tasks = items(&o, "tasks")?;
        if tasks.is_empty() {
            return Err(AgentContextError::invalid(
                "tasks must hold at least one non-empty task",
            ));
        }
        Ok(ToolPromptInput {
            task_type,
            background: o
                .opt_str("background")?
                .map(js_trim)
                .unwrap_or("")
                .to_owned(),
            tasks,
            expected_output: items(&o, "expectedOutput")?,
            engineering_context: read_context(o.get("engineeringContext"), "engineeringContext")?,
        })
    }
}

/// A string or an array of strings, trimmed, empty ones left out.
fn items(o: &Obj, key: &str) -> Result<Vec<String>> {
    let list = match o.get(key) {
        None => Vec::new(),
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(_)) => o.opt_str_list(key)?.unwrap_or_default(),
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{key} must be a string or an array of strings, got {}",
                type_name(other)
            )))
        }
    };
    Ok(list
        .into_iter()
        .map(js_trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect())
}

/// `engineeringContext`: a string, or an array of `{ path, content }` (what
/// `readEngineeringContext` returns). `null` or missing: none.
pub fn read_context(value: Option<&Value>, path: &str) -> Result<Option<EngineeringContext>> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(EngineeringContext::Text(text.clone()))),
        Some(Value::Array(entries)) => entries
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let at = format!("{path}[{i}]");
                let o = Obj::new(entry, &at)?;
                Ok(ContextFile {
                    path: o.req_str("path")?.to_owned(),
                    content: o.req_str("content")?.to_owned(),
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(|files| Some(EngineeringContext::Files(files))),
        Some(other) => Err(AgentContextError::invalid(format!(
            "{path} must be a string or an array of {{ path, content }}, got {}",
            type_name(other)
        ))),
    }
}

/// The prompt the template gives for `input`.
///
/// ```
/// use agent_context::tools::gemini_tool::{compose_tool_prompt, TaskType, ToolPromptInput};
/// let prompt = compose_tool_prompt(&ToolPromptInput {
///     task_type: TaskType::Review,
///     background: "A Rust library compiled to WebAssembly.".into(),
///     tasks: vec!["Review src/prompt/budget.rs".into()],
///     expected_output: vec![],
///     engineering_context: None,
/// });
/// assert!(prompt.starts_with("请提供专业意见 / 执行任务：\n\n**任务类型**：审核\n**背景信息**：A Rust library"));
/// assert!(prompt.contains("**具体问题 / 任务**：\n1. Review src/prompt/budget.rs\n\n如信息不足"));
/// ```
pub fn compose_tool_prompt(input: &ToolPromptInput) -> String {
    let numbered: Vec<String> = input
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}. {t}", i + 1))
        .collect();
    let bullets: Vec<String> = input
        .expected_output
        .iter()
        .map(|o| format!("- {o}"))
        .collect();
    let context = input
        .engineering_context
        .as_ref()
        .map(context_body)
        .unwrap_or_default();
    render(&|name| match name {
        "engineering_context" => context.clone(),
        "task_type" => input.task_type.label().to_owned(),
        "background" => input.background.clone(),
        "tasks" => numbered.join("\n"),
        "expected_output" => bullets.join("\n"),
        _ => String::new(),
    })
}

/// The template's engineering-context paragraph alone (its heading and the
/// files), to put before a prompt written by hand; `""` when there is
/// nothing in it.
pub fn format_engineering_context(context: &EngineeringContext) -> String {
    let body = context_body(context);
    if body.is_empty() {
        return String::new();
    }
    template_paragraphs()
        .into_iter()
        .find(|p| placeholders(p) == ["engineering_context"])
        .map(|p| substitute(p, &|_| body.clone()))
        .unwrap_or(body)
}

/// Files as `--- path ---` and their text (blank ones left out), joined by a blank line.
fn context_body(context: &EngineeringContext) -> String {
    match context {
        EngineeringContext::Text(text) => js_trim(text).to_owned(),
        EngineeringContext::Files(files) => files
            .iter()
            .filter(|f| !js_trim(&f.content).is_empty())
            .map(|f| format!("--- {} ---\n{}", f.path, f.content.trim_end()))
            .collect::<Vec<_>>()
            .join("\n\n"),
    }
}

fn template_paragraphs() -> Vec<&'static str> {
    split(GEMINI_TOOL_PROMPT_TEMPLATE.trim_end(), "\n\n")
}

fn render(value: &dyn Fn(&str) -> String) -> String {
    let mut out = Vec::new();
    for paragraph in template_paragraphs() {
        let names = placeholders(paragraph);
        if !names.is_empty() && names.iter().all(|n| value(n).is_empty()) {
            continue;
        }
        let lines: Vec<String> = paragraph
            .lines()
            .filter(|line| {
                let names = placeholders(line);
                names.is_empty() || names.iter().any(|n| !value(n).is_empty())
            })
            .map(|line| substitute(line, value))
            .collect();
        out.push(lines.join("\n"));
    }
    out.join("\n\n")
}

/// The `{{name}}`s in `text`.
fn placeholders(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(start) = find(rest, "{{") {
        let after = &rest[start + 2..];
        let Some(end) = find(after, "}}") else { break };
        names.push(&after[..end]);
        rest = &after[end + 2..];
    }
    names
}

fn substitute(line: &str, value: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = find(rest, "{{") {
        let after = &rest[start + 2..];
        let Some(end) = find(after, "}}") else { break };
        out.push_str(&rest[..start]);
        out.push_str(&value(&after[..end]));
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compose(value: Value) -> Result<String> {
        ToolPromptInput::read(&value).map(|i| compose_tool_prompt(&i))
    }

    #[test]
    fn the_full_template() {
        let prompt = compose(json!({
            "taskType": "execute",
            "background": "  agent-context, a Rust library compiled to WebAssembly.  ",
            "tasks": ["Add a CHANGELOG entry", " ", "Run npm test"],
            "expectedOutput": ["A summary of the change", "The test counts"],
            "engineeringContext": [
                {"path": "ai/contracts/current.md", "content": "# Contract\nOnly touch CHANGELOG.md.\n"},
                {"path": "ai/engineering_codex.md", "content": "  \n"},
                {"path": "ai/PROJECT_CONTEXT.md", "content": "Node 20.\n\nTwo cores."}
            ]
        }))
        .unwrap();
        assert_eq!(
            prompt,
            "请提供专业意见 / 执行任务：\n\n\
             【工程上下文】（调用方提供的工程约束，请作为重要参考：不要提出明显违反 Contract 的执行方案；如认为 Contract 本身存在明显问题，请指出并建议回到决策阶段修订）\n\
             --- ai/contracts/current.md ---\n# Contract\nOnly touch CHANGELOG.md.\n\n\
             --- ai/PROJECT_CONTEXT.md ---\nNode 20.\n\nTwo cores.\n\n\
             **任务类型**：执行\n**背景信息**：agent-context, a Rust library compiled to WebAssembly.\n\n\
             **具体问题 / 任务**：\n1. Add a CHANGELOG entry\n2. Run npm test\n\n\
             **期望输出**：\n- A summary of the change\n- The test counts\n\n\
             如信息不足，请在不扩展 Scope 的前提下，基于最安全、最小假设继续推进，并显式标注 Assumption。"
        );
    }

    #[test]
    fn empty_parts_are_left_out() {
        let prompt = compose(json!({"taskType": "咨询", "tasks": "Which queue should we use?", "engineeringContext": []})).unwrap();
        assert_eq!(
            prompt,
            "请提供专业意见 / 执行任务：\n\n**任务类型**：咨询\n\n**具体问题 / 任务**：\n1. Which queue should we use?\n\n\
             如信息不足，请在不扩展 Scope 的前提下，基于最安全、最小假设继续推进，并显式标注 Assumption。"
        );
        let text = compose(json!({"taskType": "review", "tasks": ["x"], "engineeringContext": "  Keep it small.  "})).unwrap();
        assert!(text.contains("修订）\nKeep it small.\n\n**任务类型**：审核"));
    }

    #[test]
    fn the_context_paragraph_alone() {
        let files = EngineeringContext::Files(vec![ContextFile {
            path: "ai/engineering_codex.md".into(),
            content: "Prefer small diffs.".into(),
        }]);
        let block = format_engineering_context(&files);
        assert!(block.starts_with("【工程上下文】（调用方提供的工程约束"));
        assert!(block.ends_with("）\n--- ai/engineering_codex.md ---\nPrefer small diffs."));
        assert_eq!(
            format_engineering_context(&EngineeringContext::Files(vec![])),
            ""
        );
        assert_eq!(
            format_engineering_context(&EngineeringContext::Text(" ".into())),
            ""
        );
    }

    #[test]
    fn bad_input_names_the_field() {
        let message = |v| compose(v).unwrap_err().message().to_owned();
        assert_eq!(message(json!([])), "input must be an object, got an array");
        assert_eq!(
            message(json!({"tasks": "x"})),
            "taskType must be a string, got undefined"
        );
        assert_eq!(
            message(json!({"taskType": "plan", "tasks": "x"})),
            "taskType must be 'consult', 'review' or 'execute' (咨询, 审核, 执行), got \"plan\""
        );
        assert_eq!(
            message(json!({"taskType": "review"})),
            "tasks must hold at least one non-empty task"
        );
        assert_eq!(
            message(json!({"taskType": "review", "tasks": 3})),
            "tasks must be a string or an array of strings, got a number"
        );
        assert_eq!(
            message(json!({"taskType": "review", "tasks": ["a", 1]})),
            "tasks[1] must be a string, got a number"
        );
        assert_eq!(
            message(
                json!({"taskType": "review", "tasks": "a", "engineeringContext": [{"path": "p"}]})
            ),
            "engineeringContext[0].content must be a string, got undefined"
        );
        assert_eq!(
            message(json!({"taskType": "review", "tasks": "a", "engineeringContext": 5})),
            "engineeringContext must be a string or an array of { path, content }, got a number"
        );
    }

    #[test]
    fn the_template_has_the_seeds_fixed_lines() {
        assert!(GEMINI_TOOL_PROMPT_TEMPLATE.starts_with("请提供专业意见 / 执行任务：\n"));
        assert!(GEMINI_TOOL_PROMPT_TEMPLATE
            .trim_end()
            .ends_with("如信息不足，请在不扩展 Scope 的前提下，基于最安全、最小假设继续推进，并显式标注 Assumption。"));
        let mut names = placeholders(GEMINI_TOOL_PROMPT_TEMPLATE);
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "background",
                "engineering_context",
                "expected_output",
                "task_type",
                "tasks"
            ]
        );
    }
}
