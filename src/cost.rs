//! The five cost dimensions the VM meters and budgets can cap (SPEC §4).

use serde::Serialize;

/// A cost dimension. The order here is the order of every report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Dim {
    ApiCalls,
    TokenCount,
    ExecutionTime,
    RunCount,
    Instructions,
}

/// What kind of value a dimension is measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DimUnit {
    /// A plain count (an integer in the language).
    Count,
    /// Wall time (a duration in the language).
    Time,
}

impl Dim {
    pub const ALL: [Dim; 5] =
        [Dim::ApiCalls, Dim::TokenCount, Dim::ExecutionTime, Dim::RunCount, Dim::Instructions];

    /// The name as written in a plan (`COST.RUN_COUNT`, `SET_BUDGET RUN_COUNT = 3`).
    pub fn name(self) -> &'static str {
        match self {
            Dim::ApiCalls => "API_CALLS",
            Dim::TokenCount => "TOKEN_COUNT",
            Dim::ExecutionTime => "EXECUTION_TIME",
            Dim::RunCount => "RUN_COUNT",
            Dim::Instructions => "INSTRUCTIONS",
        }
    }

    /// The key used in JSON reports (`execution_time_ms` carries its unit).
    pub fn json_key(self) -> &'static str {
        match self {
            Dim::ApiCalls => "api_calls",
            Dim::TokenCount => "token_count",
            Dim::ExecutionTime => "execution_time_ms",
            Dim::RunCount => "run_count",
            Dim::Instructions => "instructions",
        }
    }

    pub fn from_name(name: &str) -> Option<Dim> {
        Dim::ALL.into_iter().find(|d| d.name() == name)
    }

    pub fn unit(self) -> DimUnit {
        match self {
            Dim::ExecutionTime => DimUnit::Time,
            _ => DimUnit::Count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in Dim::ALL {
            assert_eq!(Dim::from_name(d.name()), Some(d));
        }
        assert_eq!(Dim::from_name("run_count"), None);
    }
}
