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
