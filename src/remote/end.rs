//! How a process of the agent on the other side ended, from what the host
//! saw of the channel's local process and what the reap found there: the
//! agent's own exit status when it ended, else a lost transport — the
//! channel cut while the agent ran (its process group then ended through a
//! new connection). A lost transport reaches the engine as a last line of
//! the agent's stderr that starts with [`TRANSPORT_LOST`], which the run's
//! judgement reads as a crash (`process_error`, `crate::attempt::transport_lost`).

use serde_json::{json, Value};

use super::wire::Frame;

pub use crate::attempt::{transport_lost_in, TRANSPORT_LOST};

/// How the channel's local process (`ssh`, `docker`, …) ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelEnd {
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
}

/// What the host hands the engine: the end of the agent's process, the
/// files it wrote for the reply, and, when the channel was lost, the line
/// to hand over first as the agent's stderr.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProcessEnd {
    pub exit_code: Option<i32>,
    pub signal: Option<String>,
    /// `[path, content]` of each output file it wrote.
    pub outputs: Vec<(String, String)>,
    pub transport_lost: Option<String>,
}

impl ProcessEnd {
    /// `{ exitCode, signal, outputs: [[path, content]], transportLost }`.
    pub fn to_json(&self) -> Value {
        json!({
            "exitCode": self.exit_code,
            "signal": self.signal,
            "outputs": self.outputs.iter().map(|(p, c)| json!([p, c])).collect::<Vec<_>>(),
            "transportLost": self.transport_lost,
        })
    }
}

/// A shell's status of a process a signal ended (128 + n) as that signal.
fn signal_of(status: i32) -> Option<&'static str> {
    Some(match status - 128 {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// The judgement. `frames`: the reap's answer (`None` when it did not come
/// whole: the other side could not be reached again).
pub fn judge(
    name: &str,
    channel: &ChannelEnd,
    killed: bool,
    frames: Option<&[Frame]>,
    outputs: &[String],
) -> ProcessEnd {
    let status = frames
        .and_then(|f| f.iter().find(|f| f.tag == "exit"))
        .and_then(|f| f.text().trim().parse::<i32>().ok());
    let handed: Vec<(String, String)> = frames
        .map(|frames| {
            frames
                .iter()
                .filter_map(|f| {
                    let i: usize = f.tag.strip_prefix("out ")?.parse().ok()?;
                    Some((outputs.get(i.checked_sub(1)?)?.clone(), f.text()))
                })
                .collect()
        })
        .unwrap_or_default();
    let cut_locally = !killed && channel.signal.is_some();
    let lost_why = if frames.is_none() {
        Some(
            "the other side could not be reached again to end the agent's process group".to_owned(),
        )
    } else if cut_locally {
        Some(format!(
            "the channel's local process was ended by {}",
            channel.signal.as_deref().unwrap_or("a signal")
        ))
    } else if status.is_none() && !killed {
        Some(match channel.exit_code {
            Some(code) => format!(
                "the channel ended (status {code}) before the agent did; its process group was ended through a new connection"
            ),
            None => "the channel ended before the agent did; its process group was ended through a new connection".to_owned(),
        })
    } else {
        None
    };
    if let Some(why) = lost_why {
        return ProcessEnd {
            exit_code: channel.exit_code,
            signal: channel.signal.clone(),
            outputs: handed,
            transport_lost: Some(format!("{TRANSPORT_LOST}: {name}: {why}")),
        };
    }
    let (exit_code, signal) = match status {
        Some(s) => match signal_of(s) {
            Some(sig) => (None, Some(sig.to_owned())),
            None => (Some(s), None),
        },
        // Ended by the host before the agent said how it ended.
        None => (
            channel.exit_code,
            channel
                .signal
                .clone()
                .or_else(|| Some("SIGKILL".to_owned())),
        ),
    };
    ProcessEnd {
        exit_code,
        signal,
        outputs: handed,
        transport_lost: None,
    }
}
