//! The verifier: nothing runs until the whole module has been checked, so
//! nothing a loaded module does can reach an internal error of the machine.
//! It works like the JVM's: an abstract interpreter that knows the type of
//! every stack value and variable at every instruction, on every path.
//!
//! Passes, in order, each refusing with an error that names the pc, table or
//! entry and what was expected there (`error.rs`):
//!
//! 1. **Tables** (`tables.rs`): every index a table holds is in range, and a
//!    variable a table fills is declared with the type it receives.
//! 2. **Operands** (`operands.rs`): every instruction's operands, reached or
//!    not.
//! 3. **Forward** (`forward.rs`): control only goes forward.
//! 4. **Flow** (`flow.rs`): from pc 0 and every task entry, in pc order, the
//!    type of every stack value (each instruction takes and gives what its
//!    `isa!` row says), the open steps (balanced on every path), the code
//!    unit of every instruction, handlers (what a failure in each range
//!    brings to the target), and the dominator tree.
//! 5. **Calls** (`calls.rs`): tasks call each other in no cycle.
//! 6. **Bindings** (`bindings.rs`): every variable and `LAST_RUN` is bound on
//!    every path before it is read, across CALLs.
//!
//! What passes 4 and 6 learn is kept as [`Facts`] (`facts.rs`): the state
//! every path brings to each instruction, which a snapshot's machine state
//! is checked against before it resumes.
//!
//! Time and memory are linear in the module: each instruction is visited
//! once per pass, and the state is a few `u32`s per basic block
//! (`blocks.rs`: an instruction inside a block is told by its place; stacks
//! are nodes of a forest, `forest.rs`; bound variables are kept along the
//! dominator tree).
//! Where paths meet, the work is what the paths between bound or pushed;
//! compiled plans need a few steps per instruction. A module built to need
//! more than [`WORK_PER_ITEM`] steps per instruction and table entry is
//! refused (`TooComplex`) rather than analysed for long.

mod bindings;
mod blocks;
mod calls;
mod error;
mod facts;
mod flow;
mod forest;
mod forward;
mod operands;
mod tables;

use error::Result;
pub use error::{Binding, Site, Table, Unit, VerifyError};
pub use facts::{Facts, PcFacts};

use crate::module::Module;

/// How many steps of analysis (where paths meet: values compared, variables
/// carried) a module may take per instruction and table entry.
pub const WORK_PER_ITEM: u64 = 16;

/// The most regular expressions a module may have: each is compiled when
/// it is loaded, up to `tiss_support::regex_limits`' sizes (a few hundred
/// KiB), and a plan has a handful; `tissc` refuses more (E0209).
pub const MAX_REGEXES: usize = 100;

/// The most options a CHOOSE may offer (a person picks one; the language sets
/// no limit, the compiler refuses more, E0110): each becomes text the run shows,
/// writes and keeps in a snapshot.
pub const MAX_CHOICE_OPTIONS: usize = 1000;

/// What one template's text may add up to beyond all the text the module
/// holds: the compiler stores a repeated piece of a template once, so its
/// text may exceed the string table a little, never by multiples.
pub const TEMPLATE_TEXT_SLACK: usize = 1 << 20;

/// A module holds fewer instructions than this: a pc and the verifier's
/// flags share 32 bits (`flow::ROOT`).
pub const MAX_CODE: usize = flow::ROOT as usize;

/// The first check of [`verify`], alone: the module holds code, and no more
/// of it than a module may (`CodeTooLong`, the one refusal a plan can earn by
/// its size). `tissc compile` runs only this unless asked to `--verify`: the
/// VM runs the rest on every load.
pub fn within_limits(module: &Module) -> Result<()> {
    let len = module.code.len();
    if len == 0 {
        return Err(VerifyError::EmptyCode);
    }
    if len >= MAX_CODE {
        return Err(VerifyError::CodeTooLong { len });
    }
    Ok(())
}

/// Checks that `module` is safe to run (see the module documentation), and
/// returns what is known at each instruction.
pub fn verify(module: &Module) -> Result<Facts> {
    within_limits(module)?;
    let len = module.code.len();
    let checker = tables::Checker { m: module, len };
    checker.tables()?;
    checker.operands()?;
    checker.forward_only()?;
    let items = len + module.slots.len() + module.handlers.len() + module.tasks.len() + module.choices.len();
    let limit = WORK_PER_ITEM.saturating_mul(items as u64).saturating_add(4096);
    let mut flow = flow::interpret(module, limit)?;
    let order = calls::callees_first(&flow)?;
    let bindings = bindings::check(module, &mut flow, &order, limit)?;
    Ok(Facts::new(flow, bindings))
}

#[cfg(test)]
pub(crate) mod tests;
