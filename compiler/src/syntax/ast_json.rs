//! `tissc parse FILE --emit ast-json`: the AST as JSON, for tools and LLMs.
//!
//! The output is the list of the plan's top-level items (pragmas, `TASK`,
//! `SETUP`, `STEP`, `DEFINE_TASK`, `SET_BUDGET`, `TYPE`), each an object with `type`,
//! its arguments and `span`, nested the same way for statements. The AST
//! serializes spans as byte offsets (`[start, end]` or
//! `{"start", "end"}`); here every `span` and
//! `*_span` field is rewritten into `{"line", "column", "end_line",
//! "end_column"}` (1-based, columns in Unicode scalar values, end exclusive),
//! the same positions as the JSON diagnostics.

use serde_json::{Map, Value};

use crate::source_file::SourceFile;
use crate::syntax::ast::Plan;
use crate::syntax::expr::with_source;

/// The plan's items as a JSON value, spans as line/column objects.
pub fn to_value(file: &SourceFile, plan: &Plan) -> Value {
    // The AST holds only strings, integers, booleans and enums: serializing it
    // cannot fail, but fall back to an empty list rather than panic.
    let items = with_source(&file.text, || serde_json::to_value(&plan.items));
    let mut value = items.unwrap_or(Value::Array(Vec::new()));
    rewrite_spans(file, &mut value);
    value
}

/// The plan's items as pretty-printed JSON (no trailing newline), built as
/// one value: the oracle the streamed writer (`ast_json_stream`, what
/// `tissc parse` runs) is tested against. Keys in a reading order: `type` (and the `kind`/`test` tags) first, then the other
/// fields alphabetically, `span` last; positions as line, column, end_line,
/// end_column.
#[cfg(test)]
pub(super) fn to_string_pretty(file: &SourceFile, plan: &Plan) -> String {
    let mut out = String::new();
    write_pretty(&mut out, &to_value(file, plan), 0);
    out
}

/// Where a key goes in an object: by rank, then alphabetically.
pub(super) fn key_rank(key: &str) -> u8 {
    match key {
        "type" => 0,
        "kind" | "test" => 1,
        "line" => 2,
        "column" => 3,
        "end_line" => 4,
        "end_column" => 5,
        "span" => 7,
        _ => 6,
    }
}

pub(super) fn write_pretty(out: &mut String, value: &Value, indent: usize) {
    const STEP: usize = 2;
    let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n(' ', n));
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                pad(out, indent + STEP);
                write_pretty(out, item, indent + STEP);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, indent);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| (key_rank(a.0), a.0).cmp(&(key_rank(b.0), b.0)));
            out.push_str("{\n");
            for (i, (key, item)) in entries.iter().enumerate() {
                pad(out, indent + STEP);
                out.push_str(&Value::String((*key).clone()).to_string());
                out.push_str(": ");
                write_pretty(out, item, indent + STEP);
                out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
            }
            pad(out, indent);
            out.push('}');
        }
        // Scalars and empty containers print as compact JSON.
        other => out.push_str(&other.to_string()),
    }
}

pub(super) fn is_span_key(key: &str) -> bool {
    key == "span" || key.ends_with("_span")
}

/// Rewrites every span field of the tree in place.
pub fn rewrite_spans(file: &SourceFile, value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_spans(file, v)),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match position(file, key, v) {
                    Some(pos) => *v = pos,
                    None => rewrite_spans(file, v),
                }
            }
        }
        _ => {}
    }
}

/// The span field `key: span`, either `[start, end]` or `{"start", "end"}`,
/// as `{"line", "column", "end_line", "end_column"}`; `None` if it is not one.
pub(super) fn position(file: &SourceFile, key: &str, span: &Value) -> Option<Value> {
    if !is_span_key(key) {
        return None;
    }
    let (start, end) = match span {
        Value::Array(pair) => match pair.as_slice() {
            [start, end] => (start, end),
            _ => return None,
        },
        Value::Object(map) if map.len() == 2 => (map.get("start")?, map.get("end")?),
        _ => return None,
    };
    let start = usize::try_from(start.as_u64()?).ok()?;
    let end = usize::try_from(end.as_u64()?).ok()?;
    let (a, b) = (file.line_col(start), file.line_col(end.max(start)));
    let mut map = Map::new();
    map.insert("line".into(), a.line.into());
    map.insert("column".into(), a.column.into());
    map.insert("end_line".into(), b.line.into());
    map.insert("end_column".into(), b.column.into());
    Some(Value::Object(map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::{Item, StrLit, StrPart};
    use crate::syntax::span::Span;

    #[test]
    fn spans_become_positions() {
        let file = SourceFile::new("p.tiss", "# é\nTASK \"é\"\n".to_string());
        let plan = Plan {
            items: vec![Item::Task {
                name: StrLit {
                    parts: crate::syntax::ast::StrParts::one(StrPart::Text { text: "é".into() }),
                    span: Span::new(10, 14),
                },
                span: Span::new(5, 14),
            }],
            bindings: 0,
        };
        let value = to_value(&file, &plan);
        let expected = serde_json::json!([{
            "type": "TASK",
            "name": {
                "parts": [{"kind": "text", "text": "é"}],
                "span": {"line": 2, "column": 6, "end_line": 2, "end_column": 9},
            },
            "span": {"line": 2, "column": 1, "end_line": 2, "end_column": 9},
        }]);
        assert_eq!(value, expected);
    }

    #[test]
    fn pretty_output_puts_type_first_and_span_last() {
        let file = SourceFile::new("p.tiss", "TASK \"t\"\n".to_string());
        let plan = Plan {
            items: vec![Item::Task {
                name: StrLit { parts: Default::default(), span: Span::new(5, 8) },
                span: Span::new(0, 8),
            }],
            bindings: 0,
        };
        let text = to_string_pretty(&file, &plan);
        let expected = r#"[
  {
    "type": "TASK",
    "name": {
      "parts": [],
      "span": {
        "line": 1,
        "column": 6,
        "end_line": 1,
        "end_column": 9
      }
    },
    "span": {
      "line": 1,
      "column": 1,
      "end_line": 1,
      "end_column": 9
    }
  }
]"#;
        assert_eq!(text, expected);
        let reparsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(reparsed, to_value(&file, &plan));
    }

    #[test]
    fn span_suffix_fields_are_rewritten_and_others_kept() {
        let file = SourceFile::new("p.tiss", "abc".to_string());
        let mut v = serde_json::json!({
            "dim_span": [0, 1],
            "span": {"start": 1, "end": 3},
            "spans": [0, 1],
            "x": {"span": "x"},
        });
        rewrite_spans(&file, &mut v);
        assert_eq!(v["dim_span"]["end_column"], 2);
        assert_eq!(v["span"], serde_json::json!({"line": 1, "column": 2, "end_line": 1, "end_column": 4}));
        assert_eq!(v["spans"], serde_json::json!([0, 1]));
        assert_eq!(v["x"]["span"], "x");
    }

    /// TissLang 1.1's nodes: a TYPE item (`"type": "TYPE"`), each kind of
    /// type (`"kind"`), PROMPT_AGENT's `into` with its `ty`, and EXISTS.
    #[test]
    fn typed_answers_serialize() {
        let src = "TASK \"t\"\nTYPE R = { v: \"a\" | \"b\", f?: LIST OF STRING, n: INT, o: BOOL, s: STRING, r: Other }\n\
                   STEP \"s\" {\n    PROMPT_AGENT \"q\" INTO r AS R\n    PROMPT_AGENT \"q\" INTO t\n    IF r.f EXISTS { }\n}\n";
        let (plan, diagnostics) = crate::parser::parse(src);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let file = SourceFile::new("p.tiss", src.to_string());
        let value = to_value(&file, &plan);
        let def = &value[1];
        assert_eq!(def["type"], "TYPE");
        assert_eq!(def["name"]["name"], "R");
        assert_eq!(def["span"], serde_json::json!({"line": 2, "column": 1, "end_line": 2, "end_column": 84}));
        let fields = &def["ty"]["fields"];
        assert_eq!(def["ty"]["kind"], "record");
        let kinds: Vec<&str> =
            fields.as_array().unwrap().iter().map(|f| f["ty"]["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["enum", "list", "int", "bool", "string", "named"]);
        assert_eq!(fields[0]["ty"]["literals"][1]["parts"][0]["text"], "b");
        assert_eq!(fields[1]["optional"], true);
        assert_eq!(fields[1]["ty"]["element"]["kind"], "string");
        assert_eq!(fields[1]["span"]["column"], 26);
        assert_eq!(fields[5]["ty"]["name"]["name"], "Other");
        let body = &value[2]["body"]["commands"];
        assert_eq!(body[0]["into"]["var"]["name"], "r");
        assert_eq!(
            body[0]["into"]["ty"],
            serde_json::json!({
                "kind": "named",
                "name": {"name": "R", "span": {"line": 4, "column": 32, "end_line": 4, "end_column": 33}},
                "span": {"line": 4, "column": 32, "end_line": 4, "end_column": 33},
            })
        );
        assert_eq!(body[1]["into"]["ty"], serde_json::Value::Null);
        assert_eq!(body[2]["condition"]["kind"], "exists");
        assert_eq!(body[2]["condition"]["operand"]["kind"], "path");
        // The pretty form is the same JSON.
        let reparsed: Value = serde_json::from_str(&to_string_pretty(&file, &plan)).unwrap();
        assert_eq!(reparsed, value);
    }
}
