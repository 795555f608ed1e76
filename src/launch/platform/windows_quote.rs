//! The command line Node gives `CreateProcessW` on Windows.
//!
//! Windows passes a program one string, not an array: Node (libuv's
//! `make_program_args`, `src/win/process.c`) joins `[file, ...args]` with
//! spaces, each quoted by `quote_cmd_arg` so that the C runtime's
//! `CommandLineToArgvW` rules split it back into the same array. The
//! rules, restated (this is our own implementation of them):
//!
//! - an empty argument becomes `""`;
//! - one without a space, a tab or a `"` is written as it is;
//! - one that needs quotes but holds no `"` and no `\` is wrapped in `"…"`;
//! - otherwise it is wrapped in `"…"`, every `"` becomes `\"`, and every run
//!   of backslashes that ends right before a `"` or before the closing quote
//!   is doubled (backslashes elsewhere stay single).
//!
//! ```
//! use agent_context::launch::platform::windows_quote::{command_line, quote_arg};
//!
//! assert_eq!(quote_arg(r#"say "hi""#), r#""say \"hi\"""#);
//! assert_eq!(quote_arg(r"C:\dir\"), r"C:\dir\");
//! assert_eq!(quote_arg(r"C:\my dir\"), r#""C:\my dir\\""#);
//! assert_eq!(command_line("node.exe", &["a b".into(), "".into()]), r#"node.exe "a b" """#);
//! ```

/// One argument as libuv quotes it.
pub fn quote_arg(arg: &str) -> String {
    if arg.is_empty() {
        return "\"\"".to_owned();
    }
    if !arg.contains([' ', '\t', '"']) {
        return arg.to_owned();
    }
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('"');
    if !arg.contains(['"', '\\']) {
        out.push_str(arg);
        out.push('"');
        return out;
    }
    let mut backslashes = 0usize;
    for c in arg.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' => {
                // The run before a quote is doubled, then the quote escaped.
                push_backslashes(&mut out, backslashes * 2 + 1);
                out.push('"');
                backslashes = 0;
            }
            _ => {
                push_backslashes(&mut out, backslashes);
                out.push(c);
                backslashes = 0;
            }
        }
    }
    // The run before the closing quote is doubled too.
    push_backslashes(&mut out, backslashes * 2);
    out.push('"');
    out
}

fn push_backslashes(out: &mut String, n: usize) {
    out.extend(std::iter::repeat('\\').take(n));
}

/// The whole command line: `program` (Node's `file`, which libuv quotes
/// like any argument) and `args`, each quoted, joined with one space.
pub fn command_line(program: &str, args: &[String]) -> String {
    let mut line = quote_arg(program);
    for arg in args {
        line.push(' ');
        line.push_str(&quote_arg(arg));
    }
    line
}

/// How the C runtime of the child (`CommandLineToArgvW`'s rules, as
/// msvcrt and UCRT parse `argv`) splits a command line back into
/// arguments; the inverse of [`command_line`] for what it produces. Used
/// by the tests to show the quoting round-trips.
pub fn split_command_line(line: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while matches!(chars.peek(), Some(' ' | '\t')) {
            chars.next();
        }
        if chars.peek().is_none() {
            return args;
        }
        let mut arg = String::new();
        let mut quoted = false;
        while let Some(&c) = chars.peek() {
            match c {
                ' ' | '\t' if !quoted => break,
                '\\' => {
                    let mut n = 0;
                    while chars.peek() == Some(&'\\') {
                        chars.next();
                        n += 1;
                    }
                    if chars.peek() == Some(&'"') {
                        push_backslashes(&mut arg, n / 2);
                        if n % 2 == 1 {
                            arg.push('"');
                            chars.next();
                        }
                    } else {
                        push_backslashes(&mut arg, n);
                    }
                }
                '"' => {
                    chars.next();
                    if quoted && chars.peek() == Some(&'"') {
                        // `""` inside quotes is a literal quote (UCRT).
                        arg.push('"');
                        chars.next();
                    } else {
                        quoted = !quoted;
                    }
                }
                _ => {
                    arg.push(c);
                    chars.next();
                }
            }
        }
        args.push(arg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libuvs_documented_examples() {
        // The input/output pairs libuv's comment in quote_cmd_arg lists.
        let cases = [
            (r#"hello"world"#, r#""hello\"world""#),
            (r#"hello""world"#, r#""hello\"\"world""#),
            (r"hello\world", r"hello\world"),
            (r"hello\\world", r"hello\\world"),
            (r#"hello\"world"#, r#""hello\\\"world""#),
            (r#"hello\\"world"#, r#""hello\\\\\"world""#),
            (r"hello world\", r#""hello world\\""#),
        ];
        for (input, quoted) in cases {
            assert_eq!(quote_arg(input), quoted, "{input}");
        }
    }

    #[test]
    fn what_needs_no_quotes_stays_as_it_is() {
        for arg in ["%PATH%", "^&|<>!", "a&b", "über", "--flag=x", "C:\\x\\"] {
            assert_eq!(quote_arg(arg), arg);
        }
        assert_eq!(quote_arg(""), "\"\"");
        assert_eq!(quote_arg("a\tb"), "\"a\tb\"");
        assert_eq!(quote_arg("Program Files"), "\"Program Files\"");
    }

    #[test]
    fn awkward_arguments_round_trip_through_the_childs_parser() {
        let args: Vec<String> = [
            "plain",
            "with space",
            "",
            r#"say "hi""#,
            r#"\"#,
            r#"a\\"#,
            r#"trailing\ "#,
            r#"\\server\share\"#,
            r#""""#,
            "%USERPROFILE% ^ & ! | < >",
            "日本語 émoji 🎉",
            "\t",
        ]
        .map(String::from)
        .to_vec();
        let line = command_line(r"C:\Program Files\nodejs\node.exe", &args);
        let back = split_command_line(&line);
        assert_eq!(back[0], r"C:\Program Files\nodejs\node.exe");
        assert_eq!(back[1..], args[..]);
    }
}
