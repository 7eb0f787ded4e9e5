//! The types of stack values and variables, steps and handlers on every
//! path: the probe's cases (a TIMEOUT given a string, STEP_ENTER turned into
//! STEP_EXIT, an integer stored where a string variable is read) and each
//! rule beside them.

use super::builder::{Builder, sample};
use super::*;
use crate::isa::{Want, run_flags};
use crate::module::{Choice, ChoiceOption, Handler, PromptInfo, TaskInfo};
use crate::types::Field;

/// A builder with a string, an integer, a duration and a boolean constant
/// (0..=3) and a string, an integer and a review variable (slots 0..=2).
fn builder() -> Builder {
    let mut b = Builder::new();
    b.str_const("x");
    b.constant(Constant::Int(3));
    b.constant(Constant::Duration(1000));
    b.constant(Constant::Bool(true));
    b.slot("s", ValueType::Str);
    b.slot("n", ValueType::Int);
    b.slot("r", ValueType::Review);
    b
}

const STR: Instr = Instr::PushConst { index: 0 };
const INT: Instr = Instr::PushConst { index: 1 };
const DURATION: Instr = Instr::PushConst { index: 2 };
const TRUE: Instr = Instr::PushConst { index: 3 };

fn code(code: &[Instr], max_stack: u32) -> Module {
    let mut b = builder();
    for &i in code {
        b.emit(i);
    }
    b.finish(max_stack)
}

#[test]
fn a_timeout_must_be_a_duration() {
    let run = Instr::Run { flags: run_flags::TIMEOUT };
    verify(&code(&[STR, DURATION, run, Instr::Halt {}], 2)).unwrap();
    let e = err(&code(&[STR, STR, run, Instr::Halt {}], 2));
    assert_eq!(
        e,
        VerifyError::WrongType {
            pc: 2,
            mnemonic: "RUN",
            what: "the timeout",
            expected: Want::Duration,
            found: ValueType::Str
        }
    );
    assert_eq!(
        e.to_string(),
        "pc 2 (RUN): the timeout must be a duration, but the stack holds a string there"
    );
    // The command below it is a string too.
    let e = err(&code(&[INT, DURATION, run, Instr::Halt {}], 2));
    assert!(matches!(e, VerifyError::WrongType { what: "the command", found: ValueType::Int, .. }), "{e}");
}

#[test]
fn a_variable_holds_its_declared_type() {
    let e = err(&code(&[INT, Instr::Store { slot: 0 }, Instr::Halt {}], 1));
    assert_eq!(
        e.to_string(),
        "pc 1 (STORE): variable `s` (slot 0) is declared a string, but the value stored is a integer"
    );
    // A LOAD gives the declared type: an integer variable is no path.
    let m =
        code(&[INT, Instr::Store { slot: 1 }, Instr::Load { slot: 1 }, Instr::Mkdir {}, Instr::Halt {}], 1);
    assert!(matches!(err(&m), VerifyError::WrongType { pc: 3, found: ValueType::Int, .. }));
    // READ fills a string variable, REVIEW a review, a CATCH an error, a prompt a string.
    let e = err(&code(&[STR, Instr::Read { slot: 1 }, Instr::Halt {}], 1));
    assert_eq!(e.to_string(), "pc 1 (READ): slot 1 is declared a integer, but it receives a string here");
    assert!(matches!(
        err(&code(&[STR, Instr::Review { slot: 0 }, Instr::Halt {}], 1)),
        VerifyError::SlotType { .. }
    ));
    let mut m = code(&[Instr::Halt {}, Instr::Halt {}], 0);
    m.handlers.push(Handler { start: 0, end: 1, target: 1, stack_depth: 0, step_depth: 0, catch_slot: 0 });
    assert_eq!(
        err(&m).to_string(),
        "handlers[0]: slot 0 is declared a string, but it receives a error record here"
    );
    let mut m = code(&[Instr::Halt {}], 0);
    m.prompts.push(PromptInfo { context: Vec::new(), default_context: true, into: 2, answer: None });
    assert!(matches!(err(&m), VerifyError::SlotType { slot: 2, declared: ValueType::Review, .. }));
}

#[test]
fn each_instruction_takes_its_types() {
    let halt = Instr::Halt {};
    // Comparisons: both sides alike; ordering takes integers or durations.
    let e = err(&code(&[STR, INT, Instr::Eq {}, Instr::Pop {}, halt], 2));
    assert_eq!(
        e,
        VerifyError::NotAlike { pc: 2, mnemonic: "EQ", left: ValueType::Str, right: ValueType::Int }
    );
    let e = err(&code(&[STR, STR, Instr::Lt {}, Instr::Pop {}, halt], 2));
    assert!(matches!(e, VerifyError::WrongType { expected: Want::Ordered, .. }), "{e}");
    verify(&code(&[DURATION, DURATION, Instr::Ge {}, Instr::Pop {}, halt], 2)).unwrap();
    // Conditions are booleans; string tests take strings.
    let e = err(&code(&[STR, Instr::JumpIfFalse { target: 2 }, halt], 1));
    assert!(matches!(e, VerifyError::WrongType { expected: Want::Bool, .. }), "{e}");
    assert!(verify(&code(&[TRUE, Instr::IsEmpty {}, Instr::Pop {}, halt], 1)).is_err());
    assert!(verify(&code(&[TRUE, Instr::Not {}, Instr::Pop {}, halt], 1)).is_ok());
    // AND and OR take two booleans and give one.
    for op in [Instr::And {}, Instr::Or {}] {
        verify(&code(&[TRUE, TRUE, op, Instr::Not {}, Instr::Pop {}, halt], 2)).unwrap();
        for (left, right) in [(STR, TRUE), (TRUE, INT), (DURATION, DURATION)] {
            let e = err(&code(&[left, right, op, Instr::Pop {}, halt], 2));
            assert!(matches!(e, VerifyError::WrongType { expected: Want::Bool, .. }), "{e}");
        }
        let e = err(&code(&[TRUE, op, Instr::Pop {}, halt], 1));
        assert!(matches!(e, VerifyError::StackUnderflow { pops: 2, depth: 1, .. }), "{e}");
    }
    // A budget is a duration for EXECUTION_TIME, an integer otherwise.
    assert!(verify(&code(&[INT, Instr::SetBudget { dim: 2 }, halt], 1)).is_err());
    assert!(verify(&code(&[DURATION, Instr::SetBudget { dim: 2 }, halt], 1)).is_ok());
    assert!(verify(&code(&[DURATION, Instr::SetBudget { dim: 3 }, halt], 1)).is_err());
    // A record is never printed whole: not inserted, written or set as ENV.
    let mut b = builder();
    let t = b.template(vec![TemplatePart::Hole]);
    for i in [Instr::Cost {}, Instr::Interp { template: t, holes: 1 }, Instr::Log {}, halt] {
        b.emit(i);
    }
    let e = err(&b.finish(1));
    assert!(
        matches!(e, VerifyError::WrongType { expected: Want::Printable, found: ValueType::Cost, .. }),
        "{e}"
    );
}

#[test]
fn fields_exist_on_their_record() {
    let field = |f: Field| Instr::Field { field: f as u8 };
    let ok = [Instr::Cost {}, field(Field::RunCount), Instr::Pop {}, Instr::Halt {}];
    verify(&code(&ok, 1)).unwrap();
    let e = err(&code(&[Instr::Cost {}, field(Field::Message), Instr::Pop {}, Instr::Halt {}], 1));
    assert_eq!(e.to_string(), "pc 1 (FIELD): a COST record has no field MESSAGE (number 17)");
    // An estimate has the `_MIN` twins; COST has not.
    let mut b = builder();
    b.m.estimates.push(Default::default());
    for i in [Instr::Estimate { estimate: 0 }, field(Field::RunCountMin), Instr::Pop {}, Instr::Halt {}] {
        b.emit(i);
    }
    verify(&b.finish(1)).unwrap();
    assert!(
        verify(&code(&[Instr::Cost {}, field(Field::RunCountMin), Instr::Pop {}, Instr::Halt {}], 1))
            .is_err()
    );
    // A field of a field: an integer is no record.
    let e = err(&code(
        &[Instr::Cost {}, field(Field::RunCount), field(Field::Line), Instr::Pop {}, Instr::Halt {}],
        1,
    ));
    assert!(matches!(e, VerifyError::WrongType { expected: Want::Record, found: ValueType::Int, .. }), "{e}");
}

#[test]
fn stacks_agree_in_types_where_paths_meet() {
    // IF TRUE { PUSH "x" } ELSE { PUSH 3 }; LOG
    let m = code(
        &[
            TRUE,
            Instr::JumpIfFalse { target: 4 },
            STR,
            Instr::Jump { target: 5 },
            INT,
            Instr::Log {},
            Instr::Halt {},
        ],
        1,
    );
    let e = err(&m);
    assert_eq!(
        e,
        VerifyError::StackMismatch {
            pc: 5,
            from: 4,
            this: vec![ValueType::Str],
            other: vec![ValueType::Int]
        }
    );
    assert_eq!(
        e.to_string(),
        "pc 5: reached from pc 4 with the stack [integer], but with [string] on another path"
    );
}

#[test]
fn steps_are_balanced_on_every_path() {
    let mut b = builder();
    let s = b.step("a", NONE, 0);
    let t = b.step("b", NONE, 0);
    let module = |b: &Builder, code: &[Instr]| {
        let mut m = b.m.clone();
        m.code = code.to_vec();
        m.max_stack = 1;
        m
    };
    let (enter, exit) = (Instr::StepEnter { step: s }, Instr::StepExit { step: s });
    verify(&module(&b, &[enter, exit, Instr::Halt {}])).unwrap();
    // STEP_ENTER turned into STEP_EXIT.
    let e = err(&module(&b, &[exit, exit, Instr::Halt {}]));
    assert_eq!(e, VerifyError::StepExitUnopened { pc: 0, step: s });
    assert_eq!(e.to_string(), "pc 0 (STEP_EXIT): leaves step 0, but no step is open there");
    let e = err(&module(&b, &[enter, Instr::StepExit { step: t }, Instr::Halt {}]));
    assert_eq!(e, VerifyError::StepExitOther { pc: 1, step: t, open: s });
    let e = err(&module(&b, &[enter, Instr::Halt {}]));
    assert_eq!(e, VerifyError::StepsOpen { pc: 1, mnemonic: "HALT", open: vec![s] });
    // A jump out of a step skips its STEP_EXIT on one path.
    let e = err(&module(&b, &[enter, TRUE, Instr::JumpIfTrue { target: 4 }, exit, Instr::Halt {}]));
    assert_eq!(e, VerifyError::StepsMismatch { pc: 4, from: 3, this: vec![s], other: Vec::new() });
    // A task opens and closes its own steps.
    let mut m = module(&b, &[enter, Instr::Call { task: 0 }, exit, Instr::Halt {}, exit, Instr::Return {}]);
    m.tasks.push(TaskInfo { name: 0, entry: 4, line: 1, bound: Default::default() });
    assert_eq!(err(&m), VerifyError::StepExitUnopened { pc: 4, step: s });
}

#[test]
fn a_task_is_called_with_an_empty_stack() {
    let mut m = code(&[STR, Instr::Call { task: 0 }, Instr::Log {}, Instr::Halt {}, Instr::Return {}], 1);
    m.tasks.push(TaskInfo { name: 0, entry: 4, line: 1, bound: Default::default() });
    let e = err(&m);
    assert_eq!(e, VerifyError::CallDepth { pc: 1, depth: 1 });
    assert_eq!(e.to_string(), "pc 1 (CALL): 1 values are on the stack; a task is called with an empty stack");
}

#[test]
fn a_handler_keeps_the_steps_its_range_has() {
    let mut b = builder();
    let s = b.step("a", NONE, 0);
    let (enter, exit) = (Instr::StepEnter { step: s }, Instr::StepExit { step: s });
    // TRY { STEP a { LOG } } CATCH { } with the handler keeping the step open.
    let code = [enter, STR, Instr::Log {}, exit, Instr::Jump { target: 6 }, Instr::Halt {}, Instr::Halt {}];
    for &i in &code {
        b.emit(i);
    }
    let mut m = b.finish(1);
    m.handlers.push(Handler { start: 1, end: 3, target: 5, stack_depth: 0, step_depth: 0, catch_slot: NONE });
    // The target is reached with no step open, and HALTs.
    verify(&m).unwrap();
    // Keeping the step open, the target HALTs inside it.
    m.handlers[0].step_depth = 1;
    assert_eq!(err(&m), VerifyError::StepsOpen { pc: 5, mnemonic: "HALT", open: vec![s] });
    // A range reaching outside the step cannot keep it.
    m.handlers[0] = Handler { start: 0, end: 3, ..m.handlers[0] };
    assert_eq!(err(&m), VerifyError::HandlerSteps { handler: 0, pc: 0, open: 0, step_depth: 1 });
}

#[test]
fn every_instruction_belongs_to_one_unit() {
    // The task (entry pc 1) jumps to the main code's HALT.
    let code =
        [Instr::Jump { target: 2 }, Instr::Jump { target: 3 }, Instr::Call { task: 0 }, Instr::Halt {}];
    let mut m = self::code(&code, 0);
    m.tasks.push(TaskInfo { name: 0, entry: 1, line: 1, bound: Default::default() });
    let first = Unit::Task { task: 0, entry: 1 };
    assert_eq!(err(&m), VerifyError::SharedCode { pc: 3, first, second: Unit::Main });
    // A task starting where the main code starts.
    m.tasks[0].entry = 0;
    let first = Unit::Main;
    assert_eq!(err(&m), VerifyError::SharedCode { pc: 0, first, second: Unit::Task { task: 0, entry: 0 } });
}

#[test]
fn a_choice_continues_at_each_option_with_the_same_state() {
    let mut m = code(&[Instr::Choose { choice: 0 }, Instr::Halt {}, STR, Instr::Log {}, Instr::Halt {}], 1);
    m.choices.push(Choice {
        prompt: NONE,
        options: vec![ChoiceOption { label: 0, target: 1 }, ChoiceOption { label: 0, target: 2 }],
    });
    verify(&m).unwrap();
}

#[test]
fn the_sample_facts() {
    let m = sample();
    let facts = verify(&m).unwrap();
    // Inside the main step, after `name` is stored and a RUN ran.
    let at = m.code.iter().position(|i| matches!(i, Instr::LastRun {})).unwrap() as u32;
    let here = facts.at(&m, at).unwrap();
    assert_eq!(here.unit, Unit::Main);
    assert_eq!((here.stack.clone(), here.steps.clone(), here.last_run), (Vec::new(), vec![0], true));
    assert_eq!(here.bound, vec![0]);
    // The CATCH block: the caught error is bound, and what the task bound is not
    // (the failure may come before its RETURN).
    let catch = m.handlers[0].target;
    let here = facts.at(&m, catch).unwrap();
    assert!(here.bound.contains(&3), "{here:?}");
    // In the task: its own steps only.
    let entry = m.tasks[0].entry;
    let inside = facts.at(&m, entry + 1).unwrap();
    assert_eq!(inside.unit, Unit::Task { task: 0, entry });
    assert_eq!(inside.steps, vec![1]);
    assert_eq!(facts.task_unit(0), Some(inside.unit));
    assert_eq!(facts.at(&m, m.code.len() as u32), None);
}
