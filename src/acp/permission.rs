//! Answers to `session/request_permission`: the caller's `onPermission`
//! decision, else the policy of `sandbox`/`yolo` (the README's table):
//!
//! | policy | allowed |
//! |---|---|
//! | `read-only` | reads (`read`, `search`, `think`) |
//! | `workspace-write` (also the default) | reads, and edits (`edit`, `delete`, `move`) of paths inside `cd` |
//! | `danger-full-access` or `yolo` | everything |
//!
//! The answer is the request's own option of the chosen kind
//! (`allow_once`, else `allow_always`; `reject_once`, else `reject_always`),
//! or `cancelled` when it offers none.
//!
//! ```
//! use agent_context::acp::permission::{answer, Decision, Policy};
//! use serde_json::json;
//!
//! let request = json!({"toolCall": {"kind": "edit", "locations": [{"path": "/w/a.txt"}]},
//!   "options": [{"optionId": "y", "kind": "allow_once"}, {"optionId": "n", "kind": "reject_once"}]});
//! let (decision, reply) = answer(&request, Policy::Workspace, "/w", None);
//! assert_eq!(decision, Decision::Allow);
//! assert_eq!(reply, json!({"outcome": {"outcome": "selected", "optionId": "y"}}));
//! assert_eq!(answer(&request, Policy::ReadOnly, "/w", None).0, Decision::Reject);
//! ```

use serde_json::{json, Value};

use crate::launch::invocation::Sandbox;

/// What the sandbox and `yolo` allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    ReadOnly,
    Workspace,
    All,
}

impl Policy {
    /// SPEC §7's order: `read-only` wins; else `yolo` or
    /// `danger-full-access` allow all; else (also when neither is given)
    /// workspace-write.
    pub fn from_options(sandbox: Option<Sandbox>, yolo: Option<bool>) -> Policy {
        match (sandbox, yolo) {
            (Some(Sandbox::ReadOnly), _) => Policy::ReadOnly,
            (Some(Sandbox::DangerFullAccess), _) | (_, Some(true)) => Policy::All,
            _ => Policy::Workspace,
        }
    }
}

/// What was decided for one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Allow,
    AllowAlways,
    Reject,
}

impl Decision {
    /// `onPermission`'s answer: `'allow'`, `'allow_always'` or `'reject'`.
    pub fn parse(text: &str) -> Option<Decision> {
        match text {
            "allow" => Some(Decision::Allow),
            "allow_always" => Some(Decision::AllowAlways),
            "reject" => Some(Decision::Reject),
            _ => None,
        }
    }
}

/// The policy's decision for `request` (`session/request_permission`'s params).
pub fn by_policy(request: &Value, policy: Policy, cd: &str) -> Decision {
    by_policy_in(request, policy, cd, &[])
}

/// [`by_policy`] for a session with more folders than `cd` (`dirs`): an
/// edit inside any of them is as one inside `cd`.
pub fn by_policy_in(request: &Value, policy: Policy, cd: &str, dirs: &[String]) -> Decision {
    let call = request.get("toolCall").unwrap_or(&Value::Null);
    let kind = call.get("kind").and_then(Value::as_str).unwrap_or("other");
    let read = matches!(kind, "read" | "search" | "think");
    let edit = matches!(kind, "edit" | "delete" | "move");
    let allowed = match policy {
        Policy::All => true,
        Policy::ReadOnly => read,
        Policy::Workspace => {
            read || (edit && {
                let paths = paths(call);
                !paths.is_empty()
                    && paths
                        .iter()
                        .all(|p| super::fs::inside_roots(cd, dirs, p).is_some())
            })
        }
    };
    if allowed {
        Decision::Allow
    } else {
        Decision::Reject
    }
}

/// The response to `request`: `decision` (the caller's) or the policy's,
/// as the matching option. Returns the decision made and the response.
pub fn answer(
    request: &Value,
    policy: Policy,
    cd: &str,
    decision: Option<Decision>,
) -> (Decision, Value) {
    answer_in(request, policy, (cd, &[]), decision)
}

/// [`answer`] for a session whose roots are `cd` and `dirs`.
pub fn answer_in(
    request: &Value,
    policy: Policy,
    (cd, dirs): (&str, &[String]),
    decision: Option<Decision>,
) -> (Decision, Value) {
    let decision = decision.unwrap_or_else(|| by_policy_in(request, policy, cd, dirs));
    let wanted: &[&str] = match decision {
        Decision::Allow => &["allow_once", "allow_always"],
        Decision::AllowAlways => &["allow_always", "allow_once"],
        Decision::Reject => &["reject_once", "reject_always"],
    };
    let options = request
        .get("options")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let chosen = wanted.iter().find_map(|kind| {
        options
            .iter()
            .find(|o| o.get("kind").and_then(Value::as_str) == Some(kind))
            .and_then(|o| o.get("optionId"))
    });
    let response = match chosen {
        Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
        None => json!({"outcome": {"outcome": "cancelled"}}),
    };
    (decision, response)
}

/// Every path the tool call names: its `locations`, and the usual keys of
/// its `rawInput` (`file_path`, `path`, `filePath`, `abs_path`, Codex's
/// `changes` map).
fn paths(call: &Value) -> Vec<String> {
    let mut out: Vec<String> = call
        .get("locations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|l| l.get("path").and_then(Value::as_str).map(str::to_owned))
        .collect();
    if let Some(raw) = call.get("rawInput") {
        for key in ["file_path", "path", "filePath", "abs_path", "notebook_path"] {
            if let Some(p) = raw.get(key).and_then(Value::as_str) {
                out.push(p.to_owned());
            }
        }
        if let Some(changes) = raw.get("changes").and_then(Value::as_object) {
            out.extend(changes.keys().cloned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(kind: &str, path: Option<&str>) -> Value {
        let mut call = json!({"kind": kind, "title": "t"});
        if let Some(p) = path {
            call["locations"] = json!([{"path": p}]);
        }
        json!({"sessionId": "s", "toolCall": call, "options": [
            {"optionId": "always", "kind": "allow_always", "name": "Always"},
            {"optionId": "once", "kind": "allow_once", "name": "Yes"},
            {"optionId": "no", "kind": "reject_once", "name": "No"}]})
    }

    fn chosen(v: &Value) -> &str {
        v["outcome"]["optionId"].as_str().unwrap_or("cancelled")
    }

    #[test]
    fn policy_from_sandbox_and_yolo() {
        use Sandbox::*;
        assert_eq!(
            Policy::from_options(Some(ReadOnly), Some(true)),
            Policy::ReadOnly
        );
        assert_eq!(Policy::from_options(None, Some(true)), Policy::All);
        assert_eq!(
            Policy::from_options(Some(DangerFullAccess), None),
            Policy::All
        );
        assert_eq!(
            Policy::from_options(Some(WorkspaceWrite), Some(false)),
            Policy::Workspace
        );
        assert_eq!(Policy::from_options(None, None), Policy::Workspace);
    }

    #[test]
    fn the_table() {
        let cd = "/w/p";
        let cases = [
            ("read", Some("/etc/hosts"), [true, true, true]),
            ("search", None, [true, true, true]),
            ("edit", Some("/w/p/a.txt"), [false, true, true]),
            ("edit", Some("/w/q/a.txt"), [false, false, true]),
            ("edit", None, [false, false, true]),
            ("delete", Some("/w/p/../p/x"), [false, true, true]),
            ("execute", Some("/w/p"), [false, false, true]),
            ("fetch", None, [false, false, true]),
            ("other", None, [false, false, true]),
        ];
        for (kind, path, want) in cases {
            for (policy, allowed) in [Policy::ReadOnly, Policy::Workspace, Policy::All]
                .into_iter()
                .zip(want)
            {
                let (d, v) = answer(&request(kind, path), policy, cd, None);
                assert_eq!(d == Decision::Allow, allowed, "{kind} {path:?} {policy:?}");
                assert_eq!(chosen(&v), if allowed { "once" } else { "no" });
            }
        }
    }

    #[test]
    fn raw_input_paths_and_caller_decisions() {
        let mut r = request("edit", None);
        r["toolCall"]["rawInput"] = json!({"file_path": "/w/p/x.rs"});
        assert_eq!(by_policy(&r, Policy::Workspace, "/w/p"), Decision::Allow);
        r["toolCall"]["rawInput"] = json!({"changes": {"/w/p/a": {}, "/tmp/b": {}}});
        assert_eq!(by_policy(&r, Policy::Workspace, "/w/p"), Decision::Reject);
        let (_, v) = answer(
            &request("execute", None),
            Policy::ReadOnly,
            "/w",
            Some(Decision::AllowAlways),
        );
        assert_eq!(chosen(&v), "always");
        let only_reject =
            json!({"toolCall": {}, "options": [{"optionId": "r", "kind": "reject_always"}]});
        assert_eq!(
            chosen(&answer(&only_reject, Policy::All, "/w", None).1),
            "cancelled"
        );
        assert_eq!(
            chosen(&answer(&only_reject, Policy::ReadOnly, "/w", None).1),
            "r"
        );
        assert_eq!(Decision::parse("allow_always"), Some(Decision::AllowAlways));
        assert_eq!(Decision::parse("yes"), None);
    }
}
