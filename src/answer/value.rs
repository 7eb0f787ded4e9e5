//! A validated answer: a tree that follows its shape, record fields by
//! position (the shape has their names), an absent optional field `None`.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

/// The size of a node of the tree.
pub const NODE: usize = std::mem::size_of::<AnswerValue>();
/// What an `Rc<str>` keeps beside its text (its two counts).
pub const STR_COUNTS: usize = 2 * std::mem::size_of::<usize>();

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AnswerValue {
    /// A `STRING` or an enum literal.
    Str(Rc<str>),
    Int(i64),
    Bool(bool),
    List(#[serde(deserialize_with = "nested")] Vec<AnswerValue>),
    /// The fields in the shape's order; `None` where an optional field is absent.
    Record(#[serde(deserialize_with = "nested")] Vec<Option<AnswerValue>>),
}

/// How deep a decoded tree may nest: a validated answer is no deeper than
/// JSON's 128 (serde_json's limit); a snapshot's tree deeper than this is
/// refused rather than decoded by recursion until the stack overflows (a
/// few bytes a level: a million levels in 2 MB).
pub const MAX_DEPTH: usize = 128;

thread_local! {
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A list's or record's items, one level deeper, refused past [`MAX_DEPTH`].
fn nested<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    struct Level;
    impl Drop for Level {
        fn drop(&mut self) {
            DEPTH.set(DEPTH.get() - 1);
        }
    }
    if DEPTH.get() >= MAX_DEPTH {
        return Err(serde::de::Error::custom(format!(
            "a typed answer nested deeper than {MAX_DEPTH} levels"
        )));
    }
    DEPTH.set(DEPTH.get() + 1);
    let _level = Level;
    T::deserialize(d)
}

impl AnswerValue {
    /// The memory the value's tree takes beyond its own node: each list's
    /// and record's room, and each string's text with its counts.
    pub fn held_bytes(&self) -> usize {
        match self {
            AnswerValue::Str(s) => s.len() + STR_COUNTS,
            AnswerValue::Int(_) | AnswerValue::Bool(_) => 0,
            AnswerValue::List(items) => {
                items.capacity() * NODE + items.iter().map(AnswerValue::held_bytes).sum::<usize>()
            }
            AnswerValue::Record(fields) => {
                fields.capacity() * std::mem::size_of::<Option<AnswerValue>>()
                    + fields.iter().flatten().map(AnswerValue::held_bytes).sum::<usize>()
            }
        }
    }

    /// Whether the value follows shape `shape` of `shapes` (a snapshot's
    /// values are checked so, the tree being the VM's own otherwise).
    pub fn conforms(&self, shapes: &super::Shapes, shape: u32) -> bool {
        use super::Shape;
        match (shapes.get(shape), self) {
            (Some(Shape::Str), AnswerValue::Str(_))
            | (Some(Shape::Int), AnswerValue::Int(_))
            | (Some(Shape::Bool), AnswerValue::Bool(_)) => true,
            (Some(Shape::Enum(names)), AnswerValue::Str(s)) => names.iter().any(|n| **n == **s),
            // Children lie below their parent: the recursion ends.
            (Some(Shape::List(items)), AnswerValue::List(values)) => {
                *items < shape && values.iter().all(|v| v.conforms(shapes, *items))
            }
            (Some(Shape::Record(fields)), AnswerValue::Record(values)) => {
                fields.len() == values.len()
                    && fields.iter().zip(values).all(|(f, v)| match v {
                        None => f.optional,
                        Some(v) => f.shape < shape && v.conforms(shapes, f.shape),
                    })
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `depth` lists, one inside the other, around an integer, as bincode
    /// encodes them (a variant index, a length).
    fn lists(depth: usize) -> Vec<u8> {
        [3u8, 1].repeat(depth).into_iter().chain([1, 0]).collect()
    }

    #[test]
    fn a_decoded_tree_is_held_to_its_depth_and_the_count_starts_again() {
        let decode = |bytes: &[u8]| {
            bincode::serde::decode_from_slice::<AnswerValue, _>(bytes, bincode::config::standard())
                .map(|(v, _)| v)
        };
        for _ in 0..2 {
            assert!(decode(&lists(MAX_DEPTH)).is_ok());
            let deeper = decode(&lists(MAX_DEPTH + 1)).unwrap_err().to_string();
            assert!(deeper.contains("nested deeper than 128 levels"), "{deeper}");
            assert!(decode(&lists(1_000_000)).is_err());
        }
        // A truncated tree leaves no levels counted behind.
        assert!(decode(&lists(MAX_DEPTH)[..MAX_DEPTH]).is_err());
        assert!(decode(&lists(MAX_DEPTH)).is_ok());
    }
}
