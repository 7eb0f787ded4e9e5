//! Definite assignment on bytecode: every variable and LAST_RUN bound on
//! every path before it is read, across joins, handlers and CALLs, and the
//! verifier's budget for modules built to make that expensive.

use super::builder::Builder;
use super::*;
use crate::module::{Choice, ChoiceOption, Handler, TaskInfo};

const STR: Instr = Instr::PushConst { index: 0 };
const TRUE: Instr = Instr::PushConst { index: 1 };
const STORE: Instr = Instr::Store { slot: 0 };
const LOAD: Instr = Instr::Load { slot: 0 };

/// A module with a string and a boolean constant and a string variable
/// `x` (slot 0), running `main`, then the tasks' code, one per entry.
fn plan(main: &[Instr], tasks: &[&[Instr]]) -> Module {
    let mut b = Builder::new();
    b.str_const("hello");
    b.constant(Constant::Bool(true));
    b.slot("x", ValueType::Str);
    for &i in main {
        b.emit(i);
    }
    for task in tasks {
        let entry = b.pc();
        for &i in *task {
            b.emit(i);
        }
        b.m.tasks.push(TaskInfo { name: 0, entry, line: 1, bound: Default::default() });
    }
    b.finish(2)
}

fn unbound(e: &VerifyError) -> Option<(u32, Option<u32>)> {
    match e {
        VerifyError::Unbound { pc, through_task, .. } => Some((*pc, *through_task)),
        _ => None,
    }
}

#[test]
fn a_read_before_any_binding_is_refused() {
    verify(&plan(&[STR, STORE, LOAD, Instr::Log {}, Instr::Halt {}], &[])).unwrap();
    let e = err(&plan(&[LOAD, Instr::Log {}, Instr::Halt {}], &[]));
    assert_eq!(
        e.to_string(),
        "pc 0 (LOAD): reads variable `x` (slot 0), which is not bound on every path to here (bind it before every use)"
    );
    let e = err(&plan(&[Instr::LastRun {}, Instr::Pop {}, Instr::Halt {}], &[]));
    assert_eq!(
        e,
        VerifyError::Unbound { pc: 0, mnemonic: "LAST_RUN", binding: Binding::LastRun, through_task: None }
    );
    verify(&plan(&[STR, Instr::Run { flags: 0 }, Instr::LastRun {}, Instr::Pop {}, Instr::Halt {}], &[]))
        .unwrap();
}

#[test]
fn where_paths_meet_only_what_every_path_bound() {
    // IF TRUE { x = "hello" } ELSE { x = "hello" }; LOG x
    let both = [
        TRUE,
        Instr::JumpIfFalse { target: 5 },
        STR,
        STORE,
        Instr::Jump { target: 7 },
        STR,
        STORE,
        LOAD,
        Instr::Log {},
        Instr::Halt {},
    ];
    verify(&plan(&both, &[])).unwrap();
    // Only the THEN arm binds it.
    let mut one = both;
    one[5] = STR;
    one[6] = Instr::Pop {};
    assert_eq!(unbound(&err(&plan(&one, &[]))), Some((7, None)));
    // Bound before the branch: bound after it.
    let before = [
        STR,
        STORE,
        TRUE,
        Instr::JumpIfFalse { target: 6 },
        STR,
        Instr::Pop {},
        LOAD,
        Instr::Log {},
        Instr::Halt {},
    ];
    verify(&plan(&before, &[])).unwrap();
}

#[test]
fn a_choice_binds_what_every_option_binds() {
    let code = [
        Instr::Choose { choice: 0 },
        STR,
        STORE,
        Instr::Jump { target: 6 },
        STR,
        STORE,
        LOAD,
        Instr::Log {},
        Instr::Halt {},
    ];
    let mut m = plan(&code, &[]);
    m.choices.push(Choice {
        prompt: NONE,
        options: vec![ChoiceOption { label: 0, target: 1 }, ChoiceOption { label: 0, target: 4 }],
    });
    verify(&m).unwrap();
    // A third option straight to the end binds nothing.
    m.choices[0].options.push(ChoiceOption { label: 0, target: 6 });
    assert_eq!(unbound(&err(&m)), Some((6, None)));
}

#[test]
fn a_catch_block_has_what_the_try_started_with() {
    // TRY { x = "hello"; LOG x } CATCH { LOG x }
    let code =
        [STR, STORE, LOAD, Instr::Log {}, Instr::Jump { target: 7 }, LOAD, Instr::Log {}, Instr::Halt {}];
    let mut m = plan(&code, &[]);
    m.handlers.push(Handler { start: 0, end: 4, target: 5, stack_depth: 0, step_depth: 0, catch_slot: NONE });
    // The failure may come before the STORE.
    assert_eq!(unbound(&err(&m)), Some((5, None)));
    // Bound before the TRY: bound in the CATCH.
    m.handlers[0].start = 2;
    verify(&m).unwrap();
}

#[test]
fn a_task_needs_what_it_reads_from_its_callers() {
    let task: &[Instr] = &[LOAD, Instr::Log {}, Instr::Return {}];
    // Bound before the CALL.
    verify(&plan(&[STR, STORE, Instr::Call { task: 0 }, Instr::Halt {}], &[task])).unwrap();
    // Not bound: the CALL is refused, naming the task.
    let e = err(&plan(&[Instr::Call { task: 0 }, Instr::Halt {}], &[task]));
    assert_eq!(unbound(&e), Some((0, Some(0))));
    assert_eq!(
        e.to_string(),
        "pc 0 (CALL): tasks[0] reads variable `x` (slot 0), which is not bound on every path to here (bind it \
         before every use)"
    );
    // Through another task, and LAST_RUN too.
    let reads_last_run: &[Instr] = &[Instr::LastRun {}, Instr::Pop {}, Instr::Return {}];
    let calls_it: &[Instr] = &[Instr::Call { task: 0 }, Instr::Return {}];
    let e = err(&plan(&[Instr::Call { task: 1 }, Instr::Halt {}], &[reads_last_run, calls_it]));
    assert!(matches!(
        e,
        VerifyError::Unbound { pc: 0, binding: Binding::LastRun, through_task: Some(1), .. }
    ));
}

#[test]
fn a_call_binds_what_the_task_binds_on_every_path() {
    let binds: &[Instr] = &[STR, STORE, Instr::Return {}];
    verify(&plan(&[Instr::Call { task: 0 }, LOAD, Instr::Log {}, Instr::Halt {}], &[binds])).unwrap();
    // On one path only.
    let sometimes: &[Instr] =
        &[TRUE, Instr::JumpIfFalse { target: 9 }, STR, STORE, Instr::Return {}, Instr::Return {}];
    let m = plan(&[Instr::Call { task: 0 }, LOAD, Instr::Log {}, Instr::Halt {}], &[sometimes]);
    assert_eq!(unbound(&err(&m)), Some((1, None)));
}

#[test]
fn a_module_built_to_take_long_is_refused() {
    // Many variables bound on one path to a join that a CHOOSE enters by
    // each of its many options (as many as a CHOOSE may have): each way in
    // looks at every variable.
    const N: u32 = 2_000;
    let mut b = Builder::new();
    b.str_const("v");
    for i in 0..N {
        b.slot(&format!("v{i}"), ValueType::Str);
    }
    b.emit(Instr::Choose { choice: 0 });
    let binds = b.pc();
    for i in 0..N {
        b.emit(STR);
        b.emit(Instr::Store { slot: i });
    }
    b.emit(Instr::Choose { choice: 1 });
    let other = b.emit(Instr::Jump { target: 0 });
    let join = b.emit(Instr::Halt {});
    b.patch(other, join);
    let option = |target| ChoiceOption { label: 0, target };
    b.m.choices.push(Choice { prompt: NONE, options: vec![option(binds), option(other)] });
    b.m.choices.push(Choice { prompt: NONE, options: vec![option(join); crate::verify::MAX_CHOICE_OPTIONS] });
    let e = err(&b.finish(1));
    assert!(matches!(e, VerifyError::TooComplex { .. }), "{e}");
    assert!(e.to_string().contains("more than the"), "{e}");
}
