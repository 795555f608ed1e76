//! Counting an agent's own retries from what it prints, for the agents whose
//! retries no setting the run can own reaches (Gemini CLI, Codex; see their
//! files in `src/agents/`): a line holding one of its retry lines
//! ([`Signs::retry_lines`]) that also says what failed — an HTTP status after
//! one of [`Signs::retry_status`], else wording of its [`Signs::markers`]
//! (then the common ones) that stands for a transient failure (Codex's
//! "high demand" for a 5xx, "waiting for network" when nothing listens) —
//! is one retry. Once the agent has retried more than `maxRetries` times the
//! run stops it, and the attempt ends as that status or wording says
//! (`upstream_error` for a 5xx) rather than waiting out the agent's backoff.
//! An agent that tells of its retries in a file instead (Qwen Code's
//! telemetry, `crate::agents::RetryLog`) is read the same way, from what
//! the host reads of that file ([`RetryCount::push_log`]).

use memchr::memmem::Finder;
use memchr::{memchr, memrchr};

use super::signs::{Signs, COMMON_MARKERS};
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
    /// The attempt's first failed call was seen (for agents whose retry
    /// lines count it, [`Signs::first_failure_counted`]).
    first_failure: bool,
    /// What the last retry line said.
    last: Option<(AgentErrorKind, Option<u16>)>,
    /// Unterminated lines kept from the last chunk of stdout, of stderr and
    /// of the retry log.
    partial: [Vec<u8>; 3],
    over: bool,
    /// The agent's retry lines in ASCII lower case, to find the lines that
    /// may be retries in a chunk without reading each line.
    finders: Vec<Finder<'static>>,
    /// A chunk in ASCII lower case (kept to reuse its allocation).
    lowered: Vec<u8>,
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
            first_failure: false,
            last: None,
            partial: [Vec::new(), Vec::new(), Vec::new()],
            over: false,
            finders: signs
                .retry_lines
                .iter()
                .map(|l| Finder::new(&l.to_ascii_lowercase()).into_owned())
                .collect(),
            lowered: Vec::new(),
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
        if self.finders.is_empty() || self.over {
            return false;
        }
        let Some(last) = memrchr(b'\n', chunk) else {
            self.keep_partial(stream, chunk);
            return false;
        };
        let (complete, rest) = chunk.split_at(last + 1);
        let mut from = 0;
        let mut over = false;
        if !self.partial[stream].is_empty() {
            // The line the last chunk left unfinished ends in this one.
            let mut line = std::mem::take(&mut self.partial[stream]);
            from = memchr(b'\n', complete).map_or(0, |at| at + 1);
            line.extend_from_slice(&complete[..from]);
            over |= self.lines(&line);
        }
        over |= self.lines(&complete[from..]);
        self.keep_partial(stream, rest);
        over
    }

    /// An unterminated line, kept for the next chunk of its stream; one
    /// longer than [`PARTIAL_MAX`] is dropped.
    fn keep_partial(&mut self, stream: usize, bytes: &[u8]) {
        let partial = &mut self.partial[stream];
        partial.extend_from_slice(bytes);
        if partial.len() > PARTIAL_MAX {
            partial.clear();
        }
    }

    /// Reads whole lines (`text` ends with a newline): only those holding
    /// one of the retry lines, found in the whole text at once (without
    /// regard to ASCII case; [`RetryCount::line`] then checks each as
    /// before), are read as text.
    fn lines(&mut self, text: &[u8]) -> bool {
        self.lowered.clear();
        self.lowered.extend(text.iter().map(u8::to_ascii_lowercase));
        let mut starts = Vec::new();
        for finder in &self.finders {
            for at in finder.find_iter(&self.lowered) {
                starts.push(memrchr(b'\n', &text[..at]).map_or(0, |nl| nl + 1));
            }
        }
        starts.sort_unstable();
        starts.dedup();
        let mut over = false;
        for start in starts {
            let end = memchr(b'\n', &text[start..]).map_or(text.len(), |at| start + at + 1);
            over |= self.line(&String::from_utf8_lossy(&text[start..end]));
        }
        over
    }

    fn line(&mut self, line: &str) -> bool {
        if self.over
            || !self.signs.retry_lines.iter().any(|l| contains(line, l))
            || self.signs.not_retries.iter().any(|f| line.contains(f))
        {
            return false;
        }
        let what = match super::http_status(line, self.signs.retry_status) {
            Some(status) => Some((AgentErrorKind::from_http_status(status), Some(status))),
            // The agent's wording first, then what every agent may say
            // (Codex's `Reconnecting... waiting for network (Connection
            // failed: error sending request)` when nothing listens).
            None => self
                .signs
                .markers
                .iter()
                .chain(COMMON_MARKERS)
                .find(|(m, kind)| kind.is_retryable() && contains(line, m))
                .map(|(_, kind)| (*kind, None)),
        };
        let Some(what) = what else {
            return false;
        };
        if self.signs.first_failure_counted && !self.first_failure {
            self.first_failure = true;
            return false;
        }
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

    #[test]
    fn codex_waiting_for_network_counts_as_a_network_retry() {
        let codex = crate::agents::find("openai-codex").unwrap().signs;
        // Over its CLI, then over ACP (the details apart from the message).
        let cli = b"{\"type\":\"error\",\"message\":\"Reconnecting... waiting for network (Connection failed: error sending request)\"}\n";
        let acp = br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"session_info_update","_meta":{"codex":{"error":{"message":"Reconnecting... waiting for network","codexErrorInfo":{"responseStreamDisconnected":{"httpStatusCode":null}},"additionalDetails":"Connection failed: error sending request","willRetry":true}}}}}}
"#;
        for line in [&cli[..], &acp[..]] {
            let mut count = RetryCount::new(codex, 1);
            assert!(!count.push(false, line));
            assert!(count.push(false, line));
            assert_eq!(
                count.exceeded(),
                over(AgentErrorKind::NetworkError, None, 2)
            );
        }
    }

    #[test]
    fn copilot_call_failures_count_from_the_first_retry() {
        let copilot = crate::agents::find("github-copilot").unwrap().signs;
        let failure = |attempt: u32, what: &str| {
            format!("{{\"type\":\"model.call_failure\",\"data\":{{\"model\":\"gpt-mock\",{what}\"durationMs\":5,\"apiEndpoint\":\"/chat/completions\",\"retryAttempt\":{attempt},\"failureKind\":\"api\"}}}}\n")
        };
        let mut count = RetryCount::new(copilot, 1);
        // The first try failing is no retry.
        assert!(!count.push(false, failure(0, "\"statusCode\":429,").as_bytes()));
        assert!(!count.push(false, failure(1, "\"statusCode\":429,").as_bytes()));
        assert!(count.push(false, failure(2, "\"statusCode\":429,").as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::QuotaExceeded, Some(429), 2)
        );
        // Nothing answered: its error message names the connection failure.
        let refused = "\"errorMessage\":\"error sending request for url (http://127.0.0.1:1/v1/chat/completions): tcp connect error: Connection refused (os error 111) [ECONNREFUSED]\",";
        let mut count = RetryCount::new(copilot, 0);
        assert!(!count.push(false, failure(0, refused).as_bytes()));
        assert!(count.push(false, failure(1, refused).as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::NetworkError, None, 1)
        );
    }

    #[test]
    fn droid_log_records_count_from_the_second_attempt_and_its_telemetry_never() {
        let droid = crate::agents::find("factory-droid").unwrap().signs;
        let record = |attempt: u32, id: &str| {
            format!("[2026-11-27T15:25:56.804Z] WARN: [LLM] LLM error | Context: {{\"attempt\":{attempt},\"modelId\":\"gpt-mock\",\"providerType\":\"generic_chat_completion\",\"errorName\":\"Error\",\"failureReason\":\"overloaded\",\"statusCode\":500,\"assistantMessageId\":\"{id}\"}}\n[2026-11-27T15:25:56.804Z] WARN: Retry attempt failed\nError: 500 Mock server error: the model is unavailable.\n")
        };
        let mut count = RetryCount::new(droid, 1);
        // Its title call and the turn fail their first try together.
        assert!(!count.push_log(record(1, "oneshot-assistant-1").as_bytes()));
        assert!(!count.push_log(record(1, "ce0f5637").as_bytes()));
        assert!(!count.push_log(record(2, "oneshot-assistant-1").as_bytes()));
        assert!(count.push_log(record(2, "ce0f5637").as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::UpstreamError, Some(500), 2)
        );
        // The telemetry it cannot send offline is neither a retry nor progress.
        let telemetry = b"Error flushing telemetry events to web: {\"code\":\"ConnectionRefused\",\"path\":\"https://telemetry.factory.ai/api/ingest\",\"errno\":0}\n";
        let mut count = RetryCount::new(droid, 0);
        assert!(!count.push(true, telemetry));
        assert!(!count.push(true, telemetry));
        assert!(!crate::attempt::signs::is_progress(droid, telemetry));
        assert!(crate::attempt::signs::is_progress(
            droid,
            b"{\"jsonrpc\":\"2.0\"}\n"
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
        // A retry whose status Qwen did not know: no HTTP answer came
        // (`connect ECONNREFUSED`), a network error.
        let mut count = RetryCount::new(qwen, 1);
        assert!(!count.push_log(qwen_retry_record(1, "unknown").as_bytes()));
        assert!(count.push_log(qwen_retry_record(2, "unknown").as_bytes()));
        assert_eq!(
            count.exceeded(),
            over(AgentErrorKind::NetworkError, None, 2)
        );
    }

    #[test]
    fn a_retry_line_among_others_split_anywhere_and_in_any_case_counts() {
        let reply =
            "{\"type\":\"message\",\"content\":\"caf\u{e9} \u{2014} retrying later is fine\"}\n";
        let retry = "Attempt 1 failed with status 503. RETRYING with BACKOFF...\n";
        let stream = format!("{reply}{reply}{retry}{reply}");
        // Cut at every byte: the needle, a two-byte character and the line
        // ends fall on each side in turn.
        for cut in 0..=stream.len() {
            let (a, b) = stream.as_bytes().split_at(cut);
            let mut count = RetryCount::new(GEMINI, 0);
            let stopped = [count.push(true, a), count.push(true, b)];
            assert_eq!(stopped.iter().filter(|s| **s).count(), 1, "cut at {cut}");
            assert_eq!(
                count.exceeded(),
                over(AgentErrorKind::UpstreamError, Some(503), 1),
                "cut at {cut}"
            );
        }
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
