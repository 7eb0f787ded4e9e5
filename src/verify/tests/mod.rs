pub(crate) mod builder;

use super::*;
use crate::isa::{Instr, NO_SLOT};
use crate::module::{
    Assertion, Choice, ChoiceOption, CommandEntry, Constant, Handler, LineEntry, TaskInfo, Template,
};
use crate::module::{Module, NONE, PathRootRef, TemplatePart};
use crate::types::ValueType;
use builder::{Builder, sample, tiny};

fn err(m: &Module) -> VerifyError {
    match verify(m) {
        Ok(_) => panic!("verified, but should not have"),
        Err(e) => e,
    }
}

/// `b` with `code` appended, finished with `max_stack`.
fn module(code: &[Instr], max_stack: u32) -> Module {
    let mut b = Builder::new();
    b.str_const("x");
    b.constant(Constant::Bool(true));
    b.slot("v", ValueType::Str);
    for &i in code {
        b.emit(i);
    }
    b.finish(max_stack)
}

const PUSH: Instr = Instr::PushConst { index: 0 };
const PUSH_TRUE: Instr = Instr::PushConst { index: 1 };

#[test]
fn valid_modules_verify() {
    verify(&tiny()).unwrap();
    verify(&sample()).unwrap();
    verify(&module(
        &[PUSH, Instr::Store { slot: 0 }, Instr::Load { slot: 0 }, Instr::Log {}, Instr::Halt {}],
        1,
    ))
    .unwrap();
}

#[test]
fn empty_code_is_refused() {
    assert_eq!(err(&module(&[], 0)), VerifyError::EmptyCode);
}

#[test]
fn jump_out_of_range() {
    let e = err(&module(&[Instr::Jump { target: 7 }, Instr::Halt {}], 0));
    assert_eq!(
        e,
        VerifyError::TargetOutOfRange {
            site: Site::Pc { pc: 0, mnemonic: "JUMP" },
            what: "jump target",
            target: 7,
            len: 2
        }
    );
    assert_eq!(e.to_string(), "pc 0 (JUMP): jump target 7 is outside the code (2 instructions)");
    let e = err(&module(&[PUSH_TRUE, Instr::JumpIfFalse { target: 2 }], 1));
    assert!(matches!(e, VerifyError::TargetOutOfRange { target: 2, .. }), "{e}");
}

#[test]
fn bad_constant_string_and_slot_indices() {
    let e = err(&module(&[Instr::PushConst { index: 5 }, Instr::Log {}, Instr::Halt {}], 1));
    assert_eq!(e.to_string(), "pc 0 (PUSH_CONST): constant 5 is out of range (2 constants)");

    let mut m = tiny();
    m.constants[0] = Constant::Str(40);
    assert_eq!(err(&m).to_string(), "constants[0]: string 40 is out of range (2 strings)");

    let e = err(&module(&[Instr::Load { slot: 3 }, Instr::Log {}, Instr::Halt {}], 1));
    assert_eq!(e.to_string(), "pc 0 (LOAD): slot 3 is out of range (1 slots)");
    let e = err(&module(&[PUSH, Instr::Store { slot: NONE }, Instr::Halt {}], 1));
    assert!(matches!(e, VerifyError::IndexOutOfRange { table: Table::Slots, .. }), "{e}");
    let e = err(&module(&[PUSH, Instr::Env { name: 9 }, Instr::Halt {}], 1));
    assert!(matches!(e, VerifyError::IndexOutOfRange { table: Table::Strings, index: 9, .. }), "{e}");

    // REVIEW may bind nothing, but not a slot that does not exist.
    verify(&module(&[PUSH, Instr::Review { slot: NO_SLOT }, Instr::Halt {}], 1)).unwrap();
    let e = err(&module(&[PUSH, Instr::Review { slot: 1 }, Instr::Halt {}], 1));
    assert!(matches!(e, VerifyError::IndexOutOfRange { table: Table::Slots, index: 1, .. }), "{e}");
}

#[test]
fn table_indices_are_checked() {
    let mut m = tiny();
    m.task = NONE;
    assert_eq!(err(&m).to_string(), format!("module.task: task string {NONE} is out of range (2 strings)"));

    let mut m = sample();
    m.steps[1].name = 999;
    assert_eq!(
        err(&m).to_string(),
        format!("steps[1]: name string 999 is out of range ({} strings)", m.strings.len())
    );

    let mut m = sample();
    m.assertions[0].observed[2].path.root = PathRootRef::Slot(500);
    assert!(err(&m).to_string().starts_with("assertions[0].observed[2]: root slot 500 is out of range"));

    let mut m = sample();
    m.assertions[0].observed[0].path.fields.push(22);
    assert!(matches!(err(&m), VerifyError::BadOperand { what: "field number", value: 22, .. }));

    let mut m = sample();
    m.templates[0].parts[0] = TemplatePart::Text(NONE);
    assert!(err(&m).to_string().starts_with("templates[0].parts[0]: text string"));

    let mut m = sample();
    m.prompts[0].context[1] = 77;
    assert!(err(&m).to_string().starts_with("prompts[0].context[1]: slot 77"));

    let mut m = sample();
    m.manifest.commands[1].dir = 12345;
    assert!(err(&m).to_string().starts_with("manifest.commands[1]: dir string 12345"));

    let mut m = sample();
    m.manifest.commands[0].step = 2;
    assert!(err(&m).to_string().starts_with("manifest.commands[0]: step 2 is out of range (2 steps)"));

    let mut m = sample();
    m.manifest.budgets.first_mut().expect("the sample caps a budget").dim = 5;
    assert!(matches!(err(&m), VerifyError::BadOperand { what: "dimension number", value: 5, .. }));

    let mut m = sample();
    m.handlers[0].catch_slot = 100;
    assert!(err(&m).to_string().starts_with("handlers[0]: catch slot 100"));

    let mut m = sample();
    m.choices[0].options[1].target = 100_000;
    assert!(err(&m).to_string().starts_with("choices[0].options[1]: target 100000 is outside the code"));

    let mut m = sample();
    m.tasks[0].entry = m.code.len() as u32;
    assert!(matches!(err(&m), VerifyError::TargetOutOfRange { what: "entry", .. }));

    let mut m = sample();
    m.manifest.risk.reasons[0].subject = 2;
    assert!(err(&m).to_string().starts_with("manifest.risk.reasons[0]: subject prompt 2 is out of range"));
    m.manifest.risk.reasons[0].subject = 0;
    m.manifest.risk.reasons[1].subject = 999;
    assert!(err(&m).to_string().starts_with("manifest.risk.reasons[1]: subject string 999"));

    // NONE is "absent" where the module allows it.
    let mut m = sample();
    m.assertions[0].message = NONE;
    m.choices[0].prompt = NONE;
    m.prompts[0].into = NONE;
    m.manifest.commands[0] = CommandEntry { dir: NONE, step: NONE, ..m.manifest.commands[0].clone() };
    m.manifest.interactions[0].text = NONE;
    m.steps[1].parent = NONE;
    verify(&m).unwrap();
    // Without its catch slot, the CATCH block's read of `e` has nothing bound.
    m.handlers[0].catch_slot = NONE;
    assert!(matches!(err(&m), VerifyError::Unbound { binding: Binding::Slot { slot: 3, .. }, .. }));
}

#[test]
fn step_parent_must_come_first() {
    let mut m = sample();
    m.steps[0].parent = 1;
    assert_eq!(err(&m), VerifyError::StepParent { step: 0, parent: 1 });
    m.steps[0].parent = 0;
    assert_eq!(err(&m), VerifyError::StepParent { step: 0, parent: 0 });
}

#[test]
fn line_table_sorted_and_in_range() {
    let mut m = tiny();
    m.lines = vec![LineEntry { pc: 1, line: 1, column: 1 }, LineEntry { pc: 0, line: 2, column: 1 }];
    assert_eq!(err(&m), VerifyError::LinesUnsorted { entry: 1, pc: 0, previous: 1 });
    m.lines = vec![LineEntry { pc: 3, line: 1, column: 1 }];
    assert_eq!(err(&m), VerifyError::LineOutOfRange { entry: 0, pc: 3, len: 3 });
}

#[test]
fn small_operands_are_checked() {
    let e = err(&module(&[Instr::LastRun {}, Instr::Field { field: 22 }, Instr::Log {}, Instr::Halt {}], 1));
    assert_eq!(
        e.to_string(),
        "pc 1 (FIELD): field number 22 is invalid (expected a record field number, 0..=21)"
    );
    let e = err(&module(&[PUSH, Instr::SetBudget { dim: 5 }, Instr::Halt {}], 1));
    assert!(matches!(e, VerifyError::BadOperand { what: "dimension number", .. }), "{e}");
    let e = err(&module(&[PUSH, Instr::Run { flags: 4 }, Instr::Halt {}], 1));
    assert!(matches!(e, VerifyError::BadOperand { what: "flags", value: 4, .. }), "{e}");
    let e = err(&module(&[PUSH, Instr::Delete { recursive: 2 }, Instr::Halt {}], 1));
    assert!(matches!(e, VerifyError::BadOperand { what: "recursive flag", value: 2, .. }), "{e}");
}

#[test]
fn holes_must_match_the_template() {
    let mut b = Builder::new();
    let x = b.str_const("x");
    let t = b.template(vec![TemplatePart::Hole, TemplatePart::Hole]);
    b.emit(Instr::PushConst { index: x });
    b.emit(Instr::Interp { template: t, holes: 1 });
    b.emit(Instr::Log {});
    b.emit(Instr::Halt {});
    let e = err(&b.finish(1));
    assert_eq!(e.to_string(), "pc 1 (INTERP): fills 1 holes, but template 0 has 2");
}

#[test]
fn stack_underflow() {
    let e = err(&module(&[Instr::Pop {}, Instr::Halt {}], 1));
    assert_eq!(e, VerifyError::StackUnderflow { pc: 0, mnemonic: "POP", depth: 0, pops: 1 });
    let e = err(&module(&[PUSH, PUSH, Instr::Run { flags: 3 }, Instr::Halt {}], 2));
    assert_eq!(e.to_string(), "pc 2 (RUN): pops 3 values but the stack holds 2");
}

#[test]
fn stack_mismatch_at_a_merge() {
    // IF: the THEN arm pushes a value the ELSE arm does not.
    let code = [PUSH_TRUE, Instr::JumpIfFalse { target: 3 }, PUSH, Instr::Halt {}];
    let e = err(&module(&code, 1));
    let this = vec![ValueType::Str];
    assert_eq!(e, VerifyError::StackMismatch { pc: 3, from: 2, this: Vec::new(), other: this });
    assert_eq!(e.to_string(), "pc 3: reached from pc 2 with the stack [string], but with [] on another path");
}

#[test]
fn stack_above_max_stack() {
    let e = err(&module(&[PUSH, PUSH, Instr::Eq {}, Instr::Log {}, Instr::Halt {}], 1));
    assert_eq!(e, VerifyError::StackOverflow { pc: 1, mnemonic: "PUSH_CONST", depth: 2, max_stack: 1 });
    let e = err(&module(&[Instr::Halt {}], 2));
    assert_eq!(e, VerifyError::MaxStackTooLarge { max_stack: 2, len: 1 });
}

#[test]
fn falling_off_the_end() {
    let e = err(&module(&[PUSH, Instr::Log {}], 1));
    assert_eq!(e, VerifyError::FallsOffEnd { pc: 1, mnemonic: "LOG" });
    // Unreachable code is not followed (but its operands are checked).
    verify(&module(&[Instr::Halt {}, PUSH], 1)).unwrap();
    assert!(verify(&module(&[Instr::Halt {}, Instr::Load { slot: 9 }], 1)).is_err());
}

#[test]
fn terminators_match_their_code() {
    let e = err(&module(&[Instr::Return {}], 0));
    assert_eq!(e, VerifyError::ReturnInMain { pc: 0 });

    let mut m = module(&[Instr::Call { task: 0 }, Instr::Halt {}, Instr::Halt {}], 0);
    m.tasks.push(TaskInfo { name: 0, entry: 2, line: 1, bound: Default::default() });
    assert_eq!(err(&m), VerifyError::HaltInTask { pc: 2 });

    // A task's body and the main code may not share code.
    let mut m = module(&[Instr::Call { task: 0 }, Instr::Halt {}], 0);
    m.tasks.push(TaskInfo { name: 0, entry: 1, line: 1, bound: Default::default() });
    let e = err(&m);
    assert_eq!(
        e,
        VerifyError::SharedCode { pc: 1, first: Unit::Task { task: 0, entry: 1 }, second: Unit::Main }
    );
    assert_eq!(
        e.to_string(),
        "pc 1: reached from tasks[0] (entry pc 1) and from the main code; each instruction belongs to one of them"
    );

    let mut m = module(&[Instr::Call { task: 0 }, Instr::Halt {}, PUSH, Instr::Return {}], 1);
    m.tasks.push(TaskInfo { name: 0, entry: 2, line: 1, bound: Default::default() });
    assert_eq!(err(&m), VerifyError::ReturnDepth { pc: 3, depth: 1 });

    let e = err(&module(&[Instr::Call { task: 0 }, Instr::Halt {}], 0));
    assert!(matches!(e, VerifyError::IndexOutOfRange { table: Table::Tasks, .. }), "{e}");
}

#[test]
fn handlers_are_followed() {
    // TRY { PUSH; LOG } CATCH { POP (underflow) }
    let mut m = module(&[PUSH, Instr::Log {}, Instr::Halt {}, Instr::Pop {}, Instr::Halt {}], 1);
    m.handlers.push(Handler { start: 0, end: 2, target: 3, stack_depth: 0, step_depth: 0, catch_slot: NONE });
    assert_eq!(err(&m), VerifyError::StackUnderflow { pc: 3, mnemonic: "POP", depth: 0, pops: 1 });

    // The handler keeps one value; its code may pop it.
    let code = [PUSH, PUSH, Instr::Log {}, Instr::Log {}, Instr::Halt {}, Instr::Log {}, Instr::Halt {}];
    let mut m = module(&code, 2);
    m.handlers.push(Handler { start: 1, end: 3, target: 5, stack_depth: 1, step_depth: 0, catch_slot: NONE });
    verify(&m).unwrap();
    // ... but not keep more than every pc of its range holds.
    m.handlers[0].stack_depth = 2;
    assert_eq!(err(&m), VerifyError::HandlerStack { handler: 0, pc: 1, holds: 1, stack_depth: 2 });

    // A nested TRY inside a CATCH block is reached through the outer handler.
    let code = [Instr::Halt {}, Instr::Log {}, Instr::Halt {}, Instr::Halt {}, Instr::Pop {}, Instr::Halt {}];
    let mut m = module(&code, 1);
    m.handlers.push(Handler { start: 0, end: 1, target: 3, stack_depth: 0, step_depth: 0, catch_slot: NONE });
    m.handlers.push(Handler { start: 3, end: 4, target: 4, stack_depth: 0, step_depth: 0, catch_slot: NONE });
    assert_eq!(err(&m), VerifyError::StackUnderflow { pc: 4, mnemonic: "POP", depth: 0, pops: 1 });

    let mut m = tiny();
    m.handlers.push(Handler { start: 2, end: 4, target: 0, stack_depth: 0, step_depth: 0, catch_slot: NONE });
    assert_eq!(err(&m), VerifyError::HandlerRange { handler: 0, start: 2, end: 4, len: 3 });
    m.handlers[0] = Handler { start: 2, end: 1, ..m.handlers[0] };
    assert!(matches!(err(&m), VerifyError::HandlerRange { .. }));
    m.handlers[0] = Handler { start: 0, end: 1, target: 3, ..m.handlers[0] };
    assert!(matches!(err(&m), VerifyError::TargetOutOfRange { what: "target", .. }));
}

#[test]
fn control_only_goes_forward_and_calls_form_no_cycle() {
    // A backward jump: a loop the language cannot write.
    let e = err(&module(
        &[PUSH_TRUE, Instr::JumpIfTrue { target: 3 }, Instr::Jump { target: 0 }, Instr::Halt {}],
        1,
    ));
    assert!(matches!(e, VerifyError::BackwardJump { what: "jump target", target: 0, .. }), "{e:?}");
    // A CHOOSE option that goes back.
    let mut m = module(&[Instr::Halt {}, Instr::Choose { choice: 0 }, Instr::Halt {}], 1);
    m.code[0] = Instr::Jump { target: 1 };
    m.choices.push(Choice { prompt: NONE, options: vec![ChoiceOption { label: 0, target: 0 }] });
    assert!(matches!(err(&m), VerifyError::BackwardJump { what: "option target", .. }));
    // Two tasks calling each other.
    let mut m = module(
        &[
            Instr::Call { task: 0 },
            Instr::Halt {},
            Instr::Call { task: 1 },
            Instr::Return {},
            Instr::Call { task: 0 },
            Instr::Return {},
        ],
        1,
    );
    m.tasks.push(TaskInfo { name: 0, entry: 2, line: 1, bound: Default::default() });
    m.tasks.push(TaskInfo { name: 0, entry: 4, line: 1, bound: Default::default() });
    assert!(matches!(err(&m), VerifyError::CallCycle { .. }), "{:?}", err(&m));
    // A task calling itself.
    let mut m =
        module(&[Instr::Call { task: 0 }, Instr::Halt {}, Instr::Call { task: 0 }, Instr::Return {}], 1);
    m.tasks.push(TaskInfo { name: 0, entry: 2, line: 1, bound: Default::default() });
    assert!(matches!(err(&m), VerifyError::CallCycle { task: 0 }));
}

#[test]
fn choices_are_followed() {
    let mut m = module(&[Instr::Choose { choice: 0 }, Instr::Halt {}, Instr::Log {}, Instr::Halt {}], 1);
    m.choices.push(Choice {
        prompt: NONE,
        options: vec![ChoiceOption { label: 0, target: 1 }, ChoiceOption { label: 0, target: 2 }],
    });
    assert_eq!(err(&m), VerifyError::StackUnderflow { pc: 2, mnemonic: "LOG", depth: 0, pops: 1 });
    m.choices[0].options.clear();
    assert_eq!(err(&m), VerifyError::EmptyChoice { choice: 0 });

    // A choice belongs to one CHOOSE.
    let code = [
        PUSH_TRUE,
        Instr::JumpIfFalse { target: 3 },
        Instr::Choose { choice: 0 },
        Instr::Choose { choice: 0 },
        Instr::Halt {},
    ];
    let mut m = module(&code, 1);
    m.choices.push(Choice { prompt: NONE, options: vec![ChoiceOption { label: 0, target: 4 }] });
    assert_eq!(err(&m), VerifyError::ChoiceShared { choice: 0, pc: 3, other: 2 });
}

#[test]
fn every_operand_pushed_out_of_range_is_refused() {
    let m = sample();
    for pc in 0..m.code.len() {
        let mut bad = m.clone();
        let instr = &mut bad.code[pc];
        let changed = match instr {
            Instr::PushConst { index: x }
            | Instr::Load { slot: x }
            | Instr::Store { slot: x }
            | Instr::Read { slot: x }
            | Instr::Review { slot: x }
            | Instr::Interp { template: x, .. }
            | Instr::InterpShell { template: x, .. }
            | Instr::Estimate { estimate: x }
            | Instr::Matches { regex: x }
            | Instr::Jump { target: x }
            | Instr::JumpIfFalse { target: x }
            | Instr::JumpIfTrue { target: x }
            | Instr::Call { task: x }
            | Instr::StepEnter { step: x }
            | Instr::StepExit { step: x }
            | Instr::Assert { assertion: x }
            | Instr::Fail { assertion: x }
            | Instr::Choose { choice: x }
            | Instr::Env { name: x }
            | Instr::Prompt { prompt: x } => {
                *x = u32::MAX - 1;
                true
            }
            Instr::Field { field: x }
            | Instr::Run { flags: x }
            | Instr::Delete { recursive: x }
            | Instr::SetBudget { dim: x } => {
                *x = u8::MAX;
                true
            }
            _ => false,
        };
        if changed {
            assert!(verify(&bad).is_err(), "pc {pc}: {:?} verified", bad.code[pc]);
        }
    }
}

#[test]
fn many_uses_of_one_large_table_entry_stay_linear() {
    // 50,000 CHOOSEs of one choice of as many options as a CHOOSE may have,
    // and 50,000 (unreachable) INTERPs of one 50,000-hole template:
    // quadratic work would take minutes.
    const N: u32 = 50_000;
    let mut b = Builder::new();
    let t = b.template(vec![TemplatePart::Hole; N as usize]);
    // Every option leads forward, to the HALT after the CHOOSEs.
    let options =
        (0..crate::verify::MAX_CHOICE_OPTIONS).map(|_| ChoiceOption { label: 0, target: N }).collect();
    b.m.choices.push(Choice { prompt: NONE, options });
    for _ in 0..N {
        b.emit(Instr::Choose { choice: 0 });
    }
    b.emit(Instr::Halt {});
    for _ in 0..N {
        b.emit(Instr::Interp { template: t, holes: N });
    }
    let m = b.finish(0);
    let start = std::time::Instant::now();
    verify(&m).unwrap();
    assert!(start.elapsed().as_secs() < 20, "verification is too slow: {:?}", start.elapsed());
}

#[test]
fn assertion_table_entries() {
    let mut m = sample();
    m.assertions.push(Assertion { condition: 0, message: 3_000, observed: Vec::new() });
    assert!(err(&m).to_string().starts_with("assertions[2]: message string 3000"));
    let mut m = sample();
    m.templates.push(Template { parts: vec![TemplatePart::Text(0), TemplatePart::Text(9_999)] });
    assert!(err(&m).to_string().starts_with("templates[2].parts[1]"));
}

mod answers;
mod bindings;
mod types;

#[test]
fn each_regex_is_compiled_once() {
    let mut m = module(&[Instr::Halt {}], 0);
    m.regexes = vec![0];
    verify(&m).unwrap();
    m.regexes = vec![0, 0];
    assert_eq!(err(&m), VerifyError::RegexRepeated { regex: 1, earlier: 0 });
    m.regexes = vec![0; MAX_REGEXES + 1];
    assert_eq!(err(&m), VerifyError::TooManyRegexes { count: MAX_REGEXES + 1 });
}

#[test]
fn tables_that_would_make_a_run_copy_text_without_end_are_refused() {
    // Two text parts in a row: the compiler joins them.
    let mut m = sample();
    m.templates.push(Template { parts: vec![TemplatePart::Text(0), TemplatePart::Text(0)] });
    assert!(matches!(err(&m), VerifyError::TemplateTextRepeated { part: 1, .. }), "{}", err(&m));
    // A context naming one variable twice.
    let mut m = sample();
    assert!(!m.slots.is_empty());
    m.prompts.push(crate::module::PromptInfo {
        context: vec![0, 0],
        default_context: false,
        into: NONE,
        answer: None,
    });
    assert!(matches!(err(&m), VerifyError::ContextRepeated { entry: 1, .. }), "{}", err(&m));
}
