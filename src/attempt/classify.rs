//! What one attempt came to: success, or an [`AgentErrorKind`] with a
//! message. Decided from how the process ended, what the parser read from
//! its output, its last lines (stderr's, mostly), and the agent's signs
//! ([`super::signs`]), in this order: stopped by the runner, not started,
//! another session answered, success, command not found (exit 127), the
//! session unknown, an exit code with one meaning, the CLI's error code, the
//! HTTP status (a parser's `http_NNN` code, else in the text), the wording,
//! no final event (`incomplete`), anything else.

use super::attempt_end::{AttemptEnd, StopReason};
use crate::agent_output::{AgentReply, ReplyStatus};
use crate::agents::AgentSpec;
use crate::launch::platform::{limits, Platform};

use super::signs::{Signs, COMMON_MARKERS};
use crate::error_kind::AgentErrorKind;

/// A failed attempt (or run).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: AgentErrorKind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: AgentErrorKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }
}

/// Everything known about one finished attempt.
pub struct Evidence<'a> {
    pub agent: &'static AgentSpec,
    pub end: &'a AttemptEnd,
    pub reply: &'a AgentReply,
    /// The last lines of stdout and stderr, cleaned.
    pub last_lines: &'a [String],
    /// The executable spawned.
    pub command: &'a str,
    /// The session asked for (`sessionId`).
    pub requested_session: Option<&'a str>,
    pub idle_timeout_s: u64,
    pub max_duration_s: u64,
    /// The system it ran on, when the host said (names the limit of an
    /// E2BIG or ENAMETOOLONG).
    pub platform: Option<Platform>,
}

/// `Ok(())` when the run succeeded, else why not.
pub fn classify(e: &Evidence) -> Result<(), Failure> {
    let name = e.agent.name;
    if let Some(stop) = e.end.stopped {
        return Err(stopped(stop, e));
    }
    if let Some(code) = &e.end.spawn_error {
        return Err(not_started(code, e));
    }
    if let (Some(asked), Some(got)) = (e.requested_session, e.reply.session_id.as_deref()) {
        if asked != got {
            return Err(Failure::new(
                AgentErrorKind::SessionNotFound,
                format!(
                    "{name} did not resume session {asked}: it answered in a new session {got}"
                ),
            ));
        }
    }
    let exit = e.end.exit_code;
    if e.reply.status == ReplyStatus::Success && exit == Some(0) {
        return Ok(());
    }
    Err(with_hint(failure(e, e.agent.signs, exit), e))
}

/// The failure with the agent's hint for wording its evidence holds; a
/// start on a Node.js older than the agent needs is said so first.
fn with_hint(failure: Failure, e: &Evidence) -> Failure {
    let mut failure = match too_old_node(e) {
        Some((ran, min)) => Failure::new(
            AgentErrorKind::ProcessError,
            format!(
                "{} needs Node.js {}.{} or newer, and the node that ran it is v{ran}: put a newer node first on the PATH of its environment (options.env) ({})",
                e.agent.name, min.major, min.minor, failure.message
            ),
        ),
        None => failure,
    };
    let said = |m: &str| {
        e.last_lines.iter().any(|l| has(l, m)) || e.reply.errors.iter().any(|r| has(&r.message, m))
    };
    if let Some((_, hint)) = e.agent.signs.hints.iter().find(|(m, _)| said(m)) {
        failure.message = format!("{} ({hint})", failure.message);
    }
    failure
}

/// The Node.js release that ran the agent and the oldest it needs, when its
/// last lines name one older than [`AgentSpec::min_node`]: Node ends an
/// uncaught error with its version (`Node.js v20.20.2`).
fn too_old_node(e: &Evidence) -> Option<(String, crate::agents::NodeVersion)> {
    let min = e.agent.min_node?;
    e.last_lines.iter().rev().find_map(|line| {
        let ran = line.trim().strip_prefix("Node.js v")?;
        if !ran.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return None;
        }
        let mut parts = ran.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        (crate::agents::NodeVersion { major, minor } < min).then(|| (ran.to_owned(), min))
    })
}

/// The process ended before it answered `what` (`initialize`, the session
/// request): as [`classify`] reads it when its words say why (a missing
/// key, a refused folder, a connection), else a process error that says so,
/// with what it printed last.
pub fn ended_early(e: &Evidence, what: &str) -> Failure {
    let failure = failure(e, e.agent.signs, e.end.exit_code);
    // A lost channel or connection says itself what happened.
    if super::transport_lost_in(e.last_lines).is_some() {
        return failure;
    }
    if !matches!(
        failure.kind,
        AgentErrorKind::Incomplete | AgentErrorKind::ProcessError
    ) {
        return with_hint(failure, e);
    }
    let plain: Vec<&str> = plain_lines(e.last_lines, e.agent.signs).collect();
    let said = match last_meaningful(&plain) {
        Some(line) => format!(": {line}"),
        None => " and printed nothing".to_owned(),
    };
    let early = Failure::new(
        AgentErrorKind::ProcessError,
        format!(
            "{} {} before it answered {what}{said}",
            e.agent.name,
            ended(e.end)
        ),
    );
    with_hint(early, e)
}

fn stopped(stop: StopReason, e: &Evidence) -> Failure {
    let name = e.agent.name;
    let how = stop_words(e.end);
    let mut failure = match stop {
        StopReason::IdleTimeout => Failure::new(
            AgentErrorKind::IdleTimeout,
            format!(
                "{name} printed nothing for {} s (idle timeout)",
                e.idle_timeout_s
            ),
        ),
        StopReason::MaxDuration => Failure::new(
            AgentErrorKind::Timeout,
            format!(
                "{name} was still running at maxDuration ({} s)",
                e.max_duration_s
            ),
        ),
        StopReason::Aborted => aborted(name),
        StopReason::OwnRetries(over) => own_retries(name, over),
    };
    failure.message = format!("{}; {how}", failure.message);
    failure
}

/// What became of a stopped attempt's process, as its message says it:
/// killed, exited, or (a kept process) the agent ended the turn when asked
/// and goes on.
pub fn stop_words(end: &AttemptEnd) -> &'static str {
    match (&end.signal, end.exit_code) {
        (Some(_), _) => "its process tree was killed",
        (None, Some(_)) => "its process exited",
        (None, None) => "the agent ended the turn when asked and goes on",
    }
}

/// The agent retried a failed API call more than `maxRetries` times.
pub fn own_retries(name: &str, over: Option<super::OwnRetriesOver>) -> Failure {
    let Some(over) = over else {
        return Failure::new(
            AgentErrorKind::UpstreamError,
            format!("{name} retried a failed API call more than maxRetries allows"),
        );
    };
    let what = match over.status {
        Some(status) => format!("HTTP {status}"),
        None => over.kind.as_str().to_owned(),
    };
    Failure::new(
        over.kind,
        format!(
            "{name} retried a failed API call {} times ({what}), more than maxRetries allows",
            over.retries
        ),
    )
}

/// The platform's command-line limit, for a spawn the OS refused as too long.
fn os_limit(platform: Platform) -> String {
    match platform {
        Platform::Linux => format!(
            ": on linux {} bytes per argument and {} for the path, argv and environment",
            limits::LINUX_MAX_ARG_STRLEN,
            limits::LINUX_ARGV_ENV_BYTES
        ),
        Platform::Darwin => format!(
            ": on darwin {} bytes (ARG_MAX) for argv and environment",
            limits::DARWIN_ARG_MAX
        ),
        Platform::Win32 => format!(
            ": on win32 {} UTF-16 units for the command line",
            limits::WINDOWS_COMMAND_LINE_UNITS
        ),
    }
}

/// The caller's abort (what became of the process is said by whoever
/// stopped it: see [`stop_words`]).
pub fn aborted(name: &str) -> Failure {
    Failure::new(
        AgentErrorKind::Aborted,
        format!("the run of {name} was aborted by the caller"),
    )
}

fn not_started(code: &str, e: &Evidence) -> Failure {
    let command = e.command;
    if code == "ENOENT" {
        return command_not_found(e.agent, command, format!("spawn {command} ENOENT"));
    }
    let limit = e.platform.map(os_limit).unwrap_or_default();
    let why = match code {
        "E2BIG" => format!("the arguments and environment pass the OS's limit (ARG_MAX){limit}"),
        "ENAMETOOLONG" => format!("the command line or a path passes the OS's length limit{limit}"),
        "EACCES" => "it is not executable (permission denied)".to_owned(),
        "EINVAL" => {
            "the OS refused the command line (on Windows: a .cmd or .bat file cannot be spawned without a shell)".to_owned()
        }
        _ => "the OS refused to start it".to_owned(),
    };
    Failure::new(
        AgentErrorKind::SpawnFailed,
        format!(
            "{} could not be started ({code}): {why}: {command}",
            e.agent.name
        ),
    )
}

/// `command` was not found (`detail`: the spawn error, or every place searched).
pub fn command_not_found(agent: &AgentSpec, command: &str, detail: String) -> Failure {
    let place = if command.contains('/') || command.contains('\\') {
        format!("{command} does not exist")
    } else {
        format!("`{command}` is not on PATH")
    };
    Failure::new(
        AgentErrorKind::CommandNotFound,
        format!(
            "{} was not found: {place} (install {}, or pass options.command): {detail}",
            agent.name,
            agent.package()
        ),
    )
}

fn failure(e: &Evidence, signs: &Signs, exit: Option<i32>) -> Failure {
    let name = e.agent.name;
    // The channel to an agent on another machine was cut while it ran: a
    // crash, whatever the agent printed last.
    if let Some(line) = super::transport_lost_in(e.last_lines) {
        return Failure::new(
            AgentErrorKind::ProcessError,
            format!("{name} stopped: {line}"),
        );
    }
    let fatal: Vec<&str> = e
        .reply
        .errors
        .iter()
        .filter(|err| err.fatal)
        .map(|err| err.message.as_str())
        .collect();
    let plain: Vec<&str> = plain_lines(e.last_lines, e.agent.signs).collect();
    let said = fatal
        .last()
        .copied()
        .or_else(|| last_meaningful(&plain))
        .map(str::to_owned)
        .unwrap_or_else(|| ended(e.end));
    let evidence = || fatal.iter().chain(plain.iter()).copied();
    let with = |kind: AgentErrorKind, what: String| Failure::new(kind, format!("{what}: {said}"));

    if exit == Some(127) {
        return command_not_found(e.agent, e.command, said.clone());
    }
    if let Some(asked) = e.requested_session {
        if let Some(line) = evidence().find(|t| signs.unknown_session.iter().any(|m| has(t, m))) {
            return Failure::new(
                AgentErrorKind::SessionNotFound,
                format!("{name} cannot resume session {asked}: {line}"),
            );
        }
    }
    if let Some(&(_, kind)) = signs
        .exit_codes
        .iter()
        .find(|(code, _)| exit == Some(*code))
    {
        return with(
            kind,
            format!("{name} failed (exit code {})", exit.unwrap_or(0)),
        );
    }
    // A parser that read the API's status as a number keeps it as the
    // error's code `http_NNN` (Copilot, opencode): first, then the wording.
    let coded = e
        .reply
        .errors
        .iter()
        .rev()
        .filter(|err| err.fatal)
        .find_map(|err| err.code.as_deref().and_then(status_from_code));
    // The agent's own error says no HTTP answer came: the connection
    // failed, whatever code it gave the failure (Claude's `server_error`,
    // Gemini's JSON-RPC 500). Only its errors, not stderr's other lines (a
    // telemetry upload that cannot connect offline says nothing of the API).
    let answered = coded.is_some()
        || fatal
            .iter()
            .any(|t| http_status(t, signs.status_prefixes).is_some());
    let unreachable = (!answered)
        .then(|| fatal.iter().find(|t| names_connection_failure(signs, t)))
        .flatten();
    if let Some(line) = unreachable {
        return Failure::new(
            AgentErrorKind::NetworkError,
            format!("{name} could not reach the API: {line}"),
        );
    }
    // The latest error with a code the agent's table knows (Claude puts it
    // on the assistant message before the failed `result`).
    let codes = e.reply.errors.iter().rev();
    if let Some(kind) = codes
        .filter_map(|err| err.code.as_deref())
        .find_map(|code| {
            signs
                .error_codes
                .iter()
                .find(|(c, _)| *c == code)
                .map(|&(_, k)| k)
        })
    {
        return with(kind, format!("{name} failed ({})", kind.as_str()));
    }
    let marked = evidence().find_map(|t| marker(signs, t));
    let status = coded
        .or_else(|| {
            fatal
                .iter()
                .chain(plain.iter())
                .find_map(|t| http_status(t, signs.status_prefixes))
        })
        .or_else(|| {
            signs
                .exit_is_http_status
                .then(|| status_from_exit(exit))
                .flatten()
        });
    if let Some(status) = status {
        let mut kind = AgentErrorKind::from_http_status(status);
        // A 400 that says why (a bad key, a prompt too long) is that.
        if let (AgentErrorKind::RequestRejected, Some(more)) = (kind, marked) {
            kind = more;
        }
        return with(kind, format!("{name}: the API answered HTTP {status}"));
    }
    if let Some(kind) = marked {
        return with(kind, format!("{name} failed ({})", kind.as_str()));
    }
    // The API answered with an error the agent passed on without its
    // status, in words nothing above explains: it refused the request.
    let api_error = e
        .reply
        .errors
        .iter()
        .rev()
        .filter(|err| err.fatal)
        .any(|err| {
            err.code
                .as_deref()
                .is_some_and(|code| signs.api_error_codes.contains(&code))
        });
    if api_error {
        return with(
            AgentErrorKind::RequestRejected,
            format!("{name}: the API refused the request"),
        );
    }
    if let Some(err) = e
        .reply
        .errors
        .iter()
        .find(|err| has(&err.message, "empty response"))
    {
        return Failure::new(
            AgentErrorKind::EmptyResponse,
            format!("{name} got an empty response: {}", err.message),
        );
    }
    if e.reply.status == ReplyStatus::Incomplete {
        return with(
            AgentErrorKind::Incomplete,
            format!("{name} {} without its final event", ended(e.end)),
        );
    }
    let what = match (exit, e.reply.status, &e.end.signal) {
        (Some(0), ..) => format!("{name} reported a failed run"),
        (Some(code), ReplyStatus::Success, _) => {
            format!("{name} exited with code {code} after reporting success")
        }
        (Some(code), ..) => format!("{name} failed (exit code {code})"),
        (None, _, Some(signal)) => format!("{name} was ended by {signal}"),
        // Still running: it answered the turn with an error.
        (None, _, None) => format!("{name} failed"),
    };
    with(AgentErrorKind::ProcessError, what)
}

/// Whether `text` says that no connection to the API could be made (a
/// network marker, the agent's or the common ones) without naming an HTTP
/// status: then no HTTP answer came, and the failure is a network error
/// whatever code the agent put on it. A status in the words (a proxy's
/// `502 … connection refused`) is an answer: read as that status.
pub fn names_connection_failure(signs: &Signs, text: &str) -> bool {
    marker(signs, text) == Some(AgentErrorKind::NetworkError)
        && http_status(text, signs.status_prefixes).is_none()
}

/// The kind of an HTTP 4xx the API answered with (`request_rejected`),
/// or what its words say more precisely (a bad key, a prompt too long).
pub fn rejection(signs: &Signs, text: &str) -> AgentErrorKind {
    match marker(signs, text) {
        Some(kind @ (AgentErrorKind::AuthError | AgentErrorKind::ContextTooLong)) => kind,
        _ => AgentErrorKind::RequestRejected,
    }
}

fn marker(signs: &Signs, text: &str) -> Option<AgentErrorKind> {
    signs
        .markers
        .iter()
        .chain(COMMON_MARKERS.iter())
        .find(|(m, _)| has(text, m))
        .map(|&(_, kind)| kind)
}

/// Case-insensitive (ASCII) containment.
fn has(text: &str, needle: &str) -> bool {
    let (t, n) = (text.as_bytes(), needle.as_bytes());
    n.len() <= t.len() && t.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// How the process ended; a process still running (the agent answered the
/// turn with an error over ACP) "reported an error".
fn ended(end: &AttemptEnd) -> String {
    match (end.exit_code, &end.signal) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was ended by {signal}"),
        (None, None) => "reported an error".to_owned(),
    }
}

/// The lines that are not JSON events (stderr's, mostly).
fn plain_lines<'a>(lines: &'a [String], signs: &'a Signs) -> impl Iterator<Item = &'a str> {
    lines.iter().map(|l| l.trim()).filter(|l| {
        !l.is_empty()
            && !l.starts_with('{')
            && !l.starts_with("at ")
            && *l != "}"
            // What it says of its own side traffic is not the turn's failure.
            && !signs.chatter.iter().any(|c| l.contains(c))
    })
}

fn last_meaningful<'a>(plain: &[&'a str]) -> Option<&'a str> {
    plain.last().copied()
}

/// The HTTP status after one of `prefixes`: three digits, 100 to 599.
pub fn http_status(message: &str, prefixes: &[&str]) -> Option<u16> {
    for prefix in prefixes {
        let mut rest = message;
        while let Some(at) = rest.find(prefix) {
            rest = &rest[at + prefix.len()..];
            let digits: String = rest
                .trim_start()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let (3, Ok(status @ 100..=599)) = (digits.len(), digits.parse::<u16>()) {
                return Some(status);
            }
        }
    }
    None
}

/// The status in a parser's error code `http_NNN` (100 to 599).
fn status_from_code(code: &str) -> Option<u16> {
    let digits = code.strip_prefix("http_")?;
    match (digits.len(), digits.parse::<u16>()) {
        (3, Ok(status @ 100..=599)) => Some(status),
        _ => None,
    }
}

/// An exit code read as an HTTP status mod 256: 144..=255 → 400..=511.
pub fn status_from_exit(exit: Option<i32>) -> Option<u16> {
    match exit {
        Some(code @ 144..=255) => Some(code as u16 + 256),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited_before_answering(agent_type: &str, stderr: &[&str], code: i32) -> Failure {
        let end = AttemptEnd {
            exit_code: Some(code),
            ..AttemptEnd::default()
        };
        let reply = crate::agent_output::parse_agent_output(agent_type, b"");
        let lines: Vec<String> = stderr.iter().map(|l| (*l).to_owned()).collect();
        ended_early(
            &Evidence {
                agent: crate::agents::find(agent_type).unwrap(),
                end: &end,
                reply: &reply,
                last_lines: &lines,
                command: "agent",
                requested_session: None,
                idle_timeout_s: 300,
                max_duration_s: 1800,
                platform: None,
            },
            "initialize",
        )
    }

    #[test]
    fn an_agent_that_exits_before_initialize_says_what_it_printed() {
        let failure =
            exited_before_answering("opencode", &["Error: this build needs a newer glibc"], 1);
        assert_eq!(failure.kind, AgentErrorKind::ProcessError);
        assert_eq!(
            failure.message,
            "opencode exited with code 1 before it answered initialize: Error: this build needs a newer glibc"
        );
        let silent = exited_before_answering("cline", &[], 3);
        assert_eq!(
            silent.message,
            "Cline exited with code 3 before it answered initialize and printed nothing"
        );
        // Words that say more keep their kind.
        let refused = exited_before_answering(
            "openai-codex",
            &["error sending request for url (http://127.0.0.1:9/v1/responses)"],
            1,
        );
        assert_eq!(refused.kind, AgentErrorKind::NetworkError);
    }

    #[test]
    fn an_agent_run_by_a_node_too_old_for_it_is_told_so() {
        let stderr = [
            "SyntaxError: The requested module 'node:zlib' does not provide an export named 'createZstdDecompress'",
            "    at ModuleJob._instantiate (node:internal/modules/esm/module_job:213:21)",
            "Node.js v20.20.2",
        ];
        let failure = exited_before_answering("kimi-code", &stderr, 1);
        assert_eq!(failure.kind, AgentErrorKind::ProcessError);
        assert!(
            failure.message.starts_with(
                "Kimi Code needs Node.js 22.19 or newer, and the node that ran it is v20.20.2: put a newer node first on the PATH of its environment (options.env) (Kimi Code exited with code 1 before it answered initialize: "
            ),
            "{}",
            failure.message
        );
        // Node 22.18 is too old for it as well; 22.19 is not, nor is 23.
        let old = exited_before_answering("kimi-code", &["boom", "Node.js v22.18.0"], 1);
        assert!(old.message.contains("is v22.18.0"), "{}", old.message);
        for newer in [
            "Node.js v22.19.0",
            "Node.js v23.0.1",
            "Node.js v20.20.2 (not alone)",
        ] {
            let fine = exited_before_answering("kimi-code", &["boom", newer], 1);
            assert!(
                !fine.message.contains("needs Node.js"),
                "{newer}: {}",
                fine.message
            );
        }
        // pi needs 20.6; an agent that states no minimum is not judged.
        let pi = exited_before_answering("pi", &["Node.js v18.19.1"], 1);
        assert!(
            pi.message.starts_with(
                "pi needs Node.js 20.6 or newer, and the node that ran it is v18.19.1"
            ),
            "{}",
            pi.message
        );
        let codex = exited_before_answering("openai-codex", &["Node.js v14.0.0"], 1);
        assert!(
            !codex.message.contains("needs Node.js"),
            "{}",
            codex.message
        );
    }

    #[test]
    fn side_traffic_that_cannot_connect_is_not_why_the_turn_failed() {
        let failure = exited_before_answering(
            "factory-droid",
            &["Error flushing telemetry events to web: {\"code\":\"ConnectionRefused\",\"path\":\"https://telemetry.factory.ai/api/ingest\"}", "Error: the agent stopped"],
            1,
        );
        assert_ne!(
            failure.kind,
            AgentErrorKind::NetworkError,
            "{}",
            failure.message
        );
        let failure = exited_before_answering(
            "opencode",
            &["timestamp=… level=ERROR message=\"Failed to fetch models.dev\" cause=\"Unable to connect. Is the computer able to access the url?\""],
            1,
        );
        assert_ne!(
            failure.kind,
            AgentErrorKind::NetworkError,
            "{}",
            failure.message
        );
    }

    #[test]
    fn claude_refusing_to_skip_permissions_as_root_names_is_sandbox() {
        let failure = exited_before_answering(
            "claude-code",
            &["--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"],
            1,
        );
        assert_eq!(failure.kind, AgentErrorKind::ProcessError);
        assert!(
            failure.message.contains("IS_SANDBOX=1"),
            "{}",
            failure.message
        );
        assert!(
            failure
                .message
                .contains("cannot be used with root/sudo privileges"),
            "{}",
            failure.message
        );
    }
}
