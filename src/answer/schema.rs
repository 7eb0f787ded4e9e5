//! The JSON Schema of a shape, what the VM asks a provider to keep to
//! (book: reference/types.md). The compiler derives it once per typed prompt.
//!
//! It is written in OpenAI's *strict* structured-output form, which the
//! others accept as well: records are closed (`additionalProperties: false`)
//! and list every property in `required`, an optional field being sent as
//! its type or `null` (a `null` and an absent optional field mean the same to
//! validation). It keeps to the keywords llama.cpp's json-schema-to-grammar
//! understands: `type`, `enum`, `items`, `properties`, `required`,
//! `additionalProperties`, `anyOf`.

use serde_json::{Map, Value};

use super::shape::{Shape, Shapes};

/// The schema of shape `shape`.
///
/// OpenAI's strict mode wants an object at the top; a plan may ask for a
/// `LIST OF …` or a scalar, which Ollama and llama.cpp take as is. The VM
/// sends the schema of the type the plan wrote and does not wrap it: a
/// wrapper would change the answer the model writes and validation reads.
///
/// A shape that is not in the table (or, in a table not built by
/// [`Shapes::resolve`], refers to one not before it) has the schema `false`,
/// which nothing matches, as nothing passes [`super::parse`] for it.
pub fn schema(shapes: &Shapes, shape: u32) -> Value {
    node(shapes, shape, u32::MAX)
}

/// [`schema`] as compact text, properties in declared order (serde_json
/// keeps insertion order here), so the same type gives the same bytes.
pub fn schema_text(shapes: &Shapes, shape: u32) -> String {
    schema(shapes, shape).to_string()
}

/// The schema of shape `index`, which must be below `limit` (its parent's
/// index): that is what keeps a hand-made cyclic table from recursing forever.
fn node(shapes: &Shapes, index: u32, limit: u32) -> Value {
    let Some(shape) = shapes.get(index).filter(|_| index < limit) else {
        return Value::Bool(false);
    };
    match shape {
        Shape::Str => object([("type", "string".into())]),
        Shape::Int => object([("type", "integer".into())]),
        Shape::Bool => object([("type", "boolean".into())]),
        Shape::Enum(names) => {
            let names = names.iter().map(|n| Value::from(&**n)).collect();
            object([("type", "string".into()), ("enum", Value::Array(names))])
        }
        Shape::List(element) => object([("type", "array".into()), ("items", node(shapes, *element, index))]),
        Shape::Record(fields) => {
            let mut properties = Map::with_capacity(fields.len());
            for field in fields {
                let mut schema = node(shapes, field.shape, index);
                if field.optional {
                    let null = object([("type", "null".into())]);
                    schema = object([("anyOf", Value::Array(vec![schema, null]))]);
                }
                properties.insert(field.name.to_string(), schema);
            }
            let required = fields.iter().map(|f| Value::from(&*f.name)).collect();
            object([
                ("type", "object".into()),
                ("properties", Value::Object(properties)),
                ("required", Value::Array(required)),
                ("additionalProperties", false.into()),
            ])
        }
    }
}

/// An object of these keys in this order (`json!` would copy a `Value`
/// it is given by serializing it again).
fn object<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{ShapeField, review};

    #[test]
    fn a_record_with_an_enum_lists_an_optional_field_and_a_nested_record() {
        let expected = concat!(
            r#"{"type":"object","properties":{"#,
            r#""verdict":{"type":"string","enum":["approve","reject"]},"#,
            r#""reasons":{"type":"array","items":{"type":"string"}},"#,
            r#""risk":{"type":"integer"},"#,
            r#""files":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]},"#,
            r#""findings":{"type":"array","items":{"type":"object","properties":{"#,
            r#""path":{"type":"string"},"#,
            r#""line":{"anyOf":[{"type":"integer"},{"type":"null"}]},"#,
            r#""ok":{"type":"boolean"}},"#,
            r#""required":["path","line","ok"],"additionalProperties":false}}},"#,
            r#""required":["verdict","reasons","risk","files","findings"],"additionalProperties":false}"#,
        );
        assert_eq!(schema_text(&review(), 7), expected);
    }

    #[test]
    fn scalars_and_lists_at_the_top_are_not_wrapped() {
        let shapes = review();
        assert_eq!(schema_text(&shapes, 3), r#"{"type":"integer"}"#);
        assert_eq!(schema_text(&shapes, 2), r#"{"type":"array","items":{"type":"string"}}"#);
        assert_eq!(schema_text(&shapes, 0), r#"{"type":"string","enum":["approve","reject"]}"#);
    }

    /// Only what llama.cpp's json-schema-to-grammar (and OpenAI strict) know.
    #[test]
    fn keeps_to_the_keywords_every_provider_understands() {
        fn keywords(schema: &Value, found: &mut Vec<String>) {
            let Value::Object(map) = schema else { return };
            for (key, value) in map {
                found.push(key.clone());
                match (key.as_str(), value) {
                    ("properties", Value::Object(properties)) => {
                        properties.values().for_each(|s| keywords(s, found))
                    }
                    ("items", s) => keywords(s, found),
                    ("anyOf", Value::Array(all)) => all.iter().for_each(|s| keywords(s, found)),
                    _ => {}
                }
            }
        }
        let mut found = Vec::new();
        keywords(&schema(&review(), 7), &mut found);
        let known = ["type", "enum", "items", "properties", "required", "additionalProperties", "anyOf"];
        assert!(found.iter().all(|k| known.contains(&k.as_str())), "{found:?}");
    }

    #[test]
    fn a_missing_or_cyclic_shape_matches_nothing() {
        let shapes = review();
        assert_eq!(schema(&shapes, 99), Value::Bool(false));
        let cyclic = Shapes {
            shapes: vec![Shape::Record(vec![ShapeField { name: "again".into(), optional: false, shape: 0 }])],
        };
        assert_eq!(schema(&cyclic, 0)["properties"]["again"], Value::Bool(false));
    }
}
