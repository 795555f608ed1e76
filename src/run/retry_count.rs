//! Counting an agent's own retries from what it prints, for the agents whose
//! retries no setting the run can own reaches (Gemini CLI, Codex; see their
//! files in `src/agents/`): a line holding one of its retry lines
//! ([`Signs::retry_lines`]) that also says what failed — an HTTP status after
//! one of [`Signs::retry_status`], else wording of its [`Signs::markers`]
//! that stands for a transient failure (Codex's "high demand" for a 5xx) —
//! is one retry. Once the agent has retried more than `maxRetries` times the
//! run stops it, and the attempt ends as that status or wording says
//! (`upstream_error` for a 5xx) rather than waiting out the agent's backoff.
//! An agent that tells of its retries in a file instead (Qwen Code's
//! telemetry, `crate::agents::RetryLog`) is read the same way, from what
//! the host reads of that file ([`RetryCount::push_log`]).

use super::signs::Signs;
use crate::error_kind::AgentErrorKind;

/// Why the agent was stopped: it retried `retries` times, the last one for
/// `kind` (with the HTTP `status` when its line said one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnRetriesOver {
    pub kind: AgentErrorKind,
    pub status: Option<u16>,
    pub retries: u32,
}

/// One attempt's count of the agent's own retries.
#[derive(Clone, Debug)]
pub struct RetryCount {
    signs: &'static Signs,
    /// The retries the agent may make (`maxRetries`).
    bound: u32,
    seen: u32,
    /// What the last retry line said.
    last: Option<(AgentErrorKind, Option<u16>)>,
    /// Unterminated lines kept from the last chunk of stdout, of stderr and
    /// of the retry log.
    partial: [String; 3],
    over: bool,
}

/// Longest partial line kept between chunks: a retry line is short; anything
/// longer is a reply or a stack trace, not one.
const PARTIAL_MAX: usize = 8192;

impl RetryCount {
    pub fn new(signs: &'static Signs, bound: u32) -> RetryCount {
        RetryCount {
            signs,
            bound,
            seen: 0,
            last: None,
            partial: [String::new(), String::new(), String::new()],
            over: false,
        }
    }

    /// Reads a chunk of stdout (`stderr` false) or stderr; returns `true`
    /// once, on the retry line that takes the agent past its bound: the
    /// host then stops the process.
    pub fn push(&mut self, stderr: bool, chunk: &[u8]) -> bool {
        self.push_to(usize::from(stderr), chunk)
    }

    /// Reads a chunk of the file the agent tells of its retries in (what
    /// the host read of it since the last chunk); returns `true` as
    /// [`RetryCount::push`] does.
    pub fn push_log(&mut self, chunk: &[u8]) -> bool {
        self.push_to(2, chunk)
    }

    fn push_to(&mut self, stream: usize, chunk: &[u8]) -> bool {
        if self.signs.retry_lines.is_empty() || self.over {
            return false;
        }
        let partial = &mut self.partial[stream];
        partial.push_str(&String::from_utf8_lossy(chunk));
        let mut lines = Vec::new();
        while let Some(end) = partial.find('\n') {
            lines.push(partial.drain(..=end).collect::<String>());
        }
        if partial.len() > PARTIAL_MAX {
            partial.clear();
        }
        lines.iter().any(|line| self.line(line))
    }

    fn line(&mut self, line: &str) -> bool {
        if self.over || !self.signs.retry_lines.iter().any(|l| contains(line, l)) {
            return false;
        }
        let what = match super::http_status(line, self.signs.retry_status) {
            Some(status) => Some((AgentErrorKind::from_http_status(status), Some(status))),
            None => self
                .signs
                .markers
                .iter()
                .find(|(m, kind)| kind.is_retryable() && contains(line, m))
                .map(|(_, kind)| (*kind, None)),
        };
        let Some(what) = what else {
            return false;
        };
        self.seen += 1;
        self.last = Some(what);
        self.over = self.seen > self.bound;
        self.over
    }

    /// Set once the agent went past its bound.
    pub fn exceeded(&self) -> Option<OwnRetriesOver> {
        let (kind, status) = self.last?;
        self.over.then_some(OwnRetriesOver {
            kind,
            status,
            retries: self.seen,
        })
    }
}

fn contains(text: &str, needle: &str) -> bool {
    text.to_lowercase().contains(&needle.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEMINI: &Signs = crate::agents::GOOGLE_GEMINI.signs;

    fn gemini_retry(n: u32, status: u16) -> String {
        format!("Attempt {n} failed with status {status}. Retrying with backoff... _ApiError: {{\"error\":{{\"code\":{status}}}}}\n  status: {status}\n")
    }

    fn over(kind: AgentErrorKind, status: Option<u16>, retries: u32) -> Option<OwnRetriesOver> {
        Some(OwnRetriesOver {
            kind,
            status,
            retries,
        })
    }

    #[test]
    fn past_the_bound_on_the_retry_that_exceeds_it() {
        let mut count = RetryCount::new(GEMINI, 1);
        assert!(!count.push(true, gemini_retry(1, 500).as_bytes()));
        assert_eq!(count.exceeded(), None);
        assert!(count.push(true, gemini_retry(2, 500).as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::UpstreamError, Some(500), 2)
        );
        // Said once; later lines change nothing.
        assert!(!count.push(true, gemini_retry(3, 429).as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::UpstreamError, Some(500), 2)
        );
    }

    #[test]
    fn bound_zero_stops_at_the_first_retry_and_lines_may_be_split() {
        let mut count = RetryCount::new(GEMINI, 0);
        let line = gemini_retry(1, 429);
        let (a, b) = line.split_at(20);
        assert!(!count.push(true, a.as_bytes()));
        // Stdout's partial line is its own.
        assert!(!count.push(false, b"{\"type\":\"init\"}\n"));
        assert!(count.push(true, b.as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::QuotaExceeded, Some(429), 1)
        );
    }

    #[test]
    fn codex_reconnecting_lines_count_by_their_wording() {
        let codex = crate::agents::find("openai-codex").unwrap().signs;
        let line = |n: u32| {
            format!("{{\"type\":\"error\",\"message\":\"Reconnecting... {n}/5 (We\u{2019}re currently experiencing high demand, which may cause temporary errors.)\"}}\n")
        };
        let mut count = RetryCount::new(codex, 1);
        assert!(!count.push(false, line(1).as_bytes()));
        assert!(count.push(false, line(2).as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::UpstreamError, None, 2)
        );
        // A reconnect that names nothing transient is not counted.
        let mut count = RetryCount::new(codex, 0);
        assert!(!count.push(
            false,
            b"{\"type\":\"error\",\"message\":\"Reconnecting... 1/5 (stream closed)\"}\n"
        ));
    }

    /// Qwen Code 0.24.4's telemetry record of a retry, as its file exporter
    /// writes it (pretty-printed; trimmed to the lines that matter).
    fn qwen_retry_record(n: u32, status: &str) -> String {
        format!("{{\n  \"attributes\": {{\n    \"event.name\": \"qwen-code.api_retry\",\n    \"status_code\": {status},\n    \"error\": \"500 Mock server error\"\n  }},\n  \"_body\": \"API retry attempt {n} for gpt-mock (status {status}).\",\n  \"_isReadonly\": true\n}}\n")
    }

    #[test]
    fn qwen_retry_records_in_its_log_count_and_nothing_else_there_does() {
        let qwen = crate::agents::find("qwen-code").unwrap().signs;
        let mut count = RetryCount::new(qwen, 1);
        let api_error = "{\n  \"_body\": \"API error for gpt-mock. Error: 500 Mock server error. Duration: 12ms.\",\n}\n";
        assert!(!count.push_log(api_error.as_bytes()));
        // A prompt that quotes a record is escaped JSON: not counted.
        let prompt = "  \"prompt\": \"say \\\"_body\\\": \\\"API retry attempt 1 for x (status 500).\\\"\",\n";
        assert!(!count.push_log(prompt.as_bytes()));
        assert!(!count.push_log(qwen_retry_record(1, "500").as_bytes()));
        assert_eq!(count.exceeded(), None);
        // A record cut between two reads of the file.
        let second = qwen_retry_record(2, "500");
        let (a, b) = second.split_at(second.find("(status").unwrap());
        assert!(!count.push_log(a.as_bytes()));
        // The log's partial line is its own: stderr does not complete it.
        assert!(!count.push(true, b"Ripgrep not available\n"));
        assert!(count.push_log(b.as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::UpstreamError, Some(500), 2)
        );
        // A retry whose status Qwen did not know names none: not counted.
        let mut count = RetryCount::new(qwen, 0);
        assert!(!count.push_log(qwen_retry_record(1, "unknown").as_bytes()));
        assert!(count.push_log(qwen_retry_record(2, "429").as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::QuotaExceeded, Some(429), 1)
        );
    }

    #[test]
    fn other_lines_and_retry_lines_without_a_cause_do_not_count() {
        let mut count = RetryCount::new(GEMINI, 0);
        assert!(!count.push(true, b"YOLO mode is enabled.\n{\"code\":500}\n"));
        assert!(!count.push(true, b"Attempt 1 failed. Retrying with backoff...\n"));
        assert!(!count.push(true, b"Attempt 1 failed with status 500. Retrying"));
        assert_eq!(count.exceeded(), None);
        // Qwen's unattended-mode heartbeat names no status: not counted.
        let mut qwen = RetryCount::new(crate::agents::find("qwen-code").unwrap().signs, 0);
        assert!(!qwen.push(
            true,
            b"[qwen-code] Waiting for API capacity... attempt 1, retry in 5s\n"
        ));
        // Agents without retry lines are never stopped this way.
        let mut claude = RetryCount::new(crate::agents::find("claude-code").unwrap().signs, 0);
        assert!(!claude.push(true, gemini_retry(1, 500).as_bytes()));
    }
}
