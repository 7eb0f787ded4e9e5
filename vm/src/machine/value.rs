//! Run-time values (book: reference/expressions.md): strings, integers, durations, booleans, records.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use tisslang::answer::{AnswerValue, Shape, Shapes};
use tisslang::cost::bound::CostBound;
use tisslang::cost::{Dim, DimUnit, PerDim};
use tisslang::types::Field;

use crate::host::RunResult;

/// `1500` → `1500ms`, `60000` → `1m`: the largest unit that is exact.
pub use tisslang::duration::literal as format_duration;

/// A caught failure (`CATCH AS e`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorRecord {
    pub kind: String,
    pub message: String,
    pub step: String,
    pub line: i64,
    /// The failing instruction took tainted data (an ASSERT's MESSAGE, a
    /// READ's path) or was a model request: `e.MESSAGE` is tainted (book: reference/policy.md).
    pub tainted: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Record {
    /// `tainted`: the command or its environment held tainted data, so
    /// its text fields are tainted (book: reference/policy.md).
    LastRun {
        run: Rc<RunResult>,
        tainted: bool,
    },
    /// Spending per dimension, in `Dim::ALL` order (time in ms).
    Cost(PerDim<u64>),
    Error(ErrorRecord),
    Review {
        approved: bool,
        comment: String,
    },
    Estimate(CostBound),
}

#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Value {
    /// Shared text: copying a string value (LOAD, PUSH_CONST) is a reference
    /// count, not an allocation.
    Str(#[serde(deserialize_with = "crate::machine::state_limits::shared_str")] Rc<str>),
    Int(i64),
    /// Milliseconds.
    Duration(u64),
    Bool(bool),
    Record(#[serde(deserialize_with = "crate::machine::state_limits::boxed_record")] Box<Record>),
    /// Text that came from a model (PROMPT_AGENT) or a file (READ), or was
    /// made from such text by interpolation (book: reference/policy.md, taint). A string like
    /// `Str` in every operation; only the policy's `[taint] run` tells them
    /// apart. Last, so the other variants keep their numbers on the wire.
    Tainted(#[serde(deserialize_with = "crate::machine::state_limits::shared_str")] Rc<str>),
    /// A typed model answer that is a list or a record (book: reference/types.md).
    /// Shared: LOAD copies a pointer, not the tree.
    Answer(#[serde(deserialize_with = "crate::machine::state_limits::shared_record")] Rc<Answer>),
}

/// A validated typed answer: its tree, and its JSON text (how it prints),
/// made once when the answer is checked or taken out of a larger one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// Its shape in the module's table: a list or a record.
    pub shape: u32,
    pub value: AnswerValue,
    #[serde(deserialize_with = "crate::machine::state_limits::shared_str")]
    pub json: Rc<str>,
    /// The shape holds a `STRING` somewhere: the text is the model's (book: reference/policy.md).
    pub tainted: bool,
}

impl Answer {
    /// The answer `value` of composite shape `shape`.
    pub fn new(shapes: &Shapes, shape: u32, value: AnswerValue) -> Answer {
        let mut json = String::new();
        tisslang::answer::render::write_json(shapes, shape, &value, &mut json);
        Answer { shape, value, json: json.into(), tainted: shapes.holds_text(shape) }
    }

    /// A value of shape `shape` on the stack: a leaf as a plain value (a
    /// `STRING` tainted, an integer, boolean or enum literal clean), a list
    /// or record as a typed answer. `None` where the value does not follow
    /// the shape (only a forged snapshot could hold one).
    pub fn stack_value(shapes: &Shapes, shape: u32, value: AnswerValue) -> Option<Value> {
        Some(match (shapes.get(shape)?, value) {
            (Shape::Str, AnswerValue::Str(s)) => Value::Tainted(s),
            (Shape::Enum(_), AnswerValue::Str(s)) => Value::Str(s),
            (Shape::Int, AnswerValue::Int(i)) => Value::Int(i),
            (Shape::Bool, AnswerValue::Bool(b)) => Value::Bool(b),
            (Shape::List(_), value @ AnswerValue::List(_))
            | (Shape::Record(_), value @ AnswerValue::Record(_)) => {
                Value::Answer(Rc::new(Answer::new(shapes, shape, value)))
            }
            _ => return None,
        })
    }
}

/// By hand so it inlines into the dispatch loop (LOAD copies a value on
/// every read): scalars are copied, text shares its `Rc`; a record (rare,
/// and a deep copy) is out of line so the rest stays small.
impl Clone for Value {
    #[inline(always)]
    fn clone(&self) -> Value {
        match self {
            Value::Str(s) => Value::Str(Rc::clone(s)),
            Value::Tainted(s) => Value::Tainted(Rc::clone(s)),
            Value::Int(i) => Value::Int(*i),
            Value::Duration(d) => Value::Duration(*d),
            Value::Bool(b) => Value::Bool(*b),
            Value::Record(r) => clone_record(r),
            Value::Answer(a) => Value::Answer(Rc::clone(a)),
        }
    }
}

#[inline(never)]
fn clone_record(record: &Record) -> Value {
    Value::Record(Box::new(record.clone()))
}

#[inline(never)]
fn drop_record(_: Box<Record>) {}

impl Value {
    /// Drops the value inline: the compiler's drop glue for `Value` is an
    /// out-of-line call, which the dispatch loop would pay on every POP,
    /// STORE and test. Text releases its `Rc`; a record is out of line.
    #[inline(always)]
    pub(crate) fn discard(self) {
        match self {
            Value::Str(s) | Value::Tainted(s) => drop(s),
            Value::Record(r) => drop_record(r),
            Value::Answer(a) => drop(a),
            Value::Int(_) | Value::Duration(_) | Value::Bool(_) => {}
        }
    }
}

impl Value {
    /// The value as text, for interpolation, WRITE FROM and ENV.
    pub fn to_text(&self) -> String {
        match self {
            Value::Str(s) | Value::Tainted(s) => s.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Duration(ms) => format_duration(*ms),
            Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
            Value::Record(r) => format!("<{} record>", r.kind_name()),
            Value::Answer(a) => a.json.to_string(),
        }
    }

    /// The text of a string value, tainted or not.
    #[inline(always)]
    pub fn text(&self) -> Option<&Rc<str>> {
        match self {
            Value::Str(s) | Value::Tainted(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_tainted(&self) -> bool {
        match self {
            Value::Tainted(_) => true,
            Value::Answer(a) => a.tainted,
            _ => false,
        }
    }

    /// Equality as the plan sees it: a tainted string equals the same text.
    pub fn same_as(&self, other: &Value) -> bool {
        match (self.text(), other.text()) {
            (Some(a), Some(b)) => a == b,
            _ => self == other,
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) | Value::Tainted(_) => "string",
            Value::Int(_) => "integer",
            Value::Duration(_) => "duration",
            Value::Bool(_) => "boolean",
            Value::Record(_) => "record",
            Value::Answer(_) => "typed answer",
        }
    }
}

impl Record {
    pub fn kind_name(&self) -> &'static str {
        match self {
            Record::LastRun { .. } => "LAST_RUN",
            Record::Cost(_) => "COST",
            Record::Error(_) => "error",
            Record::Review { .. } => "review",
            Record::Estimate(_) => "estimate",
        }
    }

    /// Field `field` of this record, if it has one.
    pub fn field(&self, field: Field) -> Option<Value> {
        use Field::*;
        Some(match (self, field) {
            (Record::LastRun { run, tainted }, Stdout) => text(&run.stdout, *tainted),
            (Record::LastRun { run, tainted }, Stderr) => text(&run.stderr, *tainted),
            (Record::LastRun { run, .. }, ExitCode) => Value::Int(run.exit_code),
            (Record::LastRun { run, .. }, Duration) => Value::Duration(run.duration_ms),
            (Record::LastRun { run, .. }, TimedOut) => Value::Bool(run.timed_out),
            (Record::LastRun { run, tainted }, Command) => text(&run.command, *tainted),
            (Record::Cost(c), f) => cost_field(c, f)?,
            (Record::Estimate(b), f) => estimate_field(b, f)?,
            (Record::Error(e), Kind) => Value::Str(e.kind.as_str().into()),
            (Record::Error(e), Message) => text(&e.message, e.tainted),
            (Record::Error(e), Step) => Value::Str(e.step.as_str().into()),
            (Record::Error(e), Line) => Value::Int(e.line),
            (Record::Review { approved, .. }, Approved) => Value::Bool(*approved),
            (Record::Review { comment, .. }, Comment) => Value::Str(comment.as_str().into()),
            _ => return None,
        })
    }
}

/// A record's text field, tainted if the record is. Integers, durations
/// and booleans carry no free text and stay clean (as typed answers, book: reference/types.md).
fn text(s: &str, tainted: bool) -> Value {
    if tainted { Value::Tainted(s.into()) } else { Value::Str(s.into()) }
}

fn dim_value(dim: Dim, amount: u64) -> Value {
    match dim.unit() {
        DimUnit::Time => Value::Duration(amount),
        DimUnit::Count => Value::Int(i64::try_from(amount).unwrap_or(i64::MAX)),
    }
}

/// The dimension a COST or estimate field reads, and whether it is an
/// estimate's lower bound (a `_MIN` field).
fn dim_of(field: Field) -> Option<(Dim, bool)> {
    use Field::*;
    Some(match field {
        ApiCalls => (Dim::ApiCalls, false),
        TokenCount => (Dim::TokenCount, false),
        ExecutionTime => (Dim::ExecutionTime, false),
        RunCount => (Dim::RunCount, false),
        Instructions => (Dim::Instructions, false),
        ApiCallsMin => (Dim::ApiCalls, true),
        TokenCountMin => (Dim::TokenCount, true),
        ExecutionTimeMin => (Dim::ExecutionTime, true),
        RunCountMin => (Dim::RunCount, true),
        InstructionsMin => (Dim::Instructions, true),
        _ => return None,
    })
}

fn cost_field(spent: &PerDim<u64>, field: Field) -> Option<Value> {
    match dim_of(field)? {
        (dim, false) => Some(dim_value(dim, spent[dim])),
        (_, true) => None,
    }
}

fn estimate_field(bound: &CostBound, field: Field) -> Option<Value> {
    let (dim, min) = dim_of(field)?;
    Some(dim_value(dim, if min { bound.min[dim] } else { bound.max[dim] }))
}

/// CONTAINS. `str::contains` sets up a searcher on every call, which costs
/// more than the whole search on the short strings plans mostly test; a
/// short haystack is scanned directly (at most 64 × 64 byte compares).
#[inline]
pub(crate) fn contains(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    if h.len() > 64 {
        return haystack.contains(needle);
    }
    let Some((&first, rest)) = n.split_first() else { return true };
    let Some(last_start) = h.len().checked_sub(n.len()) else { return false };
    (0..=last_start).any(|i| h[i] == first && h[i + 1..i + n.len()] == *rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_agrees_with_str_contains() {
        let long = "ab".repeat(40);
        let cases = ["", "a", "ab", "ba", "abc", "value 0 of the bench", "é", "éa", "aé", &long];
        for h in cases {
            for n in cases.iter().copied().chain(["value", "bench", "0 of", "x", "abab", "é"]) {
                assert_eq!(contains(h, n), h.contains(n), "{h:?} contains {n:?}");
            }
        }
    }
}
