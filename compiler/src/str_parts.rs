//! [`StrParts`]: the parts of a string literal, 16 bytes.
//!
//! Almost every literal is one part (its text), so one part is kept in the
//! value itself and more in a boxed vector: one pointer, placed beside the
//! part's own tag, so the whole is one part's size. A `SmallVec` of one
//! part was 24 bytes, and a literal is in most statements.

use std::fmt;
use std::ops::Deref;

use crate::ast::StrPart;

/// A string literal's parts in order; derefs to a slice of them.
#[derive(Clone, Default, PartialEq)]
pub struct StrParts(Repr);

#[derive(Clone, Default, PartialEq)]
enum Repr {
    /// `""`.
    #[default]
    Empty,
    One(StrPart),
    /// Two parts or more. A `Vec` inline would be three words: boxed, it is
    /// one, beside the tag.
    #[allow(clippy::box_collection)]
    Many(Box<Vec<StrPart>>),
}

impl StrParts {
    pub fn one(part: StrPart) -> StrParts {
        StrParts(Repr::One(part))
    }

    pub fn push(&mut self, part: StrPart) {
        self.0 = match std::mem::take(&mut self.0) {
            Repr::Empty => Repr::One(part),
            Repr::One(first) => Repr::Many(Box::new(vec![first, part])),
            Repr::Many(mut parts) => {
                parts.push(part);
                Repr::Many(parts)
            }
        };
    }

    pub fn as_slice(&self) -> &[StrPart] {
        match &self.0 {
            Repr::Empty => &[],
            Repr::One(part) => std::slice::from_ref(part),
            Repr::Many(parts) => parts,
        }
    }
}

impl Deref for StrParts {
    type Target = [StrPart];

    fn deref(&self) -> &[StrPart] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a StrParts {
    type Item = &'a StrPart;
    type IntoIter = std::slice::Iter<'a, StrPart>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl fmt::Debug for StrParts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl serde::Serialize for StrParts {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::Text;

    fn text(s: &str) -> StrPart {
        StrPart::Text { text: Text::new(s) }
    }

    #[test]
    fn parts_read_back_in_order() {
        let mut parts = StrParts::default();
        assert!(parts.is_empty());
        for (i, s) in ["a", "b", "c"].into_iter().enumerate() {
            parts.push(text(s));
            assert_eq!(parts.len(), i + 1);
            assert_eq!(parts.last(), Some(&text(s)));
        }
        assert_eq!(parts.as_slice(), &[text("a"), text("b"), text("c")]);
        assert_eq!(StrParts::one(text("x")).as_slice(), &[text("x")]);
        assert_eq!(
            serde_json::to_string(&StrParts::one(text("x"))).unwrap(),
            r#"[{"kind":"text","text":"x"}]"#
        );
        assert_eq!(std::mem::size_of::<StrParts>(), 16);
    }
}
