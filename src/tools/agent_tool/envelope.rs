//! Seed 003's envelope for a `runAgent` run of another agent than Gemini:
//! the same keys in the same order, `tool` the agent's tool name. The
//! failure's `error` is the first line of the run's message, its
//! `error_detail.message` the whole message.

use serde_json::{json, Map, Value};

use super::params::ToolCall;
use crate::attempt::AgentRun;
use crate::tools::gemini_tool::{format_duration, Metrics};

/// The envelope of `run` (not yet bounded: see [`super::bound_envelope`]);
/// `all_messages` are the run's events when `return_all_messages` kept them.
pub fn run_envelope(call: &ToolCall, run: &AgentRun, all_messages: Option<Value>) -> Value {
    let duration = format_duration(run.duration_ms);
    let mut out = match &run.error {
        None => json!({
            "success": true,
            "tool": call.agent.mcp_tool,
            "SESSION_ID": run.session_id,
            "result": run.reply.text,
            "duration": duration,
        }),
        Some(error) => failure(
            call,
            &error.message,
            error.kind.as_str(),
            error.exit_code,
            &error.last_lines,
            run.attempts.saturating_sub(1),
            duration,
        ),
    };
    if call.return_all_messages {
        out["all_messages"] = all_messages.unwrap_or_else(|| json!([]));
    }
    if call.return_metrics {
        out["metrics"] = metrics(run);
    }
    out
}

/// The `invalid_params` envelope of a call that did not run.
pub fn invalid_envelope(call: &ToolCall, message: &str, duration_ms: u64) -> Value {
    failure(
        call,
        &format!("invalid parameters: {message}"),
        "invalid_params",
        None,
        &[],
        0,
        format_duration(duration_ms),
    )
}

fn failure(
    call: &ToolCall,
    message: &str,
    kind: &str,
    exit_code: Option<i32>,
    last_lines: &[String],
    retries: u32,
    duration: String,
) -> Value {
    let summary = message.lines().next().unwrap_or(message);
    json!({
        "success": false,
        "tool": call.agent.mcp_tool,
        "error": summary,
        "error_kind": kind,
        "error_detail": {
            "message": message,
            "exit_code": exit_code,
            "last_lines": last_lines,
            "idle_timeout_s": call.limits.idle_timeout_s,
            "max_duration_s": call.limits.max_duration_s,
            "retries": retries,
        },
        "duration": duration,
    })
}

fn metrics(run: &AgentRun) -> Value {
    let m = Metrics {
        duration_ms: run.duration_ms,
        attempts: run.attempts,
        retries: run.attempts.saturating_sub(1),
        exit_code: run.error.as_ref().and_then(|e| e.exit_code),
        tool_calls: run.reply.tool_uses.len(),
        ..Default::default()
    }
    .with_usage(run.reply.usage.as_ref());
    serde_json::to_value(m).unwrap_or(Value::Null)
}

/// The one JSON line `log_metrics` asks for (to stderr), or `None`.
pub fn metrics_line(call: &ToolCall, run: &AgentRun) -> Option<String> {
    if !call.log_metrics {
        return None;
    }
    let mut line = Map::new();
    line.insert("tool".into(), json!(call.agent.mcp_tool));
    line.insert("success".into(), json!(run.success));
    line.insert(
        "error_kind".into(),
        json!(run.error.as_ref().map(|e| e.kind.as_str())),
    );
    line.insert("duration".into(), json!(format_duration(run.duration_ms)));
    if let Value::Object(m) = metrics(run) {
        line.extend(m);
    }
    Some(Value::Object(line).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cli::run_script::ScriptedRun;
    use crate::engine::TurnResult;
    use crate::tools::gemini_tool::AttemptEnd;

    const CODEX_OK: &[u8] = b"{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"i\",\"type\":\"agent_message\",\"text\":\"Hello\"}}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":7,\"output_tokens\":2}}\n";

    /// The tool call and its run (Codex printing `stdout`, exiting
    /// `exit`, every attempt), `duration_ms` long.
    fn run_codex(
        params: Value,
        stdout: &[u8],
        exit: i32,
        duration_ms: u64,
    ) -> (ToolCall, TurnResult) {
        let call = ToolCall::new("codex", &params).unwrap();
        let super::super::CallPlan::Run { prompt, options } = &call.plan else {
            panic!()
        };
        let mut runner = ScriptedRun::new(
            "openai-codex",
            &json!({ "prompt": prompt }),
            options,
            "codex",
        );
        runner.start_attempt();
        runner.push_stdout(stdout);
        let end = AttemptEnd {
            exit_code: Some(exit),
            ..Default::default()
        };
        while let Some(_wait) = runner.end_attempt(&end, 1_000) {
            runner.start_attempt();
            runner.push_stdout(stdout);
        }
        let turn = runner.turn(duration_ms).unwrap();
        (call, turn)
    }

    #[test]
    fn success_has_the_seeds_keys() {
        let (call, turn) = run_codex(
            json!({"PROMPT": "Hi", "cd": "/w", "return_metrics": true, "log_metrics": true}),
            CODEX_OK,
            0,
            90_000,
        );
        let run = turn.as_run();
        let e = run_envelope(&call, &run, None);
        let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "success",
                "tool",
                "SESSION_ID",
                "result",
                "duration",
                "metrics"
            ]
        );
        assert_eq!(
            (
                e["tool"].as_str(),
                e["SESSION_ID"].as_str(),
                e["result"].as_str()
            ),
            (Some("codex"), Some("t1"), Some("Hello"))
        );
        assert_eq!(e["duration"], "1m30s");
        assert_eq!(e["metrics"]["input_tokens"], 7);
        let line = metrics_line(&call, &run).unwrap();
        assert!(line.starts_with(r#"{"tool":"codex","success":true,"error_kind":null,"duration":"1m30s","duration_ms":90000"#), "{line}");
    }

    #[test]
    fn failure_has_the_seeds_keys() {
        let (call, turn) = run_codex(
            json!({"PROMPT": "Hi", "cd": "/w", "max_retries": 0, "timeout": 30, "return_all_messages": true}),
            b"",
            1,
            1_000,
        );
        let run = turn.as_run();
        let e = run_envelope(&call, &run, Some(json!([{"type": "session"}])));
        let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "success",
                "tool",
                "error",
                "error_kind",
                "error_detail",
                "duration",
                "all_messages"
            ]
        );
        let detail: Vec<&String> = e["error_detail"].as_object().unwrap().keys().collect();
        assert_eq!(
            detail,
            [
                "message",
                "exit_code",
                "last_lines",
                "idle_timeout_s",
                "max_duration_s",
                "retries"
            ]
        );
        assert_eq!(e["error_detail"]["exit_code"], 1);
        assert_eq!(e["error_detail"]["idle_timeout_s"], 30);
        assert_eq!(e["error_kind"], run.error.as_ref().unwrap().kind.as_str());
        assert_eq!(e["all_messages"], json!([{"type": "session"}]));
        assert!(metrics_line(&call, &run).is_none());
        let invalid = invalid_envelope(&call, "cd is bad", 0);
        assert_eq!(
            (invalid["error_kind"].as_str(), invalid["error"].as_str()),
            (
                Some("invalid_params"),
                Some("invalid parameters: cd is bad")
            )
        );
        assert_eq!(invalid["error_detail"]["retries"], 0);
    }
}
