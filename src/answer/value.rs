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
    List(Vec<AnswerValue>),
    /// The fields in the shape's order; `None` where an optional field is absent.
    Record(Vec<Option<AnswerValue>>),
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
