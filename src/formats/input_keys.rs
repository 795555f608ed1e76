//! Keys of an input object that the function reading it does not know.
//!
//! A misspelt key (`modle`) or one from another input type (`message` in an
//! `AssemblerInput`, whose field is `currentMessage`) would otherwise be
//! ignored without a word. The binding lists the object's own keys; this
//! module decides which are unknown and which known key each one most likely
//! meant, and words one warning per unknown key. The call still runs: the
//! key is ignored, as before, but not silently.

/// `AssemblerInput`: `assemble`, `assembleWithReport`, the assembler classes.
pub const ASSEMBLER_INPUT: &[&str] = &[
    "contextMessages",
    "currentMessage",
    "teamTask",
    "systemInstruction",
    "instructionFileText",
    "maxBytes",
];

/// Seed 002's `PromptInput`: `buildPrompt`.
pub const PROMPT_INPUT: &[&str] = &[
    "agentType",
    "contextMessages",
    "message",
    "teamTask",
    "systemInstructionText",
    "instructionFileText",
    "maxBytes",
];

/// `buildCliInvocation`'s options.
pub const INVOCATION_OPTIONS: &[&str] = &[
    "platform",
    "env",
    "command",
    "model",
    "sessionId",
    "sandbox",
    "yolo",
    "systemPromptFile",
    "usageFile",
    "extraArgs",
];

/// The keys `options.endpoint` knows (others are warned about, then ignored).
pub const ENDPOINT_KEYS: &[&str] = &["baseUrl", "api", "apiKey", "model", "headers"];

/// `runAgent`'s options.
pub const RUN_AGENT_OPTIONS: &[&str] = &[
    "cd",
    "protocol",
    "model",
    "sessionId",
    "sandbox",
    "yolo",
    "command",
    "extraArgs",
    "env",
    "timeout",
    "maxDuration",
    "maxRetries",
    "signal",
    "onEvent",
    "onPermission",
    "mcpServers",
    "endpoint",
    "host",
    "transport",
    "clientFs",
    "attachments",
    "logger",
    "onElicitation",
    "terminals",
    "outputSchema",
    "traceparent",
    "store",
    "dirs",
    "terminalAuth",
];

/// `openAgentSession`'s options.
pub const SESSION_OPTIONS: &[&str] = &[
    "cd",
    "protocol",
    "model",
    "sessionId",
    "sandbox",
    "yolo",
    "command",
    "env",
    "timeout",
    "maxDuration",
    "maxRetries",
    "systemPrompt",
    "mcpServers",
    "onPermission",
    "onUpdate",
    "idleClose",
    "endpoint",
    "host",
    "transport",
    "clientFs",
    "logger",
    "onElicitation",
    "terminals",
    "traceparent",
    "store",
    "rebuild",
    "fallback",
    "dirs",
    "terminalAuth",
];

/// A session turn's options (`session.prompt(request, turn)`).
pub const TURN_OPTIONS: &[&str] = &[
    "onEvent",
    "signal",
    "timeout",
    "maxDuration",
    "attachments",
    "outputSchema",
    "traceparent",
];

/// A request given as an `AssemblerOutput` (`runAgent`, `session.prompt`).
pub const ASSEMBLER_OUTPUT: &[&str] = &["prompt", "systemFlag"];

/// `new AgentTeam(options)`'s options (`AgentTeam.fromJSON`'s, but for
/// `teamTask` and `members`, which the JSON holds).
pub const TEAM_OPTIONS: &[&str] = &[
    "teamTask",
    "members",
    "cd",
    "protocol",
    "model",
    "sandbox",
    "yolo",
    "command",
    "env",
    "timeout",
    "maxDuration",
    "maxRetries",
    "mcpServers",
    "onPermission",
    "onUpdate",
    "idleClose",
    "endpoint",
    "host",
    "logger",
    "onElicitation",
    "terminals",
    "traceparent",
    "store",
];

/// `openAgent`'s options: the process's (each session's own come with it).
pub const PROCESS_OPTIONS: &[&str] = &[
    "cd",
    "model",
    "sandbox",
    "yolo",
    "command",
    "env",
    "timeout",
    "maxDuration",
    "maxRetries",
    "systemPrompt",
    "mcpServers",
    "onPermission",
    "onUpdate",
    "idleClose",
    "endpoint",
    "host",
    "transport",
    "clientFs",
    "logger",
    "onElicitation",
    "terminals",
    "traceparent",
    "store",
    "dirs",
    "terminalAuth",
];

/// `newSession` / `loadSession`'s options on an agent's process.
pub const NEW_SESSION_OPTIONS: &[&str] = &["cd", "systemPrompt", "mcpServers", "onUpdate", "dirs"];

/// A member of an `AgentTeam`: who it is, and its own session options.
pub const TEAM_MEMBER: &[&str] = &[
    "id",
    "agentType",
    "definition",
    "systemInstruction",
    "instructionFileText",
    "protocol",
    "maxBytes",
    "endpoint",
    "env",
    "model",
    "command",
    "host",
    "fallback",
];

/// `team.ask(memberId, options)`'s options.
pub const ASK_OPTIONS: &[&str] = &[
    "message",
    "replyTo",
    "onEvent",
    "signal",
    "timeout",
    "maxDuration",
];

/// The table of known keys for `what` (`'runAgent options'`, …).
pub fn known_keys(what: &str) -> Option<&'static [&'static str]> {
    match what {
        "AgentTeam options" => Some(TEAM_OPTIONS),
        "a team member" => Some(TEAM_MEMBER),
        "team.ask options" => Some(ASK_OPTIONS),
        "runAgent options" => Some(RUN_AGENT_OPTIONS),
        "openAgentSession options" => Some(SESSION_OPTIONS),
        "openAgent options" => Some(PROCESS_OPTIONS),
        "the session's options" => Some(NEW_SESSION_OPTIONS),
        "the turn's options" => Some(TURN_OPTIONS),
        "the request" => Some(ASSEMBLER_OUTPUT),
        "options.endpoint" | "a team member's endpoint" => Some(ENDPOINT_KEYS),
        _ => None,
    }
}

/// [`unknown_key_warnings`] for the object `what` names ([`known_keys`]);
/// none for an object this module has no table of.
pub fn unknown_key_warnings_of(what: &str, keys: &[String]) -> Vec<String> {
    known_keys(what).map_or_else(Vec::new, |known| unknown_key_warnings(what, keys, known))
}

/// One warning per key of `keys` that `known` does not hold, in the order
/// given, each naming the nearest known key when one is close enough.
/// `what` names the object, e.g. `assemble input` or `options`.
pub fn unknown_key_warnings<K: AsRef<str>>(what: &str, keys: &[K], known: &[&str]) -> Vec<String> {
    keys.iter()
        .map(AsRef::as_ref)
        .filter(|key| !known.contains(key))
        .map(|key| match nearest_known(key, known) {
            Some(near) => format!(
                "[agent-context] {what} has an unknown key \"{key}\" (did you mean \"{near}\"?); it is ignored"
            ),
            None => format!(
                "[agent-context] {what} has an unknown key \"{key}\" (known: {}); it is ignored",
                known.join(", ")
            ),
        })
        .collect()
}

/// The known key `key` most likely meant: the same letters in another case;
/// else the shortest known key that contains it or is contained in it (three
/// letters or more: `message` → `currentMessage`); else the closest by edit
/// distance, when at most a third of the key's letters (and at least two)
/// differ (`modle` → `model`). Ties go to the earlier key in `known`.
pub fn nearest_known<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let key = key.as_bytes();
    let same = |a: &[u8], b: &[u8]| a.eq_ignore_ascii_case(b);
    if let Some(k) = known.iter().find(|k| same(k.as_bytes(), key)) {
        return Some(k);
    }
    let containing = known
        .iter()
        .filter(|k| {
            let k = k.as_bytes();
            let (short, long) = if k.len() < key.len() {
                (k, key)
            } else {
                (key, k)
            };
            short.len() >= 3 && long.windows(short.len()).any(|w| same(w, short))
        })
        .min_by_key(|k| k.len());
    if let Some(k) = containing {
        return Some(k);
    }
    let limit = (key.len() / 3).max(2);
    known
        .iter()
        .map(|k| (*k, edit_distance(key, k.as_bytes())))
        .filter(|(_, d)| *d <= limit)
        .min_by_key(|(_, d)| *d)
        .map(|(k, _)| k)
}

/// Levenshtein distance over bytes, ASCII letters compared without case, with
/// a swap of two neighbours counted as one edit (`modle` is one edit from
/// `model`). Keys are short: the table is small.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let eq = |x: u8, y: u8| x.eq_ignore_ascii_case(&y);
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        d[i * width] = i;
        for j in 1..=b.len() {
            let cost = usize::from(!eq(a[i - 1], b[j - 1]));
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && eq(a[i - 1], b[j - 2]) && eq(a[i - 2], b[j - 1]) {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_field_another_input_type_uses() {
        assert_eq!(
            nearest_known("message", ASSEMBLER_INPUT),
            Some("currentMessage")
        );
        assert_eq!(
            nearest_known("systemInstructionText", ASSEMBLER_INPUT),
            Some("systemInstruction")
        );
        assert_eq!(
            nearest_known("currentMessage", PROMPT_INPUT),
            Some("message")
        );
    }

    #[test]
    fn names_the_closest_spelling() {
        assert_eq!(nearest_known("modle", INVOCATION_OPTIONS), Some("model"));
        assert_eq!(nearest_known("maxbytes", ASSEMBLER_INPUT), Some("maxBytes"));
        assert_eq!(nearest_known("teamTsak", ASSEMBLER_INPUT), Some("teamTask"));
        assert_eq!(
            nearest_known("session_id", INVOCATION_OPTIONS),
            Some("sessionId")
        );
    }

    #[test]
    fn names_nothing_when_nothing_is_close() {
        assert_eq!(nearest_known("zzz", ASSEMBLER_INPUT), None);
        assert_eq!(nearest_known("ab", INVOCATION_OPTIONS), None);
    }

    #[test]
    fn one_warning_per_unknown_key_known_keys_pass() {
        let keys = ["contextMessages", "message", "modle", "zzz", "maxBytes"];
        let warnings = unknown_key_warnings("assemble input", &keys, ASSEMBLER_INPUT);
        assert_eq!(
            warnings,
            [
                "[agent-context] assemble input has an unknown key \"message\" (did you mean \"currentMessage\"?); it is ignored",
                "[agent-context] assemble input has an unknown key \"modle\" (known: contextMessages, currentMessage, teamTask, systemInstruction, instructionFileText, maxBytes); it is ignored",
                "[agent-context] assemble input has an unknown key \"zzz\" (known: contextMessages, currentMessage, teamTask, systemInstruction, instructionFileText, maxBytes); it is ignored",
            ]
        );
        assert!(unknown_key_warnings("x", ASSEMBLER_INPUT, ASSEMBLER_INPUT).is_empty());
    }

    #[test]
    fn warnings_of_an_object_follow_its_table_or_are_none() {
        let keys = vec!["modle".to_owned()];
        let warnings = unknown_key_warnings_of("runAgent options", &keys);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("\"modle\" (did you mean \"model\"?)"),
            "{warnings:?}"
        );
        assert!(unknown_key_warnings_of("no such object", &keys).is_empty());
    }

    #[test]
    fn edit_distance_counts_a_swap_once() {
        assert_eq!(edit_distance(b"modle", b"model"), 1);
        assert_eq!(edit_distance(b"", b"abc"), 3);
        assert_eq!(edit_distance(b"kitten", b"sitting"), 3);
        assert_eq!(edit_distance(b"MaxBytes", b"maxbytes"), 0);
    }
}
