//! Typed model answers (TissLang 1.1, `PROMPT_AGENT … INTO x AS T`): the
//! shapes a module declares (`shape.rs`), the values of those shapes
//! (`value.rs`), the JSON Schema the compiler derives from a shape once
//! (`schema.rs`), how a model's text is parsed and checked against a shape
//! (`validate.rs`), and how a value is printed back (`render.rs`).
//!
//! Both sides use it: the compiler builds shapes and their schemas, the VM
//! validates answers and prints them.

pub mod shape;
pub mod value;

pub use shape::{Shape, ShapeField, Shapes};
pub use value::AnswerValue;
