//! A channel to an agent on another machine cut while the agent ran
//! (`crate::remote`): the host hands the engine a last line of the agent's
//! stderr that starts with [`TRANSPORT_LOST`], and the run's judgement
//! reads it as a crash (`process_error`).

/// The first word of the line that says the channel was lost.
pub const TRANSPORT_LOST: &str = "transport_lost";

/// The line among an attempt's last lines that says the channel was lost.
pub fn transport_lost_in(lines: &[String]) -> Option<&str> {
    lines
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with(TRANSPORT_LOST) && l[TRANSPORT_LOST.len()..].starts_with(':'))
}
