//! The value types and the records with their fields (book:
//! reference/expressions.md): `LAST_RUN`, `COST`, caught errors, reviews and cost estimates. A
//! type may be a record and a record's fields have types, so both live here.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    Str,
    Int,
    Duration,
    Bool,
    Record(Rec),
    /// A typed model answer that is a list or a record: its shape in the
    /// plan's answer table (`check/answers`). Its leaves are `Str` (an enum
    /// too), `Int` and `Bool`.
    Answer(u32),
}

impl Ty {
    /// "a string", "an integer", ...: how messages name the type.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Ty::Str => "a string",
            Ty::Int => "an integer",
            Ty::Duration => "a duration",
            Ty::Bool => "a boolean",
            Ty::Record(rec) => rec.describe(),
            Ty::Answer(_) => "a typed answer (a list or record)",
        }
    }

    pub(crate) fn record(self) -> Option<Rec> {
        match self {
            Ty::Record(rec) => Some(rec),
            _ => None,
        }
    }
}

/// A kind of record. Records have fixed fields; a plan cannot make new kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rec {
    LastRun,
    Cost,
    /// `ESTIMATE_COST INTO x`: the fields of `COST` (upper bounds) and their
    /// `_MIN` twins (lower bounds).
    Estimate,
    /// `CATCH AS e`.
    Error,
    /// `REQUEST_REVIEW ... INTO r`.
    Review,
}

const LAST_RUN: &[(&str, Ty)] = &[
    ("STDOUT", Ty::Str),
    ("STDERR", Ty::Str),
    ("EXIT_CODE", Ty::Int),
    ("DURATION", Ty::Duration),
    ("TIMED_OUT", Ty::Bool),
    ("COMMAND", Ty::Str),
];

/// In `Dim::ALL` order, so suggestions list dimensions the way reports do.
const COST: &[(&str, Ty)] = &[
    ("API_CALLS", Ty::Int),
    ("TOKEN_COUNT", Ty::Int),
    ("EXECUTION_TIME", Ty::Duration),
    ("RUN_COUNT", Ty::Int),
    ("INSTRUCTIONS", Ty::Int),
];

const ESTIMATE: &[(&str, Ty)] = &[
    ("API_CALLS", Ty::Int),
    ("TOKEN_COUNT", Ty::Int),
    ("EXECUTION_TIME", Ty::Duration),
    ("RUN_COUNT", Ty::Int),
    ("INSTRUCTIONS", Ty::Int),
    ("API_CALLS_MIN", Ty::Int),
    ("TOKEN_COUNT_MIN", Ty::Int),
    ("EXECUTION_TIME_MIN", Ty::Duration),
    ("RUN_COUNT_MIN", Ty::Int),
    ("INSTRUCTIONS_MIN", Ty::Int),
];

const ERROR: &[(&str, Ty)] = &[("KIND", Ty::Str), ("MESSAGE", Ty::Str), ("STEP", Ty::Str), ("LINE", Ty::Int)];

const REVIEW: &[(&str, Ty)] = &[("APPROVED", Ty::Bool), ("COMMENT", Ty::Str)];

impl Rec {
    /// Every field with its type, in documentation order.
    pub(crate) fn fields(self) -> &'static [(&'static str, Ty)] {
        match self {
            Rec::LastRun => LAST_RUN,
            Rec::Cost => COST,
            Rec::Estimate => ESTIMATE,
            Rec::Error => ERROR,
            Rec::Review => REVIEW,
        }
    }

    pub(crate) fn field(self, name: &str) -> Option<Ty> {
        self.fields().iter().find(|(n, _)| *n == name).map(|&(_, ty)| ty)
    }

    pub(crate) fn field_names(self) -> impl Iterator<Item = &'static str> {
        self.fields().iter().map(|&(n, _)| n)
    }

    /// How messages name a value of this kind ("`x` is a caught error").
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Rec::LastRun => "the `LAST_RUN` record",
            Rec::Cost => "a cost record",
            Rec::Estimate => "a cost estimate",
            Rec::Error => "a caught error",
            Rec::Review => "a review",
        }
    }
}
