//! The call graph of the code units: the CALLs pass 3 reached. Calls must
//! form no cycle (frames would grow without bound), and the bindings pass
//! summarises each task before the units that call it.

use super::error::{Result, VerifyError};
use super::flow::Flow;

/// Every unit, each after the units it calls; the main code (unit 0) comes
/// after every task it reaches. An iterative depth-first search, so a long
/// chain of tasks cannot exhaust the Rust stack.
pub(crate) fn callees_first(flow: &Flow) -> Result<Vec<u32>> {
    let n = flow.units.len();
    // The calls as adjacency lists in one vector (a counting sort by caller).
    let mut first = vec![0usize; n + 1];
    for &(caller, _) in &flow.calls {
        first[caller as usize + 1] += 1;
    }
    for u in 1..=n {
        first[u] += first[u - 1];
    }
    let mut fill = first.clone();
    let mut callees = vec![0u32; flow.calls.len()];
    for &(caller, callee) in &flow.calls {
        callees[fill[caller as usize]] = callee;
        fill[caller as usize] += 1;
    }

    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; n];
    let mut order = Vec::with_capacity(n);
    // Tasks first, then the main code: the tasks it calls come before it anyway.
    for root in (1..n).chain(std::iter::once(0)) {
        if state[root] != NEW {
            continue;
        }
        state[root] = ON_PATH;
        let mut path = vec![(root, first[root])];
        while let Some((unit, next)) = path.last_mut() {
            if *next < first[*unit + 1] {
                let callee = callees[*next] as usize;
                *next += 1;
                match state[callee] {
                    ON_PATH => {
                        // A task's unit is never the main code's (pass 3).
                        let task = flow.units[callee].task.unwrap_or(0);
                        return Err(VerifyError::CallCycle { task });
                    }
                    NEW => {
                        state[callee] = ON_PATH;
                        path.push((callee, first[callee]));
                    }
                    _ => {}
                }
            } else {
                state[*unit] = DONE;
                order.push(*unit as u32);
                path.pop();
            }
        }
    }
    Ok(order)
}
