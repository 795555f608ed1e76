//! What differs between the desktop systems when an agent CLI is started:
//! how long a command line may be ([`limits`]), how Windows quotes one
//! ([`windows_quote`]), what an npm/pnpm/yarn `.cmd` shim runs
//! ([`cmd_shim`]), where an executable may be and how to launch what is
//! found ([`resolve`]), and how to stop the whole process tree ([`kill`]).
//!
//! Every function here is pure: the host (Node) looks at the file system,
//! runs the login shell, spawns and kills; this module decides.
//!
//! ```
//! use agent_context::launch::platform::Platform;
//!
//! assert_eq!(Platform::parse("win32").unwrap(), Platform::Win32);
//! assert_eq!(Platform::parse("android").unwrap(), Platform::Linux);
//! assert!(Platform::parse("aix").is_err());
//! ```

pub mod cmd_shim;
pub mod kill;
pub mod limits;
pub mod requests;
pub mod resolve;
pub mod windows_quote;

use crate::error::{AgentContextError, Result};

/// A desktop system, named as Node's `process.platform` names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Platform {
    #[default]
    Linux,
    Darwin,
    Win32,
}

impl Platform {
    pub const NAMES: [&'static str; 3] = ["linux", "darwin", "win32"];

    /// `process.platform`'s value. `android` is Linux (same kernel, same
    /// limits); the BSDs, SunOS, AIX and Cygwin have limits of their own
    /// that this library has not measured, so they are refused.
    pub fn parse(name: &str) -> Result<Platform> {
        match name {
            "linux" | "android" => Ok(Platform::Linux),
            "darwin" => Ok(Platform::Darwin),
            "win32" => Ok(Platform::Win32),
            _ => Err(AgentContextError::invalid(format!(
                "platform must be 'linux', 'darwin' or 'win32' (process.platform), got \"{name}\": \
                 command-line limits and process handling are only known for those"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Platform::Linux => "linux",
            Platform::Darwin => "darwin",
            Platform::Win32 => "win32",
        }
    }

    pub fn is_windows(self) -> bool {
        self == Platform::Win32
    }

    /// The separator between `PATH`'s entries.
    pub fn path_list_separator(self) -> char {
        if self.is_windows() {
            ';'
        } else {
            ':'
        }
    }

    /// The separator this platform's paths are joined with.
    pub fn dir_separator(self) -> char {
        if self.is_windows() {
            '\\'
        } else {
            '/'
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn node_names_parse_and_others_are_refused_naming_the_known_ones() {
        for name in Platform::NAMES {
            assert_eq!(Platform::parse(name).unwrap().name(), name);
        }
        let e = Platform::parse("freebsd").unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidInput);
        assert!(e.message().starts_with(
            "platform must be 'linux', 'darwin' or 'win32' (process.platform), got \"freebsd\""
        ));
    }
}
