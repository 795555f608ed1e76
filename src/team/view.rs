//! Which transcript messages concern a member, as a context source the
//! budget engine reads.

use std::borrow::Cow;

use crate::error::Result;
use crate::prompt::input::{ContextMessage, ContextSource};
use crate::prompt::selection::is_visible_to;

/// Whether a message `from` → `to` concerns `member`: addressed to it, sent
/// by it, or sent to everyone (`to` missing, empty or `all`).
pub fn concerns(member: &str, from: &str, to: Option<&str>) -> bool {
    is_visible_to(Some(member), from, to)
}

/// Some messages of a source, by index, oldest first: what a prompt's
/// context is assembled from.
pub struct Selected<'a> {
    source: &'a dyn ContextSource,
    /// Indices into `source`, increasing.
    pub indices: Vec<usize>,
}

impl<'a> Selected<'a> {
    /// The messages of `source` from index `start` on that concern `member`;
    /// with `own` false, leaving out those it sent. Reads only their routes.
    pub fn concerning(
        source: &'a dyn ContextSource,
        member: &str,
        start: usize,
        own: bool,
    ) -> Result<Selected<'a>> {
        let mut indices = Vec::new();
        for index in start..source.count() {
            let (from, to) = source.route(index)?;
            if concerns(member, &from, to.as_deref()) && (own || from != member) {
                indices.push(index);
            }
        }
        Ok(Selected { source, indices })
    }
}

impl ContextSource for Selected<'_> {
    fn count(&self) -> usize {
        self.indices.len()
    }
    fn message(&self, index: usize) -> Result<Cow<'_, ContextMessage>> {
        match self.indices.get(index) {
            Some(&i) => self.source.message(i),
            // Out of range: the source's own error for its end.
            None => self.source.message(self.source.count()),
        }
    }
    fn route(&self, index: usize) -> Result<(String, Option<String>)> {
        match self.indices.get(index) {
            Some(&i) => self.source.route(i),
            None => self.source.route(self.source.count()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_what_concerns_the_member_from_a_start() {
        let t = vec![
            ContextMessage::new("a", Some("carol"), "0"),
            ContextMessage::new("carol", None, "1"),
            ContextMessage::new("a", Some("max"), "2"),
            ContextMessage::new("a", Some("all"), "3"),
            ContextMessage::new("a", Some(""), "4"),
            ContextMessage::new("carol", Some("max"), "5"),
        ];
        let all = Selected::concerning(&t, "carol", 0, true).unwrap();
        assert_eq!(all.indices, [0, 1, 3, 4, 5]);
        assert_eq!(all.message(1).unwrap().content, "1");
        let new = Selected::concerning(&t, "carol", 1, false).unwrap();
        assert_eq!(new.indices, [3, 4]);
        assert!(new.message(2).is_err());
        assert_eq!(
            Selected::concerning(&t, "carol", 6, true).unwrap().count(),
            0
        );
    }
}
