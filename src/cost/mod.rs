//! The five cost dimensions the VM meters and budgets can cap (book: reference/costs.md),
//! a value per dimension ([`PerDim`]), and the static bound of a path
//! ([`bound`]; `analysis::cost_model` computes it).

use std::ops::{Index, IndexMut};

use serde::{Deserialize, Serialize};

pub mod bound;

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

/// One value per cost dimension, indexed by [`Dim`]. Serialized as the
/// plain five-element array in `Dim::ALL` order, as the budgets and meters
/// of a snapshot and the bounds of a `.tbc` always were.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PerDim<T>([T; 5]);

impl<T> PerDim<T> {
    pub const fn new(values: [T; 5]) -> PerDim<T> {
        PerDim(values)
    }

    /// `f` of each dimension.
    pub fn from_fn(f: impl FnMut(Dim) -> T) -> PerDim<T> {
        PerDim(Dim::ALL.map(f))
    }

    /// Each dimension with its value, in `Dim::ALL` order.
    pub fn iter(&self) -> impl Iterator<Item = (Dim, &T)> {
        Dim::ALL.into_iter().zip(&self.0)
    }
}

impl<T> Index<Dim> for PerDim<T> {
    type Output = T;
    fn index(&self, dim: Dim) -> &T {
        &self.0[dim as usize]
    }
}

impl<T> IndexMut<Dim> for PerDim<T> {
    fn index_mut(&mut self, dim: Dim) -> &mut T {
        &mut self.0[dim as usize]
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
        // `PerDim` indexes by the declaration order, which is `Dim::ALL`'s.
        for (i, d) in Dim::ALL.into_iter().enumerate() {
            assert_eq!(d as usize, i);
        }
        assert_eq!(Dim::from_name("run_count"), None);
    }
}
