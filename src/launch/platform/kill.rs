//! How a run is spawned so that all of it can be stopped, and how it is
//! stopped: nothing the agent started may outlive the call.
//!
//! - **Linux, macOS**: the child leads a new process group (`detached:
//!   true`, `setsid`), and the whole group gets `SIGKILL` (`kill(-pid)`);
//!   grandchildren (an MCP server, a shell the agent ran) are in it.
//! - **Linux** also finds what left the group: a process an agent starts in
//!   a session of its own (`setsid`, as Codex starts its shell snapshot) is
//!   out of reach of the group's signal, and its parent may be gone by the
//!   time the run ends. Each spawn's environment carries a mark
//!   ([`STRAY_MARK`]) set to a value of the host's own for that spawn; when
//!   the tree is killed and after the child exits, every process still
//!   holding it gets `SIGKILL` (the host reads `/proc/PID/environ`). A
//!   process that clears its environment is not found; macOS has no
//!   `/proc`, so there the group is all.
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

/// The environment variable that marks a spawn's processes (Linux).
pub const STRAY_MARK: &str = "AGENT_CONTEXT_TREE";

/// The processes of a spawn outside its group, found by a mark in their
/// environment, and what they get.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Strays {
    /// The variable the host sets in the child's environment, to a value
    /// unique to that spawn; every process still holding it is the run's.
    pub env: &'static str,
    /// Sent to each when the tree is killed, and once the child has exited.
    pub signal: &'static str,
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
    /// Where the host can find what left the group (Linux only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strays: Option<Strays>,
}

/// The spawn options a run needs on `platform` (known before the pid).
pub fn spawn_options(platform: Platform) -> KillPlan {
    KillPlan {
        detached: !platform.is_windows(),
        windows_hide: platform.is_windows(),
        steps: Vec::new(),
        strays: (platform == Platform::Linux).then_some(Strays {
            env: STRAY_MARK,
            signal: "SIGKILL",
        }),
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
        assert_eq!(plan.strays, None);
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

    #[test]
    fn only_linux_looks_for_what_left_the_group() {
        let strays = kill_plan(Platform::Linux, 7).strays.expect("linux");
        assert_eq!((strays.env, strays.signal), (STRAY_MARK, "SIGKILL"));
        assert_eq!(spawn_options(Platform::Linux).strays, Some(strays));
        assert_eq!(kill_plan(Platform::Darwin, 7).strays, None);
        let json = serde_json::to_value(spawn_options(Platform::Darwin)).unwrap();
        assert!(json.get("strays").is_none(), "{json}");
    }
}
