//! Typed answers (book: reference/types.md): the shape table, the slots and prompts that
//! hold answers, and MEMBER, HAS_MEMBER, LIST_CONTAINS, LIST_IS_EMPTY and
//! INTERP_SHELL against the shapes they are given.

use super::builder::Builder;
use super::*;
use crate::answer::{Shape, ShapeField};
use crate::isa::Want;
use crate::module::{PromptAnswer, PromptInfo};

/// Shapes: 0 STRING, 1 "a" | "b", 2 LIST OF STRING, 3 { v: "a" | "b",
/// files?: LIST OF STRING }, 4 LIST OF shape 3. Slots: r (shape 3), l
/// (shape 4), each bound by a typed prompt at the start of the code, then
/// `s`, a string constant (0).
fn builder() -> Builder {
    let mut b = Builder::new();
    let (a, bb, v, files) = (b.string("a"), b.string("b"), b.string("v"), b.string("files"));
    b.m.shapes = vec![
        Shape::Str,
        Shape::Enum(vec![a, bb]),
        Shape::List(0),
        Shape::Record(vec![
            ShapeField { name: v, optional: false, shape: 1 },
            ShapeField { name: files, optional: true, shape: 2 },
        ]),
        Shape::List(3),
    ];
    b.str_const("x");
    let r = b.slot("r", ValueType::Answer(3));
    let l = b.slot("l", ValueType::Answer(4));
    let (name, schema) = (b.string("T"), b.string("{}"));
    for (slot, shape) in [(r, 3), (l, 4)] {
        let prompt = b.m.prompts.len() as u32;
        b.m.prompts.push(PromptInfo {
            context: Vec::new(),
            default_context: false,
            into: slot,
            answer: Some(PromptAnswer { shape, name, schema }),
        });
        b.emit(Instr::PushConst { index: 0 });
        b.emit(Instr::Prompt { prompt });
    }
    b
}

fn code(code: &[Instr], max_stack: u32) -> Module {
    let mut b = builder();
    for &i in code {
        b.emit(i);
    }
    b.emit(Instr::Halt {});
    b.finish(max_stack)
}

const R: Instr = Instr::Load { slot: 0 };
const L: Instr = Instr::Load { slot: 1 };
const STR: Instr = Instr::PushConst { index: 0 };
const POP: Instr = Instr::Pop {};

#[test]
fn members_follow_the_record_shape() {
    // r.v is an enum: a string on the stack, comparable with a string.
    verify(&code(&[R, Instr::Member { index: 0 }, STR, Instr::Eq {}, POP], 2)).unwrap();
    // r.files is a typed list; HAS_MEMBER gives a boolean.
    verify(&code(&[R, Instr::Member { index: 1 }, Instr::ListIsEmpty {}, POP], 2)).unwrap();
    verify(&code(&[R, Instr::HasMember { index: 1 }, Instr::Not {}, POP], 2)).unwrap();
    let e = err(&code(&[R, Instr::Member { index: 2 }, POP], 2));
    assert_eq!(e, VerifyError::NoSuchMember { pc: 5, mnemonic: "MEMBER", index: 2, shape: 3 });
    let e = err(&code(&[L, Instr::Member { index: 0 }, POP], 2));
    assert!(matches!(e, VerifyError::WrongShape { shape: 4, expected: "a record", .. }), "{e}");
    let e = err(&code(&[STR, Instr::HasMember { index: 0 }, POP], 2));
    assert!(matches!(e, VerifyError::WrongType { expected: Want::AnswerRecord, .. }), "{e}");
    // A member is not a built-in record's FIELD.
    let e = err(&code(&[R, Instr::Field { field: 0 }, POP], 2));
    assert!(matches!(e, VerifyError::WrongType { expected: Want::Record, .. }), "{e}");
}

#[test]
fn list_tests_take_the_element_type() {
    let files = Instr::Member { index: 1 };
    verify(&code(&[R, files, STR, Instr::ListContains {}, POP], 2)).unwrap();
    let int = {
        let mut b = builder();
        let c = b.constant(Constant::Int(1));
        for i in [R, files, Instr::PushConst { index: c }, Instr::ListContains {}, POP, Instr::Halt {}] {
            b.emit(i);
        }
        b.finish(2)
    };
    assert!(matches!(err(&int), VerifyError::NotAlike { left: ValueType::Str, right: ValueType::Int, .. }));
    // A list of records has no plain elements to look for.
    let e = err(&code(&[L, STR, Instr::ListContains {}, POP], 2));
    assert!(matches!(e, VerifyError::WrongShape { shape: 4, .. }), "{e}");
    let e = err(&code(&[R, Instr::ListIsEmpty {}, POP], 2));
    assert!(matches!(e, VerifyError::WrongShape { shape: 3, .. }), "{e}");
}

#[test]
fn only_lists_of_plain_values_reach_a_command() {
    let shell = |hole: &[Instr]| {
        let mut b = builder();
        let t = b.template(vec![TemplatePart::Hole]);
        for &i in hole {
            b.emit(i);
        }
        for i in [Instr::InterpShell { template: t, holes: 1 }, POP, Instr::Halt {}] {
            b.emit(i);
        }
        b.finish(2)
    };
    verify(&shell(&[R, Instr::Member { index: 1 }])).unwrap();
    assert!(matches!(err(&shell(&[R])), VerifyError::WrongShape { shape: 3, .. }));
    assert!(matches!(err(&shell(&[L])), VerifyError::WrongShape { shape: 4, .. }));
}

#[test]
fn the_tables_are_checked() {
    // A shape referring forward, to itself.
    let mut m = code(&[], 1);
    m.shapes.push(Shape::List(5));
    assert!(matches!(err(&m), VerifyError::BadShape { .. }));
    // A slot whose answer shape is a leaf.
    let mut m = code(&[], 1);
    m.slots[0].ty = ValueType::Answer(0);
    assert!(matches!(err(&m), VerifyError::LeafAnswer { shape: 0, .. }));
    // A prompt whose slot is not of its answer's type.
    let mut m = code(&[], 1);
    m.prompts[0].answer = Some(PromptAnswer { shape: 4, ..m.prompts[0].answer.unwrap() });
    assert!(matches!(err(&m), VerifyError::SlotType { .. }));
    let mut m = code(&[], 1);
    m.prompts[0].answer = Some(PromptAnswer { shape: 9, ..m.prompts[0].answer.unwrap() });
    assert!(matches!(err(&m), VerifyError::IndexOutOfRange { table: Table::Shapes, .. }));
    // A slot whose shape does not exist.
    let mut m = code(&[], 1);
    m.slots[0].ty = ValueType::Answer(99);
    assert!(matches!(err(&m), VerifyError::IndexOutOfRange { table: Table::Shapes, .. }));
}
