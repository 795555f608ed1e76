//! How long a command line may be, counted as each system counts it.
//!
//! - **Linux** (`fs/exec.c`): each argv or environment string, its NUL
//!   included, may take [`LINUX_MAX_ARG_STRLEN`] = 131 072 bytes (32 pages
//!   of 4 KiB), or `execve` fails with `E2BIG`. All of them together — the
//!   executable's path (copied first), every argv and environment string
//!   with its NUL, and one 8-byte pointer per argv and environment entry —
//!   may take a quarter of the stack limit (`RLIMIT_STACK / 4`, capped at
//!   6 MiB). We use [`LINUX_ARGV_ENV_BYTES`] = 2 097 152: the quarter of
//!   the default 8 MiB stack limit every desktop distribution ships, which
//!   is what `getconf ARG_MAX` prints there. A host that raised its stack
//!   limit could pass more; one that lowered it would fail earlier.
//! - **macOS** (xnu `bsd/kern/kern_exec.c`, `exec_extract_strings`):
//!   argv and environment together may take `NCARGS` = `ARG_MAX` =
//!   [`DARWIN_ARG_MAX`] = 1 048 576 bytes, charged as each string with its
//!   NUL plus one 8-byte pointer per entry, one pointer for each of the two
//!   terminating NULLs, and the strings' total rounded up to 8 bytes. The
//!   executable's path is stored apart and not charged.
//! - **Windows** (`CreateProcessW`): the command line Node builds (see
//!   [`super::windows_quote`]) may be [`WINDOWS_COMMAND_LINE_UNITS`] =
//!   32 767 UTF-16 units, its terminating NUL included; through `cmd.exe`
//!   the line `cmd.exe` parses may be [`CMD_EXE_UNITS`] = 8 191 units.
//!   The environment block is not limited since Windows Vista.
//!
//! On Linux and macOS a script started directly (a `#!` line, as npm links
//! `claude` or `gemini`) has its interpreter's words and its own path
//! added by the kernel; those are not known here, so the totals keep
//! [`SHEBANG_RESERVE_BYTES`] for them.
//!
//! ```
//! use agent_context::launch::platform::{limits::{check, CommandLine, Limit}, Platform};
//!
//! let args = vec!["-p".to_owned(), "x".repeat(40_000)];
//! let line = CommandLine { program: "claude", args: &args, env: &[] };
//! assert!(check(Platform::Linux, &line).is_ok());
//! let over = check(Platform::Win32, &line).unwrap_err();
//! assert_eq!(over.limit, Limit::WindowsCommandLine);
//! assert_eq!(over.used, 40_011); // "claude -p " + the argument + the NUL
//! ```

use super::windows_quote;
use super::Platform;

/// Linux's `MAX_ARG_STRLEN`: one argv or environment string, NUL included.
pub const LINUX_MAX_ARG_STRLEN: usize = 131_072;
/// Linux's argv + environment budget with the default 8 MiB stack limit.
pub const LINUX_ARGV_ENV_BYTES: usize = 2_097_152;
/// macOS's `ARG_MAX` (`NCARGS`): argv and environment together.
pub const DARWIN_ARG_MAX: usize = 1_048_576;
/// `CreateProcessW`'s `lpCommandLine`, its NUL included.
pub const WINDOWS_COMMAND_LINE_UNITS: usize = 32_767;
/// The longest line `cmd.exe` accepts.
pub const CMD_EXE_UNITS: usize = 8_191;
/// Room kept in the POSIX totals for what a `#!` line adds.
pub const SHEBANG_RESERVE_BYTES: usize = 4_096;
/// A pointer in argv/envp on the 64-bit systems Node runs on.
const POINTER_BYTES: usize = 8;

/// A command line to check: `program` is what spawn gets as the file to
/// run (also `argv[0]`, as Node passes it), `args` the rest, `env` the
/// child's environment (`KEY=value` is counted for each pair).
#[derive(Clone, Copy, Debug)]
pub struct CommandLine<'a> {
    pub program: &'a str,
    pub args: &'a [String],
    pub env: &'a [(String, String)],
}

/// The limit a command line is held to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Linux: one argv or environment string.
    LinuxArgument,
    /// Linux: argv + environment.
    LinuxArgvEnv,
    /// macOS: argv + environment (`ARG_MAX`).
    DarwinArgMax,
    /// Windows: the whole command line.
    WindowsCommandLine,
    /// Windows through `cmd.exe`.
    CmdExe,
}

impl Limit {
    /// Its value (in [`Limit::unit`]s).
    pub fn max(self) -> usize {
        match self {
            Limit::LinuxArgument => LINUX_MAX_ARG_STRLEN,
            Limit::LinuxArgvEnv => LINUX_ARGV_ENV_BYTES,
            Limit::DarwinArgMax => DARWIN_ARG_MAX,
            Limit::WindowsCommandLine => WINDOWS_COMMAND_LINE_UNITS,
            Limit::CmdExe => CMD_EXE_UNITS,
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Limit::WindowsCommandLine | Limit::CmdExe => "UTF-16 units",
            _ => "bytes",
        }
    }

    /// A stable name for JS (`limit` in a check's result).
    pub fn id(self) -> &'static str {
        match self {
            Limit::LinuxArgument => "linux-argument",
            Limit::LinuxArgvEnv => "linux-argv-env",
            Limit::DarwinArgMax => "darwin-arg-max",
            Limit::WindowsCommandLine => "windows-command-line",
            Limit::CmdExe => "cmd-exe",
        }
    }

    /// What the limit is, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Limit::LinuxArgument => {
                "Linux's limit on one argument (MAX_ARG_STRLEN, its NUL included)"
            }
            Limit::LinuxArgvEnv => {
                "Linux's limit on argv + environment (a quarter of the default 8 MiB stack)"
            }
            Limit::DarwinArgMax => "macOS's limit on argv + environment (ARG_MAX)",
            Limit::WindowsCommandLine => {
                "Windows' limit on a command line (CreateProcess, its NUL included)"
            }
            Limit::CmdExe => "cmd.exe's limit on a command line",
        }
    }
}

/// What a check counted against the limit that binds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measure {
    pub limit: Limit,
    pub used: usize,
    /// Which part was measured: `args[3]`, `program`, `env.PATH`, or
    /// `command line` for a total.
    pub what: String,
}

impl Measure {
    pub fn max(&self) -> usize {
        self.limit.max()
    }

    pub fn fits(&self) -> bool {
        self.used <= self.limit.max()
    }

    /// `args[4] is 131 100 bytes, over Linux's limit … of 131 072 bytes`.
    pub fn message(&self) -> String {
        format!(
            "{} is {} {}, over {} of {} {}",
            self.what,
            self.used,
            self.limit.unit(),
            self.limit.describe(),
            self.limit.max(),
            self.limit.unit()
        )
    }
}

/// The measure of the binding limit when `line` fits `platform`'s limits
/// (the total's, so a caller sees the room left); the first one exceeded
/// otherwise. NUL characters are not looked for: no argument can hold one
/// on any system, and callers refuse them first.
pub fn check(platform: Platform, line: &CommandLine) -> Result<Measure, Measure> {
    match platform {
        Platform::Linux => check_linux(line),
        Platform::Darwin => fits(darwin_total(line)),
        Platform::Win32 => fits(windows_total(line)),
    }
}

/// The same for a line run through `cmd.exe /d /s /c "…"`, as Node does
/// with `shell: true` (arguments joined with spaces, not quoted). This
/// library never launches through `cmd.exe`; this is for hosts that still
/// do, and to show why.
pub fn check_through_cmd(line: &CommandLine) -> Result<Measure, Measure> {
    let mut inner = line.program.to_owned();
    for arg in line.args {
        inner.push(' ');
        inner.push_str(arg);
    }
    let used = utf16_len(&inner) + 2; // the quotes around it after /c
    fits(Measure {
        limit: Limit::CmdExe,
        used,
        what: "command line".into(),
    })?;
    fits(windows_total(&CommandLine {
        program: "cmd.exe",
        args: &[
            "/d".into(),
            "/s".into(),
            "/c".into(),
            format!("\"{inner}\""),
        ],
        env: &[],
    }))
}

fn fits(measure: Measure) -> Result<Measure, Measure> {
    if measure.fits() {
        Ok(measure)
    } else {
        Err(measure)
    }
}

fn env_len((key, value): &(String, String)) -> usize {
    key.len() + 1 + value.len()
}

fn check_linux(line: &CommandLine) -> Result<Measure, Measure> {
    let one = |what: String, len: usize| {
        fits(Measure {
            limit: Limit::LinuxArgument,
            used: len + 1,
            what,
        })
    };
    one("program".into(), line.program.len())?;
    for (i, arg) in line.args.iter().enumerate() {
        one(format!("args[{i}]"), arg.len())?;
    }
    for pair in line.env {
        one(format!("env.{}", pair.0), env_len(pair))?;
    }
    let strings: usize = 2 * (line.program.len() + 1) // the path, then argv[0]
        + line.args.iter().map(|a| a.len() + 1).sum::<usize>()
        + line.env.iter().map(|p| env_len(p) + 1).sum::<usize>();
    let pointers = (1 + line.args.len() + line.env.len()) * POINTER_BYTES;
    fits(Measure {
        limit: Limit::LinuxArgvEnv,
        used: strings + pointers + SHEBANG_RESERVE_BYTES,
        what: "argv + environment".into(),
    })
}

fn darwin_total(line: &CommandLine) -> Measure {
    let strings: usize = line.program.len()
        + 1
        + line.args.iter().map(|a| a.len() + 1).sum::<usize>()
        + line.env.iter().map(|p| env_len(p) + 1).sum::<usize>();
    // One pointer per entry, one per terminating NULL (argv's and envp's).
    let pointers = (1 + line.args.len() + line.env.len() + 2) * POINTER_BYTES;
    Measure {
        limit: Limit::DarwinArgMax,
        used: strings.next_multiple_of(POINTER_BYTES) + pointers + SHEBANG_RESERVE_BYTES,
        what: "argv + environment".into(),
    }
}

fn windows_total(line: &CommandLine) -> Measure {
    let quoted = windows_quote::command_line(line.program, line.args);
    Measure {
        limit: Limit::WindowsCommandLine,
        used: utf16_len(&quoted) + 1,
        what: "command line".into(),
    }
}

fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line<'a>(
        program: &'a str,
        args: &'a [String],
        env: &'a [(String, String)],
    ) -> CommandLine<'a> {
        CommandLine { program, args, env }
    }

    #[test]
    fn linux_one_argument_may_take_131071_bytes_and_its_nul() {
        let at = vec!["x".repeat(LINUX_MAX_ARG_STRLEN - 1)];
        assert!(check(Platform::Linux, &line("claude", &at, &[])).is_ok());
        let over = vec!["ok".into(), "x".repeat(LINUX_MAX_ARG_STRLEN)];
        let e = check(Platform::Linux, &line("claude", &over, &[])).unwrap_err();
        assert_eq!(
            (e.limit, e.used, e.what.as_str()),
            (Limit::LinuxArgument, 131_073, "args[1]")
        );
        assert_eq!(
            e.message(),
            "args[1] is 131073 bytes, over Linux's limit on one argument (MAX_ARG_STRLEN, its NUL included) of 131072 bytes"
        );
        // An environment string is held to the same limit.
        let env = vec![("BIG".to_owned(), "v".repeat(LINUX_MAX_ARG_STRLEN))];
        let e = check(Platform::Linux, &line("claude", &[], &env)).unwrap_err();
        assert_eq!(
            (e.what.as_str(), e.used),
            ("env.BIG", LINUX_MAX_ARG_STRLEN + 5)
        );
    }

    #[test]
    fn linux_total_counts_path_argv0_strings_nuls_and_pointers() {
        // 21 arguments of 100 000 bytes fit one by one but not together.
        let args = vec!["y".repeat(100_000); 21];
        let env = vec![("HOME".to_owned(), "/home/me".to_owned())];
        let e = check(Platform::Linux, &line("/usr/bin/claude", &args, &env)).unwrap_err();
        let expected = 2 * 16 + 21 * 100_001 + 14 + (1 + 21 + 1) * 8 + SHEBANG_RESERVE_BYTES;
        assert_eq!((e.limit, e.used), (Limit::LinuxArgvEnv, expected));
        let ok = check(Platform::Linux, &line("/usr/bin/claude", &args[..20], &env)).unwrap();
        assert_eq!(ok.limit, Limit::LinuxArgvEnv);
        assert_eq!(ok.used, expected - 100_001 - 8);
    }

    #[test]
    fn darwin_counts_argv_and_environment_together_like_xnu() {
        // One byte under, at and over the limit, built from the formula's
        // parts: strings rounded to 8, pointers, the two NULLs, the reserve.
        let fixed = 8 * (1 + 1 + 1 + 2) + SHEBANG_RESERVE_BYTES;
        let env_value = |n: usize| vec![("K".to_owned(), "v".repeat(n))];
        // program "p" (2) + arg "a" (2) + "K=" + value + NUL = value + 7.
        let at = DARWIN_ARG_MAX - fixed - 7; // strings: 7 + at, a multiple of 8
        let args = vec!["a".to_owned()];
        let ok = check(Platform::Darwin, &line("p", &args, &env_value(at))).unwrap();
        assert_eq!(ok.used, DARWIN_ARG_MAX);
        let e = check(Platform::Darwin, &line("p", &args, &env_value(at + 1))).unwrap_err();
        assert_eq!((e.limit, e.used), (Limit::DarwinArgMax, DARWIN_ARG_MAX + 8));
        // No per-argument limit: one argument of 900 000 bytes is fine.
        let big = vec!["z".repeat(900_000)];
        assert!(check(Platform::Darwin, &line("claude", &big, &[])).is_ok());
        assert!(check(Platform::Linux, &line("claude", &big, &[])).is_err());
    }

    #[test]
    fn windows_counts_the_quoted_line_in_utf16_units_with_its_nul() {
        // "node.exe " is 9 units; the argument quoted adds 2; NUL adds 1.
        let fill = |n: usize| vec![format!("a {}", "b".repeat(n - 2))];
        let at = WINDOWS_COMMAND_LINE_UNITS - 9 - 2 - 1;
        let ok = check(Platform::Win32, &line("node.exe", &fill(at), &[])).unwrap();
        assert_eq!((ok.limit, ok.used), (Limit::WindowsCommandLine, 32_767));
        let e = check(Platform::Win32, &line("node.exe", &fill(at + 1), &[])).unwrap_err();
        assert_eq!(e.used, 32_768);
        assert!(
            e.message().ends_with("of 32767 UTF-16 units"),
            "{}",
            e.message()
        );
        // An astral character is two units, an accented one one unit.
        let wide = vec!["🎉".repeat(10), "é".repeat(10)];
        let m = check(Platform::Win32, &line("x", &wide, &[])).unwrap();
        assert_eq!(m.used, 1 + 1 + 20 + 1 + 10 + 1);
        // Quoting counts: each `"` costs a backslash.
        let quotes = vec!["\"".repeat(100)];
        assert_eq!(
            check(Platform::Win32, &line("x", &quotes, &[]))
                .unwrap()
                .used,
            1 + 1 + 202 + 1
        );
        // The environment is not counted on Windows.
        let env = vec![("K".to_owned(), "v".repeat(100_000))];
        assert!(check(Platform::Win32, &line("x", &[], &env)).is_ok());
    }

    #[test]
    fn cmd_exe_takes_8191_units() {
        let args = ["x".repeat(8_191 - 2 - 4)]; // "x.cmd " + arg, in quotes
        assert_eq!(
            check_through_cmd(&line("x.cmd", &args[..], &[]))
                .unwrap_err()
                .used,
            8_191 + 2
        );
        let args = vec!["x".repeat(8_191 - 2 - 6)];
        let ok = check_through_cmd(&line("x.cmd", &args, &[])).unwrap();
        assert_eq!(ok.limit, Limit::WindowsCommandLine);
        let e = check_through_cmd(&line("x.cmd", &["x".repeat(9_000)], &[])).unwrap_err();
        assert_eq!((e.limit, e.used), (Limit::CmdExe, 9_008));
        assert!(e
            .message()
            .contains("cmd.exe's limit on a command line of 8191 UTF-16 units"));
    }
}
