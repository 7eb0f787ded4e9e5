//! [`Text`]: the immutable string the syntax tree holds names and literal
//! text in.
//!
//! Almost every name (`out_12`, `STDOUT`) and much literal text is short, so
//! up to [`INLINE`] bytes are kept in the value itself: building and dropping
//! the tree then costs no allocation for them. Longer text is a boxed
//! `Box<str>`: one pointer, so a `Text` is 16 bytes, and the length's unused
//! values leave room for the tag of an enum around it (`Option<Ident>`, a
//! path's root), which then costs nothing either.

use std::fmt;
use std::ops::Deref;

/// The longest text kept inline.
const INLINE: usize = 15;

/// An immutable string, inline when short. Derefs to `str`; compares,
/// hashes, prints and serializes as its text.
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    /// `bytes[..len]` is a whole `&str` copied in by [`Text::new`].
    Inline { len: Len, bytes: [u8; INLINE] },
    /// Boxed twice: a `Box<str>` is two words, which would make every
    /// `Text` 24 bytes for the rare long one.
    Heap(Box<Box<str>>),
}

/// The length of inline text: an enum, so that its 240 unused values can
/// hold the tags of enums around a `Text` (see the module documentation).
#[derive(Clone, Copy)]
#[repr(u8)]
enum Len {
    L0,
    L1,
    L2,
    L3,
    L4,
    L5,
    L6,
    L7,
    L8,
    L9,
    L10,
    L11,
    L12,
    L13,
    L14,
    L15,
}

impl Len {
    const ALL: [Len; INLINE + 1] = [
        Len::L0,
        Len::L1,
        Len::L2,
        Len::L3,
        Len::L4,
        Len::L5,
        Len::L6,
        Len::L7,
        Len::L8,
        Len::L9,
        Len::L10,
        Len::L11,
        Len::L12,
        Len::L13,
        Len::L14,
        Len::L15,
    ];
}

impl Text {
    pub fn new(text: &str) -> Text {
        if text.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            Text(Repr::Inline { len: Len::ALL[text.len()], bytes })
        } else {
            Text(Repr::Heap(Box::new(text.into())))
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline { len, bytes } => {
                // SAFETY: `new` copies exactly the bytes of a `&str` into
                // `bytes[..len]`, and the bytes are never changed afterwards,
                // so they are valid UTF-8.
                unsafe { std::str::from_utf8_unchecked(&bytes[..*len as usize]) }
            }
            Repr::Heap(text) => text,
        }
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::new(text)
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        if text.len() <= INLINE {
            Text::new(&text)
        } else {
            Text(Repr::Heap(Box::new(text.into_boxed_str())))
        }
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_text_read_back() {
        for s in ["", "x", "out_12", "é👍 mixed", &"a".repeat(INLINE), &"b".repeat(INLINE + 1)] {
            assert_eq!(Text::new(s).as_str(), s);
            assert_eq!(Text::from(s.to_string()).as_str(), s);
        }
        assert_eq!(std::mem::size_of::<Text>(), 16);
        assert_eq!(std::mem::size_of::<Option<Text>>(), 16);
        assert_eq!(Text::new("a"), "a");
        assert_eq!(serde_json::to_string(&Text::new("é\"")).unwrap(), r#""é\"""#);
    }
}
