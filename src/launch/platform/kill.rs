//! How a run is spawned so that all of it can be stopped, and how it is
//! stopped: nothing the agent started may outlive the call.
//!
//! - **Linux, macOS**: the child leads a new process group (`detached:
//!   true`, `setsid`), and the whole group gets `SIGKILL` (`kill(-pid)`);
//!   grandchildren (an MCP server, a shell the agent ran) are in it.
//! - **Windows**: there are no process groups to signal; `taskkill /pid N
//!   /T /F` ends the process and every descendant. When `taskkill` fails
//!   (not found, or — under Wine — no `/T`), the host falls back to ending
//!   the child itself (`child.kill()`, `TerminateProcess`). `detached` stays
//!   false there (it would open a console window).
//!
//! ```
//! use agent_context::launch::platform::{kill::{kill_plan, KillStep}, Platform};
//!
//! assert_eq!(kill_plan(Platform::Linux, 4242).steps, [KillStep::SignalGroup { pid: 4242, signal: "SIGKILL" }]);
//! assert_eq!(
//!     kill_plan(Platform::Win32, 4242).steps[0],
//!     KillStep::Run { file: "taskkill".into(), args: vec!["/pid".into(), "4242".into(), "/T".into(), "/F".into()] },
//! );
//! ```

use serde::Serialize;

use super::Platform;

/// One thing the host does to stop the tree, in order; it goes on to the
/// next step only when one fails.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum KillStep {
    /// `process.kill(-pid, signal)`.
    SignalGroup { pid: u32, signal: &'static str },
    /// Run `file` with `args` and wait for it; failed when it exits non-zero.
    Run { file: String, args: Vec<String> },
    /// `child.kill()`: the child alone.
    KillChild,
}

/// Spawn options and the steps that stop the tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KillPlan {
    /// `spawn`'s `detached`: a new process group on POSIX.
    pub detached: bool,
    /// `spawn`'s `windowsHide`.
    #[serde(rename = "windowsHide")]
    pub windows_hide: bool,
    pub steps: Vec<KillStep>,
}

/// The spawn options a run needs on `platform` (known before the pid).
pub fn spawn_options(platform: Platform) -> KillPlan {
    KillPlan {
        detached: !platform.is_windows(),
        windows_hide: platform.is_windows(),
        steps: Vec::new(),
    }
}

/// How to stop the tree of the child `pid`.
pub fn kill_plan(platform: Platform, pid: u32) -> KillPlan {
    let steps = if platform.is_windows() {
        vec![
            KillStep::Run {
                file: "taskkill".into(),
                args: vec!["/pid".into(), pid.to_string(), "/T".into(), "/F".into()],
            },
            KillStep::KillChild,
        ]
    } else {
        vec![KillStep::SignalGroup {
            pid,
            signal: "SIGKILL",
        }]
    };
    KillPlan {
        steps,
        ..spawn_options(platform)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_kills_the_group_windows_runs_taskkill_then_the_child() {
        for platform in [Platform::Linux, Platform::Darwin] {
            let plan = kill_plan(platform, 7);
            assert!(plan.detached && !plan.windows_hide);
            assert_eq!(
                plan.steps,
                [KillStep::SignalGroup {
                    pid: 7,
                    signal: "SIGKILL"
                }]
            );
        }
        let plan = kill_plan(Platform::Win32, 7);
        assert!(!plan.detached && plan.windows_hide);
        assert_eq!(plan.steps.len(), 2);
        assert_eq!(plan.steps[1], KillStep::KillChild);
        let KillStep::Run { file, args } = &plan.steps[0] else {
            panic!()
        };
        assert_eq!(
            (file.as_str(), args.join(" ")),
            ("taskkill", "/pid 7 /T /F".to_owned())
        );
    }
}
