//! The static types of values and the fields of records: what the
//! instruction set's stack effects (`isa.rs`) and a module's variable slots
//! (`module`) are both stated in.

use serde::{Deserialize, Serialize};

/// The static type of a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValueType {
    Str,
    Int,
    Duration,
    Bool,
    LastRun,
    Cost,
    Error,
    Review,
    Estimate,
    /// A typed model answer that is a list or a record: the index of its
    /// shape in the module's table (`answer::Shape`). Its leaves, once
    /// taken out (`MEMBER`), are plain strings, integers and booleans.
    Answer(u32),
}

impl ValueType {
    pub fn name(self) -> &'static str {
        match self {
            ValueType::Str => "string",
            ValueType::Int => "integer",
            ValueType::Duration => "duration",
            ValueType::Bool => "boolean",
            ValueType::LastRun => "LAST_RUN record",
            ValueType::Cost => "COST record",
            ValueType::Error => "error record",
            ValueType::Review => "review record",
            ValueType::Estimate => "estimate record",
            ValueType::Answer(_) => "typed answer (list or record)",
        }
    }

    /// A string, integer, duration or boolean: not a record.
    pub fn is_scalar(self) -> bool {
        matches!(self, ValueType::Str | ValueType::Int | ValueType::Duration | ValueType::Bool)
    }

    /// One of the built-in records that `FIELD` reads (not a typed answer).
    pub fn is_record(self) -> bool {
        !self.is_scalar() && !matches!(self, ValueType::Answer(_))
    }

    /// The type of `field` on a record of this type, if it has that field
    /// (book: reference/statements.md: LAST_RUN, COST, caught errors, reviews, estimates).
    pub fn field(self, field: Field) -> Option<ValueType> {
        use Field::*;
        let has = match self {
            ValueType::LastRun => matches!(field, Stdout | Stderr | ExitCode | Duration | TimedOut | Command),
            ValueType::Cost => {
                matches!(field, ApiCalls | TokenCount | ExecutionTime | RunCount | Instructions)
            }
            // An estimate has the fields of COST (upper bounds) and their `_MIN` twins.
            ValueType::Estimate => ValueType::Cost.field(field).is_some() || field.is_min(),
            ValueType::Error => matches!(field, Kind | Message | Step | Line),
            ValueType::Review => matches!(field, Approved | Comment),
            ValueType::Str
            | ValueType::Int
            | ValueType::Duration
            | ValueType::Bool
            | ValueType::Answer(_) => false,
        };
        has.then(|| field.value_type())
    }
}

/// The fields a record can have, numbered for `FIELD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[repr(u8)]
pub enum Field {
    Stdout = 0,
    Stderr = 1,
    ExitCode = 2,
    Duration = 3,
    TimedOut = 4,
    Command = 5,
    ApiCalls = 6,
    TokenCount = 7,
    ExecutionTime = 8,
    RunCount = 9,
    Instructions = 10,
    ApiCallsMin = 11,
    TokenCountMin = 12,
    ExecutionTimeMin = 13,
    RunCountMin = 14,
    InstructionsMin = 15,
    Kind = 16,
    Message = 17,
    Step = 18,
    Line = 19,
    Approved = 20,
    Comment = 21,
}

impl Field {
    pub const ALL: [Field; 22] = [
        Field::Stdout,
        Field::Stderr,
        Field::ExitCode,
        Field::Duration,
        Field::TimedOut,
        Field::Command,
        Field::ApiCalls,
        Field::TokenCount,
        Field::ExecutionTime,
        Field::RunCount,
        Field::Instructions,
        Field::ApiCallsMin,
        Field::TokenCountMin,
        Field::ExecutionTimeMin,
        Field::RunCountMin,
        Field::InstructionsMin,
        Field::Kind,
        Field::Message,
        Field::Step,
        Field::Line,
        Field::Approved,
        Field::Comment,
    ];

    #[inline]
    pub fn name(self) -> &'static str {
        match self {
            Field::Stdout => "STDOUT",
            Field::Stderr => "STDERR",
            Field::ExitCode => "EXIT_CODE",
            Field::Duration => "DURATION",
            Field::TimedOut => "TIMED_OUT",
            Field::Command => "COMMAND",
            Field::ApiCalls => "API_CALLS",
            Field::TokenCount => "TOKEN_COUNT",
            Field::ExecutionTime => "EXECUTION_TIME",
            Field::RunCount => "RUN_COUNT",
            Field::Instructions => "INSTRUCTIONS",
            Field::ApiCallsMin => "API_CALLS_MIN",
            Field::TokenCountMin => "TOKEN_COUNT_MIN",
            Field::ExecutionTimeMin => "EXECUTION_TIME_MIN",
            Field::RunCountMin => "RUN_COUNT_MIN",
            Field::InstructionsMin => "INSTRUCTIONS_MIN",
            Field::Kind => "KIND",
            Field::Message => "MESSAGE",
            Field::Step => "STEP",
            Field::Line => "LINE",
            Field::Approved => "APPROVED",
            Field::Comment => "COMMENT",
        }
    }

    pub fn from_u8(n: u8) -> Option<Field> {
        Field::ALL.get(usize::from(n)).copied()
    }

    /// One of the `_MIN` fields of an estimate (its lower bounds).
    pub fn is_min(self) -> bool {
        use Field::*;
        matches!(self, ApiCallsMin | TokenCountMin | ExecutionTimeMin | RunCountMin | InstructionsMin)
    }

    /// The type of the field's value. Field names are unique across the
    /// record kinds, and so are their types.
    pub fn value_type(self) -> ValueType {
        use Field::*;
        match self {
            Stdout | Stderr | Command | Kind | Message | Step | Comment => ValueType::Str,
            Duration | ExecutionTime | ExecutionTimeMin => ValueType::Duration,
            TimedOut | Approved => ValueType::Bool,
            ExitCode | Line | ApiCalls | TokenCount | RunCount | Instructions | ApiCallsMin
            | TokenCountMin | RunCountMin | InstructionsMin => ValueType::Int,
        }
    }

    pub fn from_name(name: &str) -> Option<Field> {
        // A match compiles to a length switch and one comparison; the
        // compiler looks a field up for every path it lowers.
        Some(match name {
            "STDOUT" => Field::Stdout,
            "STDERR" => Field::Stderr,
            "EXIT_CODE" => Field::ExitCode,
            "DURATION" => Field::Duration,
            "TIMED_OUT" => Field::TimedOut,
            "COMMAND" => Field::Command,
            "API_CALLS" => Field::ApiCalls,
            "TOKEN_COUNT" => Field::TokenCount,
            "EXECUTION_TIME" => Field::ExecutionTime,
            "RUN_COUNT" => Field::RunCount,
            "INSTRUCTIONS" => Field::Instructions,
            "API_CALLS_MIN" => Field::ApiCallsMin,
            "TOKEN_COUNT_MIN" => Field::TokenCountMin,
            "EXECUTION_TIME_MIN" => Field::ExecutionTimeMin,
            "RUN_COUNT_MIN" => Field::RunCountMin,
            "INSTRUCTIONS_MIN" => Field::InstructionsMin,
            "KIND" => Field::Kind,
            "MESSAGE" => Field::Message,
            "STEP" => Field::Step,
            "LINE" => Field::Line,
            "APPROVED" => Field::Approved,
            "COMMENT" => Field::Comment,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_round_trip() {
        for f in Field::ALL {
            assert_eq!(Field::from_name(f.name()), Some(f));
            assert_eq!(Field::from_u8(f as u8), Some(f));
        }
        assert_eq!(Field::from_name("stdout"), None);
    }
}
