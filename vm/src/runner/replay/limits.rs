//! What a run was held to, journaled once before its first instruction
//! (and at each resumed start) and held again by its replay: the budget
//! caps in force, the command policy, and the tokens each model answer is
//! allowed (`Entry::Limits`). Without it a replay ran with none of them: a
//! run a `--budget` cap or a policy stopped replayed as `diverged`, and one
//! with another `--max-tokens` warned otherwise.

use std::rc::Rc;

use tisslang::analysis::cost_model::DEFAULT_MAX_TOKENS;
use tisslang::cost::{Dim, PerDim};

use crate::machine::Machine;
use crate::machine::program::Program;
use crate::policy::Policy;
use crate::runner::execute::allow_answers_of;
use crate::session::journal::Entry;

/// The entry for what `machine` is held to now, its answers allowed
/// `max_tokens` each.
pub(crate) fn record(machine: &Machine, max_tokens: u64) -> Entry {
    let caps = Dim::ALL
        .iter()
        .enumerate()
        .filter_map(|(number, &dim)| machine.budgets[dim].map(|cap| (number as u8, cap)))
        .collect();
    Entry::Limits { caps, policy: machine.policy().map(|p| p.rules().clone()), max_tokens }
}

/// Holds `machine` and `program` to what `limits` (an `Entry::Limits`, or
/// `None` for a journal of format 1, whose runs had no caps beyond the
/// plan's, no policy and the default allowance, as its replays always
/// assumed) says; the answer allowance.
pub(crate) fn hold(
    limits: Option<Entry>,
    machine: &mut Machine,
    program: &mut Program,
) -> Result<u64, String> {
    let Some(Entry::Limits { caps, policy, max_tokens }) = limits else {
        allow_answers_of(program, DEFAULT_MAX_TOKENS);
        return Ok(DEFAULT_MAX_TOKENS);
    };
    let mut budgets = PerDim::default();
    for (number, cap) in caps {
        let dim = Dim::ALL.get(usize::from(number)).ok_or_else(|| {
            format!("the journal holds a cap on budget dimension {number}, which this tissvm does not know")
        })?;
        budgets[*dim] = Some(cap);
    }
    machine.budgets = budgets;
    let policy = policy
        .map(|rules| Policy::new(rules).map(Rc::new))
        .transpose()
        .map_err(|e| format!("the journal's command policy does not compile: {e}"))?;
    machine.set_policy(policy);
    allow_answers_of(program, max_tokens);
    Ok(max_tokens)
}
