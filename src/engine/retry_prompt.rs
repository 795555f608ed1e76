//! What a session's retry of a failed turn sends, so that the agent's model
//! sees the user's message once: the prompt again where the agent's
//! session holds no trace of it, or, where the session kept it (the
//! agent's [`FailedPrompt::Kept`], in the session the retry goes on in), a
//! short message asking the agent to answer the message it holds
//! ([`super::turn::CONTINUE_TEXT`]).

use super::engine::*;
use crate::agents::FailedPrompt;

impl Engine {
    /// Whether the next attempt at session `i`'s turn finds the prompt of
    /// the attempt that just failed in the agent's session. Never in a run
    /// (`runAgent`: an attempt is a new session), nor when the prompt
    /// provably never reached the agent (`undelivered`). Over ACP, the
    /// session is the one the attempt ran in. Over the CLI, the one process
    /// still runs, or the retry resumes the session the attempt resumed
    /// (`requested`): a process per turn whose session had not answered
    /// yet starts a new one.
    pub(super) fn failed_prompt_kept(
        &self,
        i: usize,
        requested: Option<&str>,
        undelivered: bool,
    ) -> bool {
        if self.one_shot || undelivered {
            return false;
        }
        if self.cfg.is_acp() {
            return self.launch_spec().quirks.failed_prompt == FailedPrompt::Kept;
        }
        let kept = self
            .agent()
            .cli
            .is_some_and(|c| c.extras.failed_prompt == FailedPrompt::Kept);
        let same_process = self.persistent() && self.proc == Proc::Up;
        let resumed = requested.is_some() && requested == self.sessions[i].keep_session.as_deref();
        kept && (same_process || resumed)
    }
}
