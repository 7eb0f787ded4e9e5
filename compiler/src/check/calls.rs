//! The call graph of `DEFINE_TASK`s must be acyclic (book: reference/structure.md: a plan has no
//! loops and no recursion). Reports each cycle once, at the CALL that closes
//! it (E0211), and gives the callee-first order the flow summaries need.

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;

use super::Ctx;
use super::literals::quote;
use super::symbols::Symbols;

#[derive(Clone, Copy, PartialEq)]
enum Color {
    Unseen,
    /// On the depth-first path now: a CALL of it closes a cycle.
    OnPath,
    Finished,
}

/// Reports call cycles; returns the tasks (first definitions only) in
/// callee-first order. Within a cycle, one call is left without a summary.
pub(crate) fn check(syms: &Symbols<'_>, cx: &mut Ctx<'_>) -> Vec<u32> {
    let n = syms.tasks.len();
    let mut color = vec![Color::Unseen; n];
    // Index in `stack` of each task on the path.
    let mut depth = vec![0usize; n];
    let mut order = Vec::with_capacity(n);
    // Iterative depth-first search: (task, index of its next call).
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for root in 0..n {
        if !syms.tasks[root].is_first || color[root] != Color::Unseen {
            continue;
        }
        color[root] = Color::OnPath;
        depth[root] = 0;
        stack.push((root as u32, 0));
        while let Some(&mut (task, ref mut next)) = stack.last_mut() {
            let Some(call) = syms.tasks[task as usize].calls.get(*next) else {
                color[task as usize] = Color::Finished;
                order.push(task);
                stack.pop();
                continue;
            };
            *next += 1;
            let Some(&callee) = syms.task_ids.get(call.name) else { continue };
            match color[callee as usize] {
                Color::Unseen => {
                    color[callee as usize] = Color::OnPath;
                    depth[callee as usize] = stack.len();
                    stack.push((callee, 0));
                }
                Color::OnPath => {
                    let cycle = &stack[depth[callee as usize]..];
                    let mut names: Vec<String> = cycle
                        .iter()
                        .map(|&(t, _)| quote(syms.tasks[t as usize].name.unwrap_or("")))
                        .collect();
                    names.push(quote(call.name));
                    let message = if cycle.len() == 1 {
                        format!("task {} calls itself: {}", names[0], names.join(" → "))
                    } else {
                        format!("tasks call each other in a cycle: {}", names.join(" → "))
                    };
                    cx.emit(Diagnostic::error(codes::CALL_CYCLE, call.span, message).with_note(
                        "a plan has no loops: a task cannot call itself, directly or \
                             through other tasks",
                    ));
                }
                Color::Finished => {}
            }
        }
    }
    order
}
