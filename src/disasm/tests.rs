//! Unit tests of the disassembler on hand-built modules.

use super::*;
use crate::cost::bound::CostBound;
use crate::cost::{Dim, PerDim};
use crate::isa::run_flags;
use crate::module::kept_source::SourceHash;
use crate::module::*;
use crate::types::{Field, ValueType};

/// The source text of [`sample`].
const SOURCE: &str = "DEFINE_TASK \"lint\" { }\nTASK \"Build it\"\nSTEP \"Run\" {\n    WRITE \"main.py\" FROM x\r\n    RUN \"python3 ${f}\" TIMEOUT 30s\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n";

/// A small module touching every table.
fn sample() -> Module {
    let strings: crate::module::strings::StringTable = [
        "Build it",                           // 0
        "Language",                           // 1
        "Python",                             // 2
        "main.py",                            // 3
        "print('hi')\n",                      // 4
        "Run",                                // 5
        "python3 ",                           // 6
        "f",                                  // 7
        "^ok$",                               // 8
        "LAST_RUN.EXIT_CODE == 0",            // 9
        "it must pass",                       // 10
        "LAST_RUN.EXIT_CODE",                 // 11
        "lint",                               // 12
        "API_KEY",                            // 13
        "Pick one",                           // 14
        "a",                                  // 15
        "b",                                  // 16
        "e",                                  // 17
        "cost ${literal} \"quoted\" \\ done", // 18
        "python3 ${f}",                       // 19
    ]
    .into_iter()
    .collect();
    let bound = {
        let mut b = CostBound::ZERO;
        b.add(Dim::RunCount, 1);
        b.add_range(Dim::ExecutionTime, 1000, 30_000);
        b.add_range(Dim::Instructions, 10, 14);
        b
    };
    let code = vec![
        Instr::StepEnter { step: 0 },
        Instr::PushConst { index: 0 },
        Instr::PushConst { index: 1 },
        Instr::Write {},
        Instr::Load { slot: 0 },
        Instr::InterpShell { template: 0, holes: 1 },
        Instr::PushConst { index: 2 },
        Instr::Run { flags: run_flags::TIMEOUT },
        Instr::LastRun {},
        Instr::Field { field: Field::ExitCode as u8 },
        Instr::PushConst { index: 3 },
        Instr::Eq {},
        Instr::Assert { assertion: 0 },
        Instr::LastRun {},
        Instr::Field { field: Field::Stdout as u8 },
        Instr::Matches { regex: 0 },
        Instr::JumpIfFalse { target: 18 },
        Instr::Call { task: 0 },
        Instr::Choose { choice: 0 },
        Instr::Jump { target: 21 },
        Instr::PushConst { index: 4 },
        Instr::Env { name: 13 },
        Instr::PushConst { index: 5 },
        Instr::SetBudget { dim: 3 },
        Instr::StepExit { step: 0 },
        Instr::Halt {},
        Instr::Return {},
    ];
    Module {
        language: [1, 0, 0],
        task: 0,
        metadata: vec![(1, 2)],
        strings,
        constants: vec![
            Constant::Str(3),
            Constant::Str(4),
            Constant::Duration(30_000),
            Constant::Int(0),
            Constant::Str(18),
            Constant::Int(10),
        ],
        code,
        max_stack: 3,
        slots: vec![Slot { name: 7, ty: ValueType::Str }, Slot { name: 17, ty: ValueType::Error }],
        lines: vec![
            LineEntry { pc: 0, line: 3, column: 1 },
            LineEntry { pc: 1, line: 4, column: 5 },
            LineEntry { pc: 4, line: 5, column: 5 },
            LineEntry { pc: 8, line: 6, column: 5 },
            LineEntry { pc: 26, line: 1, column: 1 },
        ],
        steps: vec![StepInfo { name: 5, line: 3, column: 1, parent: NONE, depth: 0, bound }],
        tasks: vec![TaskInfo { name: 12, entry: 26, line: 1, bound: CostBound::ZERO }],
        handlers: vec![Handler {
            start: 4,
            end: 8,
            target: 20,
            stack_depth: 0,
            step_depth: 1,
            catch_slot: 1,
        }],
        regexes: vec![8],
        templates: vec![Template { parts: vec![TemplatePart::Text(6), TemplatePart::Hole] }],
        assertions: vec![Assertion {
            condition: 9,
            message: 10,
            observed: vec![Observed {
                text: 11,
                path: PathRef { root: PathRootRef::LastRun, fields: vec![Field::ExitCode as u8] },
            }],
        }],
        prompts: vec![PromptInfo { context: vec![0], default_context: false, into: NONE, answer: None }],
        shapes: Vec::new(),
        choices: vec![Choice {
            prompt: 14,
            options: vec![ChoiceOption { label: 15, target: 19 }, ChoiceOption { label: 16, target: 20 }],
        }],
        estimates: vec![bound],
        bound,
        manifest: Manifest {
            commands: vec![CommandEntry {
                text: 19,
                dynamic: true,
                dir: NONE,
                timeout_ms: Some(30_000),
                line: 5,
                step: 0,
            }],
            paths: vec![PathEntry { path: 3, access: PathAccess::Write, dynamic: false, line: 4 }],
            prompts: vec![],
            interactions: vec![InteractionEntry {
                kind: InteractionKind::Choose,
                text: 14,
                options: vec![15, 16],
                line: 7,
            }],
            budgets: vec![BudgetEntry { dim: 3, value: Some(10), line: 8 }],
            env: vec![(13, 8)],
            risk: Risk {
                level: RiskLevel::Medium,
                reasons: vec![RiskReason { kind: RiskKind::DynamicCommand, subject: NONE, line: 5 }],
            },
        },
        source: Source::Embedded { name: "build.tiss".to_string(), text: SOURCE.to_string() },
    }
}

#[test]
fn listing_shows_every_part() {
    let text = disassemble(&sample(), "sha256:abc");
    let expect = [
        "task      \"Build it\"",
        "language  1.0.0",
        "metadata  Language = \"Python\"",
        "hash      sha256:abc",
        "source    \"build.tiss\" (embedded, 7 lines,",
        "counts    27 instructions",
        "  #0    str  $3 \"main.py\"",
        "  #2    dur  30s",
        "  #4    str  $18 \"cost \\${literal} \\\"quoted\\\" \\\\ done\"",
        "  $4    \"print('hi')\\n\"",
        "  %0    f: string",
        "  %1    e: error record",
        "       3 | STEP \"Run\" {",
        "  0000  STEP_ENTER     step=0                 ; \"Run\"",
        "       4 |     WRITE \"main.py\" FROM x\n",
        "  0001  PUSH_CONST     index=0                ; \"main.py\"",
        "        ; try #0 (to 0008)",
        "  0004  LOAD           slot=0                 ; f",
        "  0005  INTERP_SHELL   template=0 holes=1     ; \"python3 ${}\"",
        "  0007  RUN            flags=TIMEOUT\n",
        "  0009  FIELD          field=EXIT_CODE\n",
        "  0012  ASSERT         assertion=0            ; LAST_RUN.EXIT_CODE == 0",
        "  0015  MATCHES        regex=0                ; \"^ok$\"",
        "  0016  JUMP_IF_FALSE  target=0018\n",
        "  0017  CALL           task=0                 ; \"lint\"",
        "  0018  CHOOSE         choice=0               ; \"Pick one\", 2 options",
        "        ; choice #0 option 1 \"a\"",
        "        ; catch #0\n        ; choice #0 option 2 \"b\"",
        "  0021  ENV            name=13                ; API_KEY",
        "  0023  SET_BUDGET     dim=RUN_COUNT\n",
        "        ; task #0 \"lint\"\n       1 | DEFINE_TASK \"lint\" { }\n  0026  RETURN\n",
        "  #0    \"Run\"  line 3:1  parent -  depth 0",
        "bound API_CALLS 0, TOKEN_COUNT 0, EXECUTION_TIME 1000..30000ms, RUN_COUNT 1, INSTRUCTIONS 10..14",
        "  #0    \"lint\"  entry 0026  line 1",
        "  #0    0004..0008 -> 0020  stack depth 0  step depth 1  catch %1 e",
        "  #0    $8 \"^ok$\"",
        "  #0    \"python3 ${}\"  (1 hole)",
        "         MESSAGE \"it must pass\"",
        "         shows LAST_RUN.EXIT_CODE = LAST_RUN.EXIT_CODE",
        "  #0    WITH f  INTO -",
        "         1. \"a\" -> 0019",
        "  EXECUTION_TIME  1000 .. 30000 ms",
        "    line 5     RUN \"python3 ${f}\" TIMEOUT 30s  (dynamic)  in step #0 \"Run\"",
        "    line 4     write            \"main.py\"",
        "  prompts: none",
        "    line 7     CHOOSE         \"Pick one\"  options \"a\", \"b\"",
        "    line 8     RUN_COUNT = 10",
        "    line 8     API_KEY",
        "  risk: medium\n    line 5     medium command built at run time (from values, or a program only running it tells)",
    ];
    for e in expect {
        assert!(text.contains(e), "missing {e:?} in\n{text}");
    }
    // The same module gives the same text.
    assert_eq!(text, disassemble(&sample(), "sha256:abc"));
}

#[test]
fn stripped_source_shows_line_numbers_only() {
    let mut m = sample();
    m.source = Source::Stripped;
    let text = disassemble(&m, "h");
    assert!(text.contains("source    stripped"), "{text}");
    assert!(text.contains("\n       3 |\n  0000  STEP_ENTER"), "{text}");
}

#[test]
fn a_source_hash_shows_the_text_found_beside_or_why_not() {
    let mut m = sample();
    m.source.drop_text();
    let hash = SourceHash::of(SOURCE);
    let text = disassemble(&m, "h");
    let why = Unavailable::NoPlanFile.to_string();
    assert!(text.contains(&format!("\nsource    hash {hash}, text not shown: {why}\n")), "{text}");
    assert!(text.contains("\n       3 |\n  0000  STEP_ENTER"), "{text}");

    let found = SourceText { name: "dir/build.tiss".into(), text: SOURCE.into(), beside: true };
    let text = disassemble_with_source(&m, "h", &Ok(found));
    assert!(
        text.contains(
            "\nsource    \"dir/build.tiss\" (beside the bytecode, same hash, 7 lines, 152 bytes)\n"
        ),
        "{text}"
    );
    assert!(text.contains("\n       3 | STEP \"Run\" {\n  0000  STEP_ENTER"), "{text}");
}

#[test]
fn bad_indices_never_panic() {
    let mut m = sample();
    let big = 1_000_000;
    m.task = big;
    m.metadata.push((big, big));
    m.constants.push(Constant::Str(big));
    m.slots.push(Slot { name: big, ty: ValueType::Int });
    m.code = vec![
        Instr::PushConst { index: big },
        Instr::Load { slot: big },
        Instr::Store { slot: u32::MAX },
        Instr::Field { field: 200 },
        Instr::Interp { template: big, holes: 2 },
        Instr::Estimate { estimate: big },
        Instr::Matches { regex: big },
        Instr::Jump { target: big },
        Instr::Call { task: big },
        Instr::StepEnter { step: big },
        Instr::Assert { assertion: big },
        Instr::Choose { choice: big },
        Instr::Env { name: big },
        Instr::Prompt { prompt: big },
        Instr::Review { slot: big },
        Instr::SetBudget { dim: 77 },
        Instr::Run { flags: 0xFF },
        Instr::Read { slot: big },
    ];
    m.lines = vec![LineEntry { pc: 0, line: 0, column: 0 }, LineEntry { pc: 3, line: big, column: 1 }];
    m.steps.push(StepInfo { name: big, line: 0, column: 0, parent: big, depth: 9, bound: CostBound::ZERO });
    m.tasks.push(TaskInfo { name: big, entry: big, line: 0, bound: CostBound::ZERO });
    m.handlers.push(Handler {
        start: big,
        end: 0,
        target: big,
        stack_depth: 0,
        step_depth: 0,
        catch_slot: big,
    });
    m.regexes.push(big);
    m.templates.push(Template { parts: vec![TemplatePart::Text(big), TemplatePart::Hole] });
    m.assertions.push(Assertion {
        condition: big,
        message: big,
        observed: vec![Observed {
            text: big,
            path: PathRef { root: PathRootRef::Slot(big), fields: vec![99] },
        }],
    });
    m.prompts.push(PromptInfo { context: vec![big], default_context: true, into: big, answer: None });
    m.prompts.push(PromptInfo {
        context: vec![],
        default_context: false,
        into: big,
        answer: Some(PromptAnswer { shape: big, name: big, schema: big }),
    });
    m.shapes.push(crate::answer::Shape::Enum(vec![big]));
    m.slots.push(Slot { name: 0, ty: ValueType::Answer(big) });
    m.choices.push(Choice { prompt: big, options: vec![ChoiceOption { label: big, target: big }] });
    m.manifest.commands[0].text = big;
    m.manifest.commands[0].dir = big;
    m.manifest.commands[0].step = big;
    m.manifest.budgets.push(BudgetEntry { dim: 200, value: None, line: 0 });
    m.manifest.env.push((big, 0));
    m.bound.max = PerDim::new([u64::MAX; 5]);
    let text = disassemble(&m, "");
    assert!(text.contains("<bad index 1000000>"), "{text}");
    assert!(text.contains("field=<bad field 200>"), "{text}");
    assert!(text.contains("dim=<bad dimension 77>"), "{text}");
    assert!(text.contains("flags=DIR|TIMEOUT|0xFC"), "{text}");
    assert!(text.contains("target=1000000 <bad index 1000000>"), "{text}");
    assert!(
        text.contains("  0002  STORE          slot=4294967295        ; <bad index 4294967295>\n"),
        "{text}"
    );
    assert!(text.contains("| <no such line>"), "{text}");
    assert!(text.contains("unbounded"), "{text}");

    // An empty module too.
    let empty = Module {
        language: [0, 0, 0],
        task: 0,
        metadata: vec![],
        strings: Default::default(),
        constants: vec![],
        code: vec![],
        max_stack: 0,
        slots: vec![],
        lines: vec![],
        steps: vec![],
        tasks: vec![],
        handlers: vec![],
        regexes: vec![],
        templates: vec![],
        assertions: vec![],
        prompts: vec![],
        shapes: Vec::new(),
        choices: vec![],
        estimates: vec![],
        bound: CostBound::ZERO,
        manifest: Manifest::default(),
        source: Source::Stripped,
    };
    let text = disassemble(&empty, "h");
    assert!(text.contains("task      <bad index 0>"), "{text}");
    assert!(text.contains("code (0 instructions):"), "{text}");
}

#[test]
fn escaping_and_shortening() {
    assert_eq!(quote("a\"b\\c\n${x} $y \u{1b}\u{202E}"), "\"a\\\"b\\\\c\\n\\${x} $y \\u{1B}\\u{202E}\"");
    assert_eq!(shorten("abcdefghij", 10), "abcdefghij");
    assert_eq!(shorten("abcdefghijk", 10), "abcde...jk");
    assert_eq!(shorten("ééééééééééé", 6), "éé...é");
    assert_eq!(shorten_quoted("\"\\n\\n\\n\\n\\n\\u{1B}x\"", 5), "\"\\n\\n...\"");
    assert_eq!(printable("a\tb\u{7}\n"), "a\tb\\u{7}\\n");
}

#[test]
fn shapes_and_typed_prompts() {
    use crate::answer::{Shape, ShapeField};
    let mut m = sample();
    // `{ e?: "a" | "b", tags: LIST OF STRING }`, names from the string table.
    m.shapes = vec![
        Shape::Enum(vec![15, 16]),
        Shape::Str,
        Shape::List(1),
        Shape::Record(vec![
            ShapeField { name: 17, optional: true, shape: 0 },
            ShapeField { name: 7, optional: false, shape: 2 },
        ]),
    ];
    m.slots[0].ty = ValueType::Answer(3);
    m.prompts = vec![PromptInfo {
        context: vec![],
        default_context: true,
        into: 0,
        answer: Some(PromptAnswer { shape: 3, name: 14, schema: 18 }),
    }];
    let text = disassemble(&m, "h");
    let expect = "\nshapes (4):\n  #0    \"a\" | \"b\"\n  #1    STRING\n  #2    LIST OF STRING\n  \
                  #3    { e?: \"a\" | \"b\", f: LIST OF STRING }\n\ncode (";
    assert!(text.contains(expect), "{text}");
    assert!(text.contains("  %0    f: typed answer (list or record) #3\n"), "{text}");
    assert!(
        text.contains("  #0    WITH default context  INTO %0 f  AS #3  schema \"Pick one\" $18\n"),
        "{text}"
    );

    // A table that does not resolve is shown as it is, with why.
    m.shapes.push(Shape::List(9));
    m.shapes.push(Shape::Record(vec![ShapeField { name: 1_000_000, optional: false, shape: 0 }]));
    m.prompts[0].answer = Some(PromptAnswer { shape: 77, name: 14, schema: 18 });
    let text = disassemble(&m, "h");
    assert!(
        text.contains("shapes (6):\n  (does not resolve: shape 4 refers to shape 9, not one before it)\n"),
        "{text}"
    );
    assert!(
        text.contains("  #3    { e?: #0, f: #2 }\n  #4    LIST OF #9\n  #5    { <bad index 1000000>: #0 }\n"),
        "{text}"
    );
    assert!(text.contains("INTO %0 f  AS <bad index 77>  schema"), "{text}");

    // A shape used twice at every level is cut, not written out 2^40 times.
    m.shapes = vec![Shape::Int];
    for i in 0..40 {
        let field = |name| ShapeField { name, optional: false, shape: i };
        m.shapes.push(Shape::Record(vec![field(15), field(16)]));
    }
    let text = disassemble(&m, "h");
    let last = text.lines().find(|l| l.starts_with("  #40   ")).expect("shape 40");
    assert!(last.ends_with('…') && last.len() < 500, "{last}");
}
