//! Formatting must not change what a plan means: the plan parsed from the
//! formatted text must equal the original apart from positions.

use serde::Serialize;
use serde_json::Value;

use crate::syntax::ast::Plan;

/// A syntax tree node as JSON with every position removed (`span` and `*_span` fields).
pub fn without_positions(node: &impl Serialize) -> Value {
    // The AST holds only strings, numbers, booleans and enums: it always serializes.
    let mut value = serde_json::to_value(node).unwrap_or(Value::Null);
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

/// The index of the first top-level item that differs apart from positions,
/// if any. Item by item, so that only one item's JSON is held at a time.
pub fn first_difference(before: &Plan, after: &Plan) -> Option<usize> {
    (0..before.items.len().max(after.items.len())).find(|&i| {
        match (before.items.get(i), after.items.get(i)) {
            (Some(a), Some(b)) => without_positions(a) != without_positions(b),
            _ => true,
        }
    })
}
