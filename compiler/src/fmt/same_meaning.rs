//! Formatting must not change what a plan means: the plan parsed from the
//! formatted text must equal the original apart from positions.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use crate::syntax::ast::{Item, Plan};
use crate::syntax::ast_json_stream::write_without_positions;
use crate::syntax::expr::with_source;

/// A syntax tree node as JSON with every position removed (`span` and
/// `*_span` fields), whole, `src` the text it was parsed from: for tests
/// that compare trees.
pub fn without_positions(src: &str, node: &impl Serialize) -> Value {
    // The AST holds only strings, numbers, booleans and enums: it always serializes.
    let mut value = with_source(src, || serde_json::to_value(node)).unwrap_or(Value::Null);
    strip(&mut value);
    value
}

fn strip(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|key, _| key != "span" && !key.ends_with("_span"));
            map.values_mut().for_each(strip);
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

/// An item as compact JSON without positions: what formatting must keep.
/// Kept instead of the tree while the formatted text is parsed again
/// (about 60 bytes a short statement, against its tree's 100 and more).
pub fn written(src: &str, item: &Item) -> Vec<u8> {
    let mut bytes = Vec::new();
    // Writing to memory fails only on an item that cannot be serialized,
    // which the AST has none of; an empty record then differs from any item.
    let _ = write_without_positions(&mut bytes, src, item);
    bytes
}

/// The index of the first top-level item of `after` that differs from
/// `before` ([`written`], item by item) apart from positions, if any. No
/// tree is built as JSON (a step of 200,000 statements, held twice so, took
/// 670 MiB): each item after is compared byte by byte as it is written.
pub fn first_difference(before: &[Vec<u8>], src: &str, after: &Plan) -> Option<usize> {
    (0..before.len().max(after.items.len())).find(|&i| match (before.get(i), after.items.get(i)) {
        (Some(expected), Some(item)) => {
            let mut compare = Compare { expected, at: 0 };
            // A difference stops the writing with an error.
            !(write_without_positions(&mut compare, src, item).is_ok() && compare.at == expected.len())
        }
        _ => true,
    })
}

/// A writer that compares what it is given with `expected`, failing at the
/// first byte that differs.
struct Compare<'a> {
    expected: &'a [u8],
    at: usize,
}

impl Write for Compare<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self.expected.get(self.at..self.at + bytes.len()) {
            Some(same) if same == bytes => {
                self.at += bytes.len();
                Ok(bytes.len())
            }
            _ => Err(io::Error::other("the items differ")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
