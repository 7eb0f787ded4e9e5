//! [`Parts`]: a sequence that is almost always one item, the size of one
//! item: a string literal's parts (`ast::StrParts`, 16 bytes).
//!
//! Almost every literal is one part (its text), so one part is kept in the
//! value itself and more in a boxed vector: one pointer, placed beside the
//! part's own tag, so the whole is one part's size. A `SmallVec` of one
//! part was 24 bytes, and a literal is in most statements. Generic over the
//! part so that the tree's module uses this one, not the other way round.

use std::fmt;
use std::ops::Deref;

/// Parts in order; derefs to a slice of them.
#[derive(Clone, PartialEq)]
pub struct Parts<T>(Repr<T>);

// Not derived: that would ask for `T: Default`, which no part needs.
impl<T> Default for Parts<T> {
    fn default() -> Parts<T> {
        Parts(Repr::Empty)
    }
}

#[derive(Clone, PartialEq)]
enum Repr<T> {
    /// `""`.
    Empty,
    One(T),
    /// Two parts or more. A `Vec` inline would be three words: boxed, it is
    /// one, beside the tag.
    #[allow(clippy::box_collection)]
    Many(Box<Vec<T>>),
}

impl<T> Parts<T> {
    pub fn one(part: T) -> Parts<T> {
        Parts(Repr::One(part))
    }

    pub fn push(&mut self, part: T) {
        self.0 = match std::mem::replace(&mut self.0, Repr::Empty) {
            Repr::Empty => Repr::One(part),
            Repr::One(first) => Repr::Many(Box::new(vec![first, part])),
            Repr::Many(mut parts) => {
                parts.push(part);
                Repr::Many(parts)
            }
        };
    }

    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Repr::Empty => &[],
            Repr::One(part) => std::slice::from_ref(part),
            Repr::Many(parts) => parts,
        }
    }
}

impl<T> Deref for Parts<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<'a, T> IntoIterator for &'a Parts<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for Parts<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: serde::Serialize> serde::Serialize for Parts<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_read_back_in_order() {
        let mut parts = Parts::default();
        assert!(parts.is_empty());
        for (i, s) in ["a", "b", "c"].into_iter().enumerate() {
            parts.push(s);
            assert_eq!(parts.len(), i + 1);
            assert_eq!(parts.last(), Some(&s));
        }
        assert_eq!(parts.as_slice(), &["a", "b", "c"]);
        assert_eq!(Parts::one("x").as_slice(), &["x"]);
        assert_eq!(serde_json::to_string(&Parts::one("x")).unwrap(), r#"["x"]"#);
    }
}
