//! How a typed answer is printed: as JSON (the report's `"actual"`, a
//! snapshot read by a person, the repair request) and as the text a plan's
//! `${r}` interpolates (book: reference/types.md).
//!
//! A value is printed by its own structure; the shape only names a record's
//! fields. A value that does not follow its shape (only a damaged snapshot
//! could hold one) still prints, a record without its names as an array of
//! its fields.

use std::fmt::Write;

use serde_json::{Map, Value};

use super::shape::{Shape, ShapeField, Shapes};
use super::value::AnswerValue;

type ShapeRef<'s> = Option<&'s Shape<Box<str>>>;

/// Appends `value`, of shape `shape`, to `out` as compact JSON; an absent
/// optional field is left out.
pub fn write_json(shapes: &Shapes, shape: u32, value: &AnswerValue, out: &mut String) {
    write(shapes, shapes.get(shape), value, out);
}

/// `value`, of shape `shape`, as a JSON tree (fields in declared order).
pub fn to_json(shapes: &Shapes, shape: u32, value: &AnswerValue) -> Value {
    tree(shapes, shapes.get(shape), value)
}

/// `value` as `${…}` interpolates it outside a RUN command: a string or an
/// enum literal as its text, an INT as itself, a BOOL as `true`/`false`, a
/// list or record as compact JSON.
pub fn to_text(shapes: &Shapes, shape: u32, value: &AnswerValue) -> String {
    match value {
        AnswerValue::Str(s) => s.to_string(),
        AnswerValue::Int(n) => n.to_string(),
        AnswerValue::Bool(b) => b.to_string(),
        AnswerValue::List(_) | AnswerValue::Record(_) => {
            let mut out = String::new();
            write_json(shapes, shape, value, &mut out);
            out
        }
    }
}

fn element<'s>(shapes: &'s Shapes, shape: ShapeRef<'s>) -> ShapeRef<'s> {
    match shape {
        Some(Shape::List(e)) => shapes.get(*e),
        _ => None,
    }
}

/// The fields of a record shape, if `slots` fit them.
fn fields<'s>(shape: ShapeRef<'s>, slots: &[Option<AnswerValue>]) -> Option<&'s [ShapeField<Box<str>>]> {
    match shape {
        Some(Shape::Record(fields)) if fields.len() == slots.len() => Some(fields),
        _ => None,
    }
}

fn write(shapes: &Shapes, shape: ShapeRef<'_>, value: &AnswerValue, out: &mut String) {
    match value {
        AnswerValue::Str(s) => write_str(s, out),
        // Writing to a String cannot fail.
        AnswerValue::Int(n) => _ = write!(out, "{n}"),
        AnswerValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        AnswerValue::List(items) => {
            let element = element(shapes, shape);
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(shapes, element, item, out);
            }
            out.push(']');
        }
        AnswerValue::Record(slots) => match fields(shape, slots) {
            Some(fields) => {
                out.push('{');
                let present = fields.iter().zip(slots).filter_map(|(f, s)| Some((f, s.as_ref()?)));
                for (i, (field, value)) in present.enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(&field.name, out);
                    out.push(':');
                    write(shapes, shapes.get(field.shape), value, out);
                }
                out.push('}');
            }
            None => {
                out.push('[');
                for (i, slot) in slots.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    match slot {
                        Some(value) => write(shapes, None, value, out),
                        None => out.push_str("null"),
                    }
                }
                out.push(']');
            }
        },
    }
}

fn tree(shapes: &Shapes, shape: ShapeRef<'_>, value: &AnswerValue) -> Value {
    match value {
        AnswerValue::Str(s) => Value::from(&**s),
        AnswerValue::Int(n) => Value::from(*n),
        AnswerValue::Bool(b) => Value::from(*b),
        AnswerValue::List(items) => {
            let element = element(shapes, shape);
            Value::Array(items.iter().map(|item| tree(shapes, element, item)).collect())
        }
        AnswerValue::Record(slots) => match fields(shape, slots) {
            Some(fields) => {
                let mut map = Map::with_capacity(fields.len());
                for (field, slot) in fields.iter().zip(slots) {
                    if let Some(value) = slot {
                        map.insert(field.name.to_string(), tree(shapes, shapes.get(field.shape), value));
                    }
                }
                Value::Object(map)
            }
            None => Value::Array(
                slots.iter().map(|s| s.as_ref().map_or(Value::Null, |v| tree(shapes, None, v))).collect(),
            ),
        },
    }
}

/// Appends `s` as a JSON string, escaped as serde_json does: `"`, `\` and
/// the control characters, nothing else.
pub(crate) fn write_str(s: &str, out: &mut String) {
    out.push('"');
    let mut start = 0;
    for (i, byte) in s.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..0x20 => "",
            _ => continue,
        };
        // `i` is at an ASCII byte, so on a character boundary.
        out.push_str(&s[start..i]);
        match escape {
            "" => _ = write!(out, "\\u{byte:04x}"),
            _ => out.push_str(escape),
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use proptest::prelude::*;

    use super::*;
    use crate::answer::{parse, review};

    fn s(text: &str) -> AnswerValue {
        AnswerValue::Str(Rc::from(text))
    }

    fn a_review() -> AnswerValue {
        let finding = |path, line: Option<i64>, ok| {
            AnswerValue::Record(vec![Some(s(path)), line.map(AnswerValue::Int), Some(AnswerValue::Bool(ok))])
        };
        AnswerValue::Record(vec![
            Some(s("reject")),
            Some(AnswerValue::List(vec![s("says \"no\"\n"), s("\u{1}ü")])),
            Some(AnswerValue::Int(-3)),
            None,
            Some(AnswerValue::List(vec![finding("a.rs", Some(7), false), finding("b.rs", None, true)])),
        ])
    }

    #[test]
    fn writes_compact_json_without_absent_fields() {
        let expected = concat!(
            r#"{"verdict":"reject","reasons":["says \"no\"\n","\u0001ü"],"risk":-3,"#,
            r#""findings":[{"path":"a.rs","line":7,"ok":false},{"path":"b.rs","ok":true}]}"#
        );
        let shapes = review();
        let mut out = String::from("x");
        write_json(&shapes, 7, &a_review(), &mut out);
        assert_eq!(out, format!("x{expected}"));
        assert_eq!(to_json(&shapes, 7, &a_review()).to_string(), expected);
        assert_eq!(to_text(&shapes, 7, &a_review()), expected);
    }

    #[test]
    fn interpolates_leaves_as_their_text() {
        let shapes = review();
        assert_eq!(to_text(&shapes, 1, &s("a \"b\"")), "a \"b\"");
        assert_eq!(to_text(&shapes, 0, &s("approve")), "approve");
        assert_eq!(to_text(&shapes, 3, &AnswerValue::Int(-42)), "-42");
        assert_eq!(to_text(&shapes, 4, &AnswerValue::Bool(true)), "true");
        assert_eq!(to_text(&shapes, 2, &AnswerValue::List(vec![s("a"), s("b")])), r#"["a","b"]"#);
        assert_eq!(to_text(&shapes, 2, &AnswerValue::List(vec![])), "[]");
    }

    #[test]
    fn a_value_off_its_shape_still_prints() {
        let shapes = review();
        let record = AnswerValue::Record(vec![Some(AnswerValue::Int(1)), None]);
        assert_eq!(to_text(&shapes, 7, &record), "[1,null]");
        assert_eq!(to_json(&shapes, 99, &record).to_string(), "[1,null]");
    }

    /// A shape written as a tree, flattened into a table by [`table`].
    #[derive(Debug, Clone)]
    enum Tree {
        Str,
        Int,
        Bool,
        Enum(Vec<String>),
        List(Box<Tree>),
        Record(Vec<(String, bool, Tree)>),
    }

    fn tree_strategy() -> impl Strategy<Value = Tree> {
        let leaf = prop_oneof![
            Just(Tree::Str),
            Just(Tree::Int),
            Just(Tree::Bool),
            prop::collection::btree_set("[a-z ]{0,4}", 1..4)
                .prop_map(|n| Tree::Enum(n.into_iter().collect())),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                inner.clone().prop_map(|t| Tree::List(Box::new(t))),
                prop::collection::btree_map("[a-z_]{1,5}", (any::<bool>(), inner), 0..4)
                    .prop_map(|m| Tree::Record(m.into_iter().map(|(k, (o, t))| (k, o, t)).collect())),
            ]
        })
    }

    /// Appends `tree` and what it refers to; returns its index.
    fn table(tree: &Tree, shapes: &mut Vec<Shape<Box<str>>>) -> u32 {
        let shape = match tree {
            Tree::Str => Shape::Str,
            Tree::Int => Shape::Int,
            Tree::Bool => Shape::Bool,
            Tree::Enum(names) => Shape::Enum(names.iter().map(|n| n.as_str().into()).collect()),
            Tree::List(element) => Shape::List(table(element, shapes)),
            Tree::Record(fields) => Shape::Record(
                fields
                    .iter()
                    .map(|(name, optional, t)| ShapeField {
                        name: name.as_str().into(),
                        optional: *optional,
                        shape: table(t, shapes),
                    })
                    .collect(),
            ),
        };
        shapes.push(shape);
        shapes.len() as u32 - 1
    }

    fn value_strategy(shapes: &Shapes, index: u32) -> BoxedStrategy<AnswerValue> {
        match shapes.at(index) {
            Shape::Str => any::<String>().prop_map(|s| AnswerValue::Str(s.into())).boxed(),
            Shape::Int => any::<i64>().prop_map(AnswerValue::Int).boxed(),
            Shape::Bool => any::<bool>().prop_map(AnswerValue::Bool).boxed(),
            Shape::Enum(names) => {
                let names: Vec<Rc<str>> = names.iter().map(|n| Rc::from(&**n)).collect();
                prop::sample::select(names).prop_map(AnswerValue::Str).boxed()
            }
            Shape::List(e) => {
                prop::collection::vec(value_strategy(shapes, *e), 0..4).prop_map(AnswerValue::List).boxed()
            }
            Shape::Record(fields) => {
                let fields: Vec<BoxedStrategy<Option<AnswerValue>>> = fields
                    .iter()
                    .map(|f| match f.optional {
                        true => prop::option::of(value_strategy(shapes, f.shape)).boxed(),
                        false => value_strategy(shapes, f.shape).prop_map(Some).boxed(),
                    })
                    .collect();
                fields.prop_map(AnswerValue::Record).boxed()
            }
        }
    }

    fn shapes_and_value() -> impl Strategy<Value = (Shapes, u32, AnswerValue)> {
        tree_strategy().prop_flat_map(|tree| {
            let mut table_ = Vec::new();
            let top = table(&tree, &mut table_);
            let shapes = Shapes { shapes: table_ };
            let value = value_strategy(&shapes, top);
            (Just(shapes), Just(top), value)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn what_is_written_parses_back((shapes, top, value) in shapes_and_value()) {
            let mut text = String::new();
            write_json(&shapes, top, &value, &mut text);
            prop_assert_eq!(parse(&shapes, top, &text), Ok(value.clone()));
            let tree = to_json(&shapes, top, &value);
            prop_assert_eq!(tree.to_string(), text);
        }

        #[test]
        fn any_text_is_refused_or_parsed_never_a_panic(text in ".{0,200}", top in 0u32..9) {
            let _ = parse(&review(), top, &text);
        }
    }
}
