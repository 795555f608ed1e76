//! Which request opens the session: `session/new`, or, when a `sessionId`
//! is asked for, `session/resume` (preferred: no history replayed) or
//! `session/load` when the agent advertises it in `initialize`'s
//! `agentCapabilities`. Asked for and not possible is `session_not_found`,
//! never a silent new session.
//!
//! ```
//! use agent_context::acp::session::{plan_session, SessionStep};
//! use agent_context::agents;
//! use serde_json::json;
//!
//! let claude = agents::find("claude-code").unwrap().acp.as_ref().unwrap();
//! let caps = json!({"agentCapabilities": {"loadSession": true, "sessionCapabilities": {"resume": {}}}});
//! assert_eq!(plan_session(claude, &caps, Some("s1")), Ok(SessionStep::Resume));
//! assert_eq!(plan_session(claude, &caps, None), Ok(SessionStep::New));
//! let gemini = agents::find("google-gemini").unwrap().acp.as_ref().unwrap();
//! assert!(plan_session(gemini, &json!({"agentCapabilities": {"loadSession": true}}), Some("s1")).is_err());
//! ```

use serde_json::Value;

use crate::agents::AcpLaunch;

/// The request that opens the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionStep {
    New,
    Load,
    Resume,
}

impl SessionStep {
    pub fn method(self) -> &'static str {
        match self {
            SessionStep::New => "session/new",
            SessionStep::Load => "session/load",
            SessionStep::Resume => "session/resume",
        }
    }
}

/// The step for `initialize`'s result and the session asked for; `Err`
/// says why the asked session cannot be opened (`session_not_found`).
pub fn plan_session(
    launch: &AcpLaunch,
    initialized: &Value,
    session_id: Option<&str>,
) -> Result<SessionStep, String> {
    let Some(_) = session_id else {
        return Ok(SessionStep::New);
    };
    let caps = initialized.get("agentCapabilities");
    let resume = caps
        .and_then(|c| c.get("sessionCapabilities"))
        .and_then(|c| c.get("resume"))
        .is_some_and(|r| !r.is_null() && r != &Value::Bool(false));
    let load = caps
        .and_then(|c| c.get("loadSession"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if resume {
        return Ok(SessionStep::Resume);
    }
    if load {
        return match launch.load_broken {
            Some(why) => Err(format!("it cannot load a session over ACP: {why}")),
            None => Ok(SessionStep::Load),
        };
    }
    Err("it advertises neither session/load nor session/resume".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents;
    use serde_json::json;

    fn launch(agent: &str) -> &'static AcpLaunch {
        agents::find(agent).unwrap().acp.as_ref().unwrap()
    }

    #[test]
    fn new_unless_asked_then_resume_load_or_not_found() {
        let claude = launch("claude-code");
        let none = json!({"agentCapabilities": {}});
        assert_eq!(plan_session(claude, &none, None), Ok(SessionStep::New));
        assert!(plan_session(claude, &none, Some("s"))
            .unwrap_err()
            .contains("neither"));
        assert!(plan_session(claude, &json!({}), Some("s")).is_err());
        let load = json!({"agentCapabilities": {"loadSession": true}});
        assert_eq!(
            plan_session(claude, &load, Some("s")),
            Ok(SessionStep::Load)
        );
        let off = json!({"agentCapabilities": {"loadSession": false, "sessionCapabilities": {"resume": null}}});
        assert!(plan_session(claude, &off, Some("s")).is_err());
        let both = json!({"agentCapabilities": {"loadSession": true, "sessionCapabilities": {"resume": {}}}});
        assert_eq!(
            plan_session(claude, &both, Some("s")),
            Ok(SessionStep::Resume)
        );
        assert_eq!(SessionStep::Resume.method(), "session/resume");
    }

    #[test]
    fn gemini_load_is_never_tried() {
        let gemini = launch("google-gemini");
        let load = json!({"agentCapabilities": {"loadSession": true}});
        assert!(plan_session(gemini, &load, Some("s"))
            .unwrap_err()
            .contains("erases"));
        assert_eq!(plan_session(gemini, &load, None), Ok(SessionStep::New));
    }
}
