//! Typed model answers (TissLang 1.1, `PROMPT_AGENT … INTO x AS T`): the
//! shapes a module declares (`shape.rs`), the values of those shapes
//! (`value.rs`), the JSON Schema the compiler derives from a shape once
//! (`schema.rs`), how a model's text is parsed and checked against a shape
//! (`validate.rs`), and how a value is printed back (`render.rs`).
//!
//! Both sides use it: the compiler builds shapes and their schemas, the VM
//! validates answers and prints them.

pub mod render;
pub mod schema;
pub mod shape;
pub mod validate;
pub mod value;

pub use render::{to_json, to_text, write_json};
pub use schema::{schema, schema_text};
pub use shape::{Shape, ShapeField, Shapes};
pub use validate::{Invalid, parse};
pub use value::AnswerValue;

/// The tests' shape table, the `Review` of the book's reference/types.md with a nested record:
/// 0 `"approve" | "reject"`, 1 `STRING`, 2 `LIST OF STRING`, 3 `INT`,
/// 4 `BOOL`, 5 `{ path: STRING, line?: INT, ok: BOOL }`, 6 `LIST OF` 5,
/// 7 `{ verdict, reasons, risk, files?, findings }`.
#[cfg(test)]
pub(crate) fn review() -> Shapes {
    let field = |name: &str, optional, shape| ShapeField { name: name.into(), optional, shape };
    Shapes {
        shapes: vec![
            Shape::Enum(vec!["approve".into(), "reject".into()]),
            Shape::Str,
            Shape::List(1),
            Shape::Int,
            Shape::Bool,
            Shape::Record(vec![field("path", false, 1), field("line", true, 3), field("ok", false, 4)]),
            Shape::List(5),
            Shape::Record(vec![
                field("verdict", false, 0),
                field("reasons", false, 2),
                field("risk", false, 3),
                field("files", true, 2),
                field("findings", false, 6),
            ]),
        ],
    }
}
