//! `settings.maxMessages`: keep the newest N conversation messages without
//! separating an assistant tool call from its results.

use super::conversation::Role;

/// Index of the first message kept when at most `max` of `roles` (oldest
/// first) may stay. The kept messages are the newest ones; a tool result whose
/// assistant call fell outside is dropped too, so the window never starts on
/// an orphaned tool result. Every kept assistant call keeps its results, since
/// they come after it.
pub fn window_start(roles: &[Role], max: usize) -> usize {
    let mut start = roles.len().saturating_sub(max);
    while start < roles.len() && roles[start] == Role::Tool {
        start += 1;
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;
    use Role::*;

    #[test]
    fn never_starts_on_a_tool_result() {
        let roles = [
            User, Assistant, Tool, Tool, Assistant, User, Assistant, Tool,
        ];
        assert_eq!(window_start(&roles, 100), 0);
        assert_eq!(window_start(&roles, 8), 0);
        assert_eq!(window_start(&roles, 6), 4); // would start on a Tool (index 2)
        assert_eq!(window_start(&roles, 5), 4); // would start on a Tool (index 3)
        assert_eq!(window_start(&roles, 4), 4);
        assert_eq!(window_start(&roles, 1), 8); // only the orphaned result: nothing
        assert_eq!(window_start(&roles, 0), 8);
        assert_eq!(window_start(&[], 3), 0);
    }
}
