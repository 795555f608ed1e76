//! The client's `fs` methods confined to `cd`: a path is taken only when,
//! made absolute against `cd` and with `.` and `..` resolved, it lies inside
//! `cd`. Lexical: the Node runner also resolves symbolic links before any
//! read or write (`js/host/engine-host.cjs`).
//!
//! ```
//! use agent_context::acp::fs::inside;
//!
//! assert_eq!(inside("/w/p", "/w/p/src/../a.txt").as_deref(), Some("/w/p/a.txt"));
//! assert_eq!(inside("/w/p", "sub/b.txt").as_deref(), Some("/w/p/sub/b.txt"));
//! assert_eq!(inside("/w/p", "/w/p/../q/c.txt"), None);
//! assert_eq!(inside("/w/p", "/w/pq/c.txt"), None);
//! ```

/// `path` (absolute, or relative to `cd`) with `.` and `..` resolved, when
/// it is `cd` itself or inside it; `None` otherwise. Windows paths (a drive
/// letter, backslashes) compare without regard to case.
pub fn inside(cd: &str, path: &str) -> Option<String> {
    let windows = is_windows(cd) || is_windows(path);
    let cd = normalize(cd, None, windows)?;
    let full = normalize(path, Some(&cd), windows)?;
    let sep = if windows { '\\' } else { '/' };
    let (a, b) = if windows {
        (full.to_lowercase(), cd.to_lowercase())
    } else {
        (full.clone(), cd.clone())
    };
    let within =
        a == b || (a.starts_with(&b) && (b.ends_with(sep) || a[b.len()..].starts_with(sep)));
    within.then_some(full)
}

/// [`inside`] any of the session's roots: `cd`, then each of `dirs` (its
/// more folders, `additionalDirectories`); a relative path is taken against
/// `cd`.
///
/// ```
/// use agent_context::acp::fs::inside_roots;
///
/// let dirs = ["/w/shared".to_owned()];
/// assert_eq!(inside_roots("/w/p", &dirs, "/w/shared/a.txt").as_deref(), Some("/w/shared/a.txt"));
/// assert_eq!(inside_roots("/w/p", &dirs, "../shared/b.txt").as_deref(), Some("/w/shared/b.txt"));
/// assert_eq!(inside_roots("/w/p", &dirs, "/w/other/c.txt"), None);
/// ```
pub fn inside_roots(cd: &str, dirs: &[String], path: &str) -> Option<String> {
    if let Some(full) = inside(cd, path) {
        return Some(full);
    }
    let windows = is_windows(cd) || is_windows(path);
    let full = normalize(path, Some(cd), windows)?;
    dirs.iter().find_map(|dir| inside(dir, &full))
}

fn is_windows(path: &str) -> bool {
    let b = path.as_bytes();
    (b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic()) || path.starts_with("\\\\")
}

fn is_absolute(path: &str, windows: bool) -> bool {
    if windows {
        is_windows(path)
    } else {
        path.starts_with('/')
    }
}

/// `path` made absolute against `base`, `.` and `..` resolved; `None` when
/// it is relative with no base, or climbs above the root.
fn normalize(path: &str, base: Option<&str>, windows: bool) -> Option<String> {
    let joined = if is_absolute(path, windows) {
        path.to_owned()
    } else {
        let sep = if windows { "\\" } else { "/" };
        format!("{}{sep}{path}", base?)
    };
    let seps: &[char] = if windows { &['/', '\\'] } else { &['/'] };
    let (root, rest) = if windows {
        joined.split_at(2)
    } else {
        ("", joined.as_str())
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split(seps) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    let sep = if windows { "\\" } else { "/" };
    Some(format!("{root}{sep}{}", parts.join(sep)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_paths() {
        assert_eq!(inside("/w/p", "/w/p").as_deref(), Some("/w/p"));
        assert_eq!(inside("/w/p/", "/w/p/x").as_deref(), Some("/w/p/x"));
        assert_eq!(inside("/w/p", "./x/./y").as_deref(), Some("/w/p/x/y"));
        assert_eq!(inside("/w/p", "../p/x").as_deref(), Some("/w/p/x"));
        assert_eq!(inside("/w/p", "../../../../etc/passwd"), None);
        assert_eq!(inside("/w/p", "/etc/passwd"), None);
        assert_eq!(inside("/", "/etc").as_deref(), Some("/etc"));
        assert_eq!(inside("relative", "/w"), None);
    }

    #[test]
    fn windows_paths() {
        assert_eq!(
            inside("C:\\Work\\P", "c:/work/p/a.txt").as_deref(),
            Some("c:\\work\\p\\a.txt")
        );
        assert_eq!(inside("C:\\Work\\P", "C:\\Work\\Q\\a.txt"), None);
        assert_eq!(
            inside("C:\\Work\\P", "sub\\a.txt").as_deref(),
            Some("C:\\Work\\P\\sub\\a.txt")
        );
    }
}
