//! Budgets (book: reference/costs.md): caps per dimension, what an effect is charged
//! before it starts, and preflight of work whose bound cannot fit.

use tisslang::cost::bound::CostBound;
use tisslang::cost::{Dim, PerDim};

use crate::host::Host;
use crate::machine::Machine;
use crate::machine::failure::{BudgetStop, amount, cap_left};
use crate::machine::flow::{Exec, budget};
use crate::machine::program::Program;
use crate::machine::value::Value;

/// The meters' growth since `base`.
pub(super) fn spent_since(meters: &PerDim<u64>, base: &PerDim<u64>) -> PerDim<u64> {
    PerDim::from_fn(|dim| meters[dim].saturating_sub(base[dim]))
}

impl Machine {
    /// Applies a cap; the lower of two caps wins.
    pub fn cap(&mut self, dim: Dim, value: u64) {
        let slot = &mut self.budgets[dim];
        *slot = Some(slot.map_or(value, |old| old.min(value)));
        if dim == Dim::Instructions {
            self.fuel_limit = self.budgets[dim].unwrap_or(u64::MAX);
        }
    }

    /// SET_BUDGET: a cap on dimension `dim` (a `Dim` number) for the rest of the run.
    pub(super) fn set_budget(&mut self, dim: u8) -> Result<(), Exec> {
        let value = match self.pop()? {
            Value::Int(i) => u64::try_from(i).unwrap_or(0),
            Value::Duration(ms) => ms,
            other => return Err(Exec::Trap(format!("a budget of type {}", other.type_name()))),
        };
        let dim = *Dim::ALL.get(usize::from(dim)).ok_or_else(|| Exec::Trap("bad dimension".into()))?;
        self.cap(dim, value);
        Ok(())
    }

    /// What the current step has spent (the whole run outside steps).
    pub(super) fn step_spending(&self) -> PerDim<u64> {
        let base = self.steps.last().map_or(PerDim::default(), |s| s.meters_at_entry);
        spent_since(&self.meters, &base)
    }

    /// Fails with `budget_exceeded` before an effect (`what`) that would
    /// cross a cap.
    pub(super) fn charge(&mut self, dim: Dim, amount: u64, what: &str) -> Result<(), Exec> {
        if let Some(cap) = self.budgets[dim] {
            let after = self.meters[dim].saturating_add(amount);
            if after > cap {
                return Err(budget(BudgetStop::refused(dim, cap, self.meters[dim], amount, what, false)));
            }
        }
        Ok(())
    }

    /// Fails when the run has used more EXECUTION_TIME than its cap.
    pub(super) fn check_time(&self) -> Result<(), Exec> {
        match self.budgets[Dim::ExecutionTime] {
            Some(cap) if self.meters[Dim::ExecutionTime] > cap => {
                Err(budget(BudgetStop::crossed(Dim::ExecutionTime, cap, self.meters[Dim::ExecutionTime], "")))
            }
            _ => Ok(()),
        }
    }

    /// Preflight (book: reference/costs.md): work whose *minimum* cost exceeds what is left of
    /// a budget cannot fit on any path and is refused before it starts; work
    /// whose maximum exceeds it is logged as a warning and runs.
    /// `already_counted` instructions of the bound have been metered.
    pub(super) fn preflight(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        bound: &CostBound,
        already_counted: u64,
        what: &str,
    ) -> Result<(), Exec> {
        for dim in Dim::ALL {
            let Some(cap) = self.budgets[dim] else { continue };
            let counted = if dim == Dim::Instructions { already_counted } else { 0 };
            let (min, max) = (bound.min[dim].saturating_sub(counted), bound.max[dim].saturating_sub(counted));
            let left = cap.saturating_sub(self.meters[dim]);
            if min > left {
                return Err(budget(BudgetStop::refused(dim, cap, self.meters[dim], min, what, true)));
            }
            if max > left {
                let message = format!(
                    "{what} may need up to {}, but the {} {}; it runs, and stops if it crosses the cap",
                    amount(dim, max),
                    dim.name(),
                    cap_left(dim, cap, self.meters[dim])
                );
                self.log(program, host, "budget_warning", &message, "warning", 0);
            }
        }
        Ok(())
    }
}
