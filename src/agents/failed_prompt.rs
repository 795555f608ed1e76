//! What an agent's session keeps of a prompt whose turn failed, over its
//! CLI and over ACP alike.

/// What an agent's session keeps of a prompt whose turn failed (its model
/// call answered HTTP 500, say), each seen in a real agent's model requests
/// (`docs/sessions.md`): what a session's retry of the turn sends. The
/// default, [`FailedPrompt::Dropped`], sends the prompt again: a message
/// the model sees twice is better than one it never sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailedPrompt {
    /// The history holds no trace of it: the retry sends it again.
    Dropped,
    /// The history holds it (and whatever the turn did before it failed):
    /// the retry asks the agent to answer it, without sending it again.
    Kept,
}
