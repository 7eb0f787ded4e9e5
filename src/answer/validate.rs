//! A model's answer, parsed as JSON and checked against its shape in one
//! pass (book: reference/types.md): serde_json drives a visitor that follows the shape, so
//! no JSON tree is built on the way, and the value comes out as an
//! [`AnswerValue`]. Every problem is reported, not just the first, each with
//! the JSON path where it is: the errors go back to the model in the repair
//! request and then into the run's report.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::render::write_str;
use super::shape::{Shape, ShapeField, Shapes};
use super::value::{AnswerValue, NODE, STR_COUNTS};

/// The most memory an answer's value may take as it is built (64 MiB, as
/// much as a text may hold in tissvm): a JSON text of small items makes a
/// tree many times its length (`[1,1,…]`: 2 bytes an item, 32 as a node).
pub const MAX_VALUE: usize = 64 << 20;

/// Why an answer was refused: what was wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub errors: Vec<String>,
}

/// Errors shown by `Display`: enough for a person or a model to act on.
const SHOWN: usize = 20;
/// Errors kept: an answer of a million wrong elements need not make as many
/// messages.
const COLLECTED: usize = 100;
/// Characters of what was found that a message quotes.
const EXCERPT: usize = 60;

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.errors.iter().take(SHOWN).enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            f.write_str(error)?;
        }
        let more = self.errors.len().saturating_sub(SHOWN);
        if more > 0 {
            // Past COLLECTED, errors were no longer counted.
            let least = if self.errors.len() >= COLLECTED { "at least " } else { "" };
            write!(f, "; … and {least}{more} more")?;
        }
        Ok(())
    }
}

impl std::error::Error for Invalid {}

/// The answer `text` as a value of shape `shape`, or every reason it is not.
///
/// `text` is JSON, with whitespace around it and at most one Markdown code
/// fence (```` ```json ```` or ```` ``` ````) around that; nothing else is
/// taken out of prose. Records are closed; an optional field may be absent
/// or `null`; an `INT` is any JSON number with an integer value (`3.0` too,
/// as JSON Schema has it) that fits in 64 bits; an enum literal matches
/// exactly. Of a key given twice the last counts (an error in an earlier
/// one is still reported).
pub fn parse(shapes: &Shapes, shape: u32, text: &str) -> Result<AnswerValue, Invalid> {
    let (json, lines_before) = unfence(text);
    if json.trim().is_empty() {
        return Err(Invalid { errors: vec!["the answer is empty".into()] });
    }
    let cx = Cx { shapes, errors: RefCell::new(Vec::new()), room: Cell::new(MAX_VALUE) };
    let mut de = serde_json::Deserializer::from_str(json);
    let got = Seed { cx: &cx, shape, path: Path::Root, nullable: false }
        .deserialize(&mut de)
        .and_then(|value| de.end().map(|()| value));
    if cx.room.get() == FULL {
        return Err(Invalid {
            errors: vec![format!(
                "the answer is too large: as a value it would take more than {} MiB (a list or record of \
                 fewer, larger items fits)",
                MAX_VALUE >> 20
            )],
        });
    }
    let errors = cx.errors.into_inner();
    match got {
        Err(e) => Err(Invalid { errors: vec![not_json(&e, lines_before)] }),
        Ok(Some(value)) if errors.is_empty() => Ok(value),
        Ok(_) => Err(Invalid { errors }),
    }
}

/// The text inside one Markdown code fence if `text` is fenced (an opening
/// line of three backticks and at most a language tag), and how many lines
/// come before it, so that serde's line numbers can be told as in `text`.
fn unfence(text: &str) -> (&str, usize) {
    let trimmed = text.trim();
    let fenced = trimmed.strip_prefix("```").and_then(|rest| rest.strip_suffix("```"));
    let Some((tag, body)) = fenced.and_then(|inner| inner.split_once('\n')) else {
        return (text, 0);
    };
    if !tag.trim().chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return (text, 0);
    }
    let before = text.len() - text.trim_start().len() + "```".len() + tag.len() + 1;
    (body, text[..before].matches('\n').count())
}

/// serde's message, its line counted in the whole answer (the body of a
/// fence starts a line, so the column stands).
fn not_json(e: &serde_json::Error, lines_before: usize) -> String {
    let message = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let message = message.strip_suffix(&position).unwrap_or(&message);
    format!("not JSON: {message} at line {} column {}", e.line() + lines_before, e.column())
}

/// Where a value is, `$.files[2]`: a chain through the stack of the walk,
/// made into text only for an error.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Field(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => f.write_str("$"),
            Path::Field(parent, name) => write!(f, "{parent}.{name}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// What the whole walk shares.
struct Cx<'s> {
    shapes: &'s Shapes,
    errors: RefCell<Vec<String>>,
    /// What the value may still take of [`MAX_VALUE`]; [`FULL`] once it
    /// would have passed it (the walk then stops).
    room: Cell<usize>,
}

/// [`Cx::room`] once the value would not fit.
const FULL: usize = usize::MAX;

impl Cx<'_> {
    /// Takes `bytes` of the room, or stops the walk with an error if they
    /// do not fit.
    fn take<E: serde::de::Error>(&self, bytes: usize) -> Result<(), E> {
        match self.room.get().checked_sub(bytes) {
            Some(left) if self.room.get() != FULL => {
                self.room.set(left);
                Ok(())
            }
            _ => {
                self.room.set(FULL);
                Err(E::custom("the answer is too large"))
            }
        }
    }

    /// Records an error at `path`; the message is made only if it is kept.
    fn error(&self, path: &Path<'_>, message: impl FnOnce() -> String) {
        let mut errors = self.errors.borrow_mut();
        if errors.len() < COLLECTED {
            errors.push(format!("at {path}: {}", message()));
        }
    }
}

/// A value of shape `shape` at `path`. It yields `None` for a `null` where
/// that is allowed (`nullable`: an optional field) and where the value is
/// wrong (an error is recorded then, and the answer is refused whole).
struct Seed<'a, 's> {
    cx: &'a Cx<'s>,
    shape: u32,
    path: Path<'a>,
    nullable: bool,
}

impl<'de> DeserializeSeed<'de> for Seed<'_, '_> {
    type Value = Option<AnswerValue>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let Seed { cx, shape: index, path, nullable } = self;
        // A node, and as much again for the room of the list it goes into,
        // which grows by doubling.
        cx.take(2 * NODE)?;
        match cx.shapes.get(index) {
            Some(shape) => d.deserialize_any(Check { cx, shape, path, nullable }),
            None => {
                cx.error(&path, || format!("the type (shape {index}) is not in this module"));
                d.deserialize_ignored_any(IgnoredAny).map(|_| None)
            }
        }
    }
}

/// The visitor of a [`Seed`], its shape looked up.
struct Check<'a, 's> {
    cx: &'a Cx<'s>,
    shape: &'s Shape<Box<str>>,
    path: Path<'a>,
    nullable: bool,
}

impl Check<'_, '_> {
    fn wrong(&self, found: impl FnOnce() -> String) -> Option<AnswerValue> {
        self.cx.error(&self.path, || format!("expected {}, found {}", expected(self.shape), found()));
        None
    }

    fn out_of_range(&self, found: String) -> Option<AnswerValue> {
        self.cx.error(&self.path, || format!("expected an integer of 64 bits (signed), found {found}"));
        None
    }
}

impl<'de> Visitor<'de> for Check<'_, '_> {
    type Value = Option<AnswerValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&expected(self.shape))
    }

    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(match self.shape {
            Shape::Bool => Some(AnswerValue::Bool(b)),
            _ => self.wrong(|| b.to_string()),
        })
    }

    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(match self.shape {
            Shape::Int => Some(AnswerValue::Int(n)),
            _ => self.wrong(|| n.to_string()),
        })
    }

    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(match (self.shape, i64::try_from(n)) {
            (Shape::Int, Ok(n)) => Some(AnswerValue::Int(n)),
            (Shape::Int, Err(_)) => self.out_of_range(n.to_string()),
            _ => self.wrong(|| n.to_string()),
        })
    }

    fn visit_f64<E>(self, x: f64) -> Result<Self::Value, E> {
        let text = || Value::from(x).to_string();
        Ok(match self.shape {
            // -2^63 ≤ x < 2^63: both bounds are exact in an f64.
            Shape::Int if x.fract() == 0.0 && (i64::MIN as f64..-(i64::MIN as f64)).contains(&x) => {
                Some(AnswerValue::Int(x as i64))
            }
            Shape::Int if x.fract() == 0.0 => self.out_of_range(text()),
            _ => self.wrong(text),
        })
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        self.cx.take(s.len() + STR_COUNTS)?;
        Ok(match self.shape {
            Shape::Str => Some(AnswerValue::Str(Rc::from(s))),
            Shape::Enum(names) if names.iter().any(|n| **n == *s) => Some(AnswerValue::Str(Rc::from(s))),
            Shape::Enum(names) => {
                self.cx.error(&self.path, || format!("{} is not one of {}", quoted(s), literals(names)));
                None
            }
            _ => self.wrong(|| quoted(s)),
        })
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(if self.nullable { None } else { self.wrong(|| "null".into()) })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let Shape::List(element) = *self.shape else {
            let found = Value::deserialize(SeqAccessDeserializer::new(seq))?;
            return Ok(self.wrong(|| cut(found.to_string())));
        };
        let mut items = Vec::new();
        let path = &self.path;
        for i in 0.. {
            let seed = Seed { cx: self.cx, shape: element, path: Path::Index(path, i), nullable: false };
            match seq.next_element_seed(seed)? {
                // A wrong element is left out; the answer is refused anyway.
                Some(item) => items.extend(item),
                None => break,
            }
        }
        Ok(Some(AnswerValue::List(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Shape::Record(fields) = self.shape else {
            let found = Value::deserialize(MapAccessDeserializer::new(map))?;
            return Ok(self.wrong(|| cut(found.to_string())));
        };
        // A slot for each of the record's fields, whether the answer gives
        // them or not (`{}` is 2 bytes, a record of 100 fields 3 KiB).
        self.cx.take(fields.len() * std::mem::size_of::<Option<AnswerValue>>())?;
        // Per field: `None` absent, `Some(None)` null (or wrong), `Some(Some(v))`.
        let mut slots: Vec<Option<Option<AnswerValue>>> = (0..fields.len()).map(|_| None).collect();
        let path = &self.path;
        while let Some(key) = map.next_key_seed(Key { cx: self.cx, path, fields })? {
            match key.and_then(|(i, field)| Some((slots.get_mut(i)?, field))) {
                Some((slot, field)) => {
                    let seed = Seed {
                        cx: self.cx,
                        shape: field.shape,
                        path: Path::Field(path, &field.name),
                        nullable: field.optional,
                    };
                    *slot = Some(map.next_value_seed(seed)?);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        for (field, slot) in fields.iter().zip(&slots) {
            if slot.is_none() && !field.optional {
                self.cx.error(path, || format!("missing required field {}", quoted(&field.name)));
            }
        }
        Ok(Some(AnswerValue::Record(slots.into_iter().map(Option::flatten).collect())))
    }
}

/// A record's key: its field and the field's position, or `None` (an error
/// recorded) for a key the record does not have.
struct Key<'a, 's> {
    cx: &'a Cx<'s>,
    path: &'a Path<'a>,
    fields: &'s [ShapeField<Box<str>>],
}

impl<'de, 's> DeserializeSeed<'de> for Key<'_, 's> {
    type Value = Option<(usize, &'s ShapeField<Box<str>>)>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, 's> Visitor<'de> for Key<'_, 's> {
    type Value = Option<(usize, &'s ShapeField<Box<str>>)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        let found = self.fields.iter().enumerate().find(|(_, f)| *f.name == *key);
        if found.is_none() {
            self.cx.error(self.path, || {
                let names: Vec<&str> = self.fields.iter().map(|f| &*f.name).collect();
                format!("unexpected field {} (the record has {})", quoted(key), names.join(", "))
            });
        }
        Ok(found)
    }
}

/// What a shape wants, in JSON's words (the model reads these).
fn expected(shape: &Shape<Box<str>>) -> String {
    match shape {
        Shape::Str => "a string".into(),
        Shape::Int => "an integer".into(),
        Shape::Bool => "true or false".into(),
        Shape::Enum(names) => format!("one of {}", literals(names)),
        Shape::List(_) => "an array".into(),
        Shape::Record(_) => "an object".into(),
    }
}

fn literals(names: &[Box<str>]) -> String {
    names.iter().map(|n| quoted(n)).collect::<Vec<_>>().join(", ")
}

/// `s` as a JSON string, cut to [`EXCERPT`] characters: what a model wrote
/// is shown escaped and short.
fn quoted(s: &str) -> String {
    // Escaping never shortens, so the head of `s` is enough.
    let head = s.char_indices().nth(EXCERPT + 1).map_or(s, |(end, _)| &s[..end]);
    let mut out = String::new();
    write_str(head, &mut out);
    cut(out)
}

/// `text`, if longer than [`EXCERPT`] characters, cut to that with a `…`.
fn cut(mut text: String) -> String {
    if text.chars().nth(EXCERPT).is_some() {
        let keep = text.char_indices().nth(EXCERPT - 1).map_or(text.len(), |(i, _)| i);
        text.truncate(keep);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::review;

    const GOOD: &str = r#"{"verdict": "approve", "reasons": ["fine"], "risk": 2,
        "findings": [{"path": "a.rs", "line": 3.0, "ok": true}, {"path": "b.rs", "line": null, "ok": false}]}"#;

    fn errors(shape: u32, text: &str) -> Vec<String> {
        parse(&review(), shape, text).unwrap_err().errors
    }

    /// A tree many times its text is refused while it is built, before it
    /// passes [`MAX_VALUE`]; one within it says what it holds.
    #[test]
    fn an_answer_is_held_to_what_its_value_may_take() {
        let items = |n: usize| format!("[{}]", vec!["\"\""; n].join(","));
        let fits = parse(&review(), 2, &items(100_000)).unwrap();
        // 100,000 nodes in a list's room (a power of two), each an empty text.
        let AnswerValue::List(list) = &fits else { panic!("{fits:?}") };
        assert_eq!(fits.held_bytes(), list.capacity() * NODE + 100_000 * STR_COUNTS);
        let many = MAX_VALUE / (2 * NODE + STR_COUNTS) + 1;
        let refused = parse(&review(), 2, &items(many)).unwrap_err();
        assert_eq!(refused.errors.len(), 1, "{refused}");
        assert!(refused.errors[0].starts_with("the answer is too large"), "{refused}");
        // Records whose fields the answer leaves out still take a slot each:
        // `{}` in a list of records of three fields (invalid, for the
        // required ones missing, but not too large).
        let records = |n: usize| format!("[{}]", vec!["{}"; n].join(","));
        let record = 2 * NODE + 3 * std::mem::size_of::<Option<AnswerValue>>();
        let fits = parse(&review(), 6, &records(MAX_VALUE / record - 1)).unwrap_err();
        assert!(!fits.errors[0].contains("too large"), "{fits}");
        let refused = parse(&review(), 6, &records(MAX_VALUE / record + 1)).unwrap_err();
        assert!(refused.errors[0].starts_with("the answer is too large"), "{refused}");
    }

    #[test]
    fn parses_an_answer_into_its_tree() {
        let s = |t: &str| AnswerValue::Str(Rc::from(t));
        let finding = |path, line: Option<i64>, ok| {
            AnswerValue::Record(vec![Some(s(path)), line.map(AnswerValue::Int), Some(AnswerValue::Bool(ok))])
        };
        let expected = AnswerValue::Record(vec![
            Some(s("approve")),
            Some(AnswerValue::List(vec![s("fine")])),
            Some(AnswerValue::Int(2)),
            None,
            Some(AnswerValue::List(vec![finding("a.rs", Some(3), true), finding("b.rs", None, false)])),
        ]);
        assert_eq!(parse(&review(), 7, GOOD), Ok(expected.clone()));
        for fenced in
            [format!("```json\n{GOOD}\n```"), format!(" \n```\n{GOOD}```\n\n"), format!("\t{GOOD}  ")]
        {
            assert_eq!(parse(&review(), 7, &fenced), Ok(expected.clone()), "{fenced}");
        }
        assert_eq!(parse(&review(), 3, "-9223372036854775808"), Ok(AnswerValue::Int(i64::MIN)));
        assert_eq!(parse(&review(), 3, "1e3"), Ok(AnswerValue::Int(1000)));
        // Of a key given twice, the last counts.
        let twice = parse(&review(), 5, r#"{"path": "a", "ok": true, "path": "b"}"#);
        assert_eq!(twice, Ok(AnswerValue::Record(vec![Some(s("b")), None, Some(AnswerValue::Bool(true))])));
    }

    #[test]
    fn reports_every_error_with_its_path() {
        let answer = r#"{"verdict": "maybe", "risk": "high", "files": [1, "ok", null], "extra": {},
            "findings": [{"path": "a", "line": 3.5, "ok": null}, {"path": "b", "ok": true, "line": 1e19}, 7]}"#;
        assert_eq!(
            errors(7, answer),
            [
                r#"at $.verdict: "maybe" is not one of "approve", "reject""#,
                r#"at $.risk: expected an integer, found "high""#,
                "at $.files[0]: expected a string, found 1",
                "at $.files[2]: expected a string, found null",
                r#"at $: unexpected field "extra" (the record has verdict, reasons, risk, files, findings)"#,
                "at $.findings[0].line: expected an integer, found 3.5",
                "at $.findings[0].ok: expected true or false, found null",
                "at $.findings[1].line: expected an integer of 64 bits (signed), found 1e+19",
                "at $.findings[2]: expected an object, found 7",
                r#"at $: missing required field "reasons""#,
            ]
        );
    }

    #[test]
    fn quotes_what_it_found_escaped_and_short() {
        let long = format!("\"\\u001b[31m{}\"", "x".repeat(100));
        let found = format!("at $: expected an integer, found \"\\u001b[31m{}…", "x".repeat(48));
        assert_eq!(found.chars().count(), "at $: expected an integer, found ".len() + EXCERPT);
        assert_eq!(errors(3, &long), [found]);
        let list = format!("[{}]", ["\"ü\""; 40].join(","));
        let found = format!("at $: expected a string, found [{}\"ü…", "\"ü\",".repeat(14));
        assert_eq!(errors(1, &list), [found]);
        assert_eq!(errors(0, r#"{"a": 1}"#), [r#"at $: expected one of "approve", "reject", found {"a":1}"#]);
    }

    #[test]
    fn refuses_what_is_not_plain_json() {
        assert_eq!(errors(7, ""), ["the answer is empty"]);
        assert_eq!(errors(7, " \n\t"), ["the answer is empty"]);
        assert_eq!(errors(7, "```json\n```"), ["the answer is empty"]);
        assert_eq!(errors(3, "The answer is: 3"), ["not JSON: expected value at line 1 column 1"]);
        assert_eq!(errors(3, "3 and more"), ["not JSON: trailing characters at line 1 column 3"]);
        assert_eq!(
            errors(3, "```json\n3\n```\n```json\n4\n```"),
            ["not JSON: trailing characters at line 3 column 1"]
        );
        // The line is counted in the whole answer, fence included.
        assert_eq!(
            errors(7, "\n```json\n{\n  \"risk\": ,\n}\n```"),
            ["not JSON: expected value at line 4 column 11"]
        );
        assert_eq!(errors(3, "```js on\n3\n```")[0], "not JSON: expected value at line 1 column 1");
    }

    #[test]
    fn deep_nesting_is_refused_without_overflowing_the_stack() {
        let deep = "[".repeat(100_000);
        for shape in [1, 2, 7] {
            assert_eq!(errors(shape, &deep), ["not JSON: recursion limit exceeded at line 1 column 128"]);
        }
    }

    #[test]
    fn keeps_a_hundred_errors_and_shows_twenty() {
        let invalid = parse(&review(), 2, &format!("[{}]", ["1"; 500].join(","))).unwrap_err();
        assert_eq!(invalid.errors.len(), COLLECTED);
        let shown = invalid.to_string();
        assert!(shown.starts_with("at $[0]: expected a string, found 1; at $[1]: "), "{shown}");
        assert!(shown.ends_with("at $[19]: expected a string, found 1; … and at least 80 more"), "{shown}");
        let invalid = parse(&review(), 2, &format!("[{}]", ["1"; 25].join(","))).unwrap_err();
        assert!(invalid.to_string().ends_with("found 1; … and 5 more"));
    }

    #[test]
    fn a_shape_not_in_the_table_refuses_everything() {
        assert_eq!(errors(99, "1"), ["at $: the type (shape 99) is not in this module"]);
    }
}
