//! The contents of the literal tokens (`TokenKind::Str(i)`, `Heredoc(i)`),
//! kept only while the parser may still take them.

use std::collections::VecDeque;

/// Literal contents by token index. Indices grow for the whole file, but
/// only the entries from `first` on are held: the parser releases those
/// whose tokens it has left behind, so a file's literals are never all in
/// memory at once.
#[derive(Debug)]
pub(crate) struct Literals<T> {
    items: VecDeque<T>,
    /// The index of `items[0]`.
    first: u32,
}

impl<T> Default for Literals<T> {
    fn default() -> Self {
        Literals { items: VecDeque::new(), first: 0 }
    }
}

impl<T: Default> Literals<T> {
    /// Stores a literal's contents; returns its index.
    pub(crate) fn push(&mut self, item: T) -> u32 {
        self.items.push_back(item);
        self.first + self.items.len() as u32 - 1
    }

    /// Takes the contents at `index` (a default value if released or taken).
    pub(crate) fn take(&mut self, index: u32) -> T {
        index
            .checked_sub(self.first)
            .and_then(|i| self.items.get_mut(i as usize))
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Drops every entry up to and including `index`.
    pub(crate) fn release_through(&mut self, index: u32) {
        while self.first <= index && self.items.pop_front().is_some() {
            self.first += 1;
        }
    }

    /// Every entry, in index order (none released yet).
    pub(crate) fn into_vec(self) -> Vec<T> {
        debug_assert_eq!(self.first, 0, "entries were released");
        self.items.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_survive_releases() {
        let mut lits = Literals::default();
        assert_eq!((lits.push("a".to_string()), lits.push("b".to_string())), (0, 1));
        lits.release_through(0);
        assert_eq!(lits.push("c".to_string()), 2);
        assert_eq!(lits.take(0), "");
        assert_eq!(lits.take(2), "c");
        assert_eq!(lits.take(2), "");
        assert_eq!(lits.take(1), "b");
        lits.release_through(5);
        assert_eq!(lits.push("d".to_string()), 3);
        assert_eq!(lits.take(3), "d");
    }
}
