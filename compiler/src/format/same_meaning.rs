//! Formatting must not change what a plan means: the plan parsed from the
//! formatted text must equal the original apart from positions.

use serde_json::Value;

use crate::ast::Plan;

/// The plan as JSON with every position removed (`span` and `*_span` fields).
pub fn without_positions(plan: &Plan) -> Value {
    // The AST holds only strings, numbers, booleans and enums: it always serializes.
    let mut value = serde_json::to_value(&plan.items).unwrap_or(Value::Null);
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

/// The index of the first top-level item that differs, if any.
pub fn first_difference(before: &Value, after: &Value) -> Option<usize> {
    let (Value::Array(a), Value::Array(b)) = (before, after) else {
        return (before != after).then_some(0);
    };
    (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))
}
