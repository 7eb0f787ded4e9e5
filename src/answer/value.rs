//! A validated answer: a tree that follows its shape, record fields by
//! position (the shape has their names), an absent optional field `None`.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

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
