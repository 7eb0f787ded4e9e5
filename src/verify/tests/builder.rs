//! Test helper: builds valid modules by hand.
//!
//! [`sample`] is a fixed module that uses every instruction and fills every
//! table (with every enum variant): the round-trip, corruption and
//! fingerprint tests run on it. Changing it changes the pinned module hash
//! in `src/container/tests.rs`.

use crate::cost::PerDim;
use crate::cost::bound::CostBound;
use crate::isa::{Instr, NO_SLOT, run_flags};
use crate::module::*;
use crate::types::{Field, ValueType};

/// Builds a module: interns strings, appends constants, slots, code.
pub(crate) struct Builder {
    pub m: Module,
}

impl Builder {
    /// An empty module whose task is "test": no code yet, `max_stack` 0.
    pub fn new() -> Builder {
        let mut b = Builder {
            m: Module {
                language: [1, 0, 0],
                task: 0,
                metadata: Vec::new(),
                strings: Default::default(),
                constants: Vec::new(),
                code: Vec::new(),
                max_stack: 0,
                slots: Vec::new(),
                lines: Vec::new(),
                steps: Vec::new(),
                tasks: Vec::new(),
                handlers: Vec::new(),
                regexes: Vec::new(),
                templates: Vec::new(),
                assertions: Vec::new(),
                prompts: Vec::new(),
                shapes: Vec::new(),
                choices: Vec::new(),
                estimates: Vec::new(),
                bound: CostBound::ZERO,
                manifest: Manifest::default(),
                source: Source::Stripped,
            },
        };
        b.m.task = b.string("test");
        b
    }

    pub fn string(&mut self, s: &str) -> u32 {
        if let Some(i) = self.m.strings.iter().position(|x| x == s) {
            return i as u32;
        }
        self.m.strings.push(s)
    }

    pub fn constant(&mut self, c: Constant) -> u32 {
        self.m.constants.push(c);
        self.m.constants.len() as u32 - 1
    }

    pub fn str_const(&mut self, s: &str) -> u32 {
        let s = self.string(s);
        self.constant(Constant::Str(s))
    }

    pub fn slot(&mut self, name: &str, ty: ValueType) -> u32 {
        let name = self.string(name);
        self.m.slots.push(Slot { name, ty });
        self.m.slots.len() as u32 - 1
    }

    /// The pc of the next instruction.
    pub fn pc(&self) -> u32 {
        self.m.code.len() as u32
    }

    pub fn emit(&mut self, instr: Instr) -> u32 {
        self.m.code.push(instr);
        self.pc() - 1
    }

    /// Points the jump at `pc` to `target`.
    pub fn patch(&mut self, pc: u32, to: u32) {
        match &mut self.m.code[pc as usize] {
            Instr::Jump { target } | Instr::JumpIfFalse { target } | Instr::JumpIfTrue { target } => {
                *target = to
            }
            other => panic!("pc {pc} is {other:?}, not a jump"),
        }
    }

    pub fn template(&mut self, parts: Vec<TemplatePart>) -> u32 {
        self.m.templates.push(Template { parts });
        self.m.templates.len() as u32 - 1
    }

    pub fn step(&mut self, name: &str, parent: u32, depth: u32) -> u32 {
        let name = self.string(name);
        self.m.steps.push(StepInfo { name, line: 1, column: 1, parent, depth, bound: CostBound::ZERO });
        self.m.steps.len() as u32 - 1
    }

    pub fn finish(mut self, max_stack: u32) -> Module {
        self.m.max_stack = max_stack;
        self.m
    }
}

/// A minimal valid module: `PUSH_CONST "hello"; LOG; HALT`.
pub(crate) fn tiny() -> Module {
    let mut b = Builder::new();
    let c = b.str_const("hello");
    b.emit(Instr::PushConst { index: c });
    b.emit(Instr::Log {});
    b.emit(Instr::Halt {});
    b.m.lines.push(LineEntry { pc: 0, line: 3, column: 1 });
    b.finish(1)
}

fn bound(seed: u64) -> CostBound {
    CostBound {
        min: PerDim::new([seed, seed + 1, seed + 2, seed + 3, seed + 4]),
        max: PerDim::new([seed + 10, seed + 11, seed + 12, seed + 13, seed + 14]),
    }
}

/// A fixed, valid module using every instruction and every table. Values are
/// distinct where they could be confused, so swapping two fields of the same
/// type changes the encoding.
pub(crate) fn sample() -> Module {
    let mut b = Builder::new();
    let lang_key = b.string("Language");
    let lang_value = b.string("Python");
    b.m.metadata.push((lang_key, lang_value));

    let s_cmd = b.str_const("echo ${name}");
    let s_dir = b.str_const("build");
    let d_timeout = b.constant(Constant::Duration(30_000));
    let i_zero = b.constant(Constant::Int(0));
    let i_big = b.constant(Constant::Int(-7));
    let t_true = b.constant(Constant::Bool(true));
    let s_path = b.str_const("out/result.txt");
    let s_text = b.str_const("passed");
    let s_pattern = b.str_const("^ok");
    let v_name = b.slot("name", ValueType::Str);
    let v_content = b.slot("content", ValueType::Str);
    let v_review = b.slot("review", ValueType::Review);
    let v_error = b.slot("e", ValueType::Error);
    let v_answer = b.slot("answer", ValueType::Str);
    for (i, ty) in [
        ValueType::Int,
        ValueType::Duration,
        ValueType::Bool,
        ValueType::LastRun,
        ValueType::Cost,
        ValueType::Estimate,
    ]
    .into_iter()
    .enumerate()
    {
        b.slot(&format!("v{i}"), ty);
    }

    let hello = b.string("hello ");
    let t_hello = b.template(vec![TemplatePart::Text(hello), TemplatePart::Hole]);
    let echo = b.string("echo ");
    let t_echo = b.template(vec![TemplatePart::Text(echo), TemplatePart::Hole, TemplatePart::Hole]);
    let regex = b.string("^[0-9]+$");
    b.m.regexes.push(regex);
    b.m.estimates.push(bound(100));
    b.m.bound = bound(200);

    let main_step = b.step("Build", NONE, 0);
    let task_step = b.step("Helper step", main_step, 1);
    let condition = b.string("LAST_RUN.EXIT_CODE == 0");
    let message = b.string("the build failed");
    let observed = b.string("LAST_RUN.EXIT_CODE");
    b.m.assertions.push(Assertion {
        condition,
        message,
        observed: vec![
            Observed {
                text: observed,
                path: PathRef { root: PathRootRef::LastRun, fields: vec![Field::ExitCode as u8] },
            },
            Observed {
                text: observed,
                path: PathRef { root: PathRootRef::Cost, fields: vec![Field::RunCount as u8] },
            },
            Observed {
                text: observed,
                path: PathRef { root: PathRootRef::Slot(v_error), fields: vec![17, 19] },
            },
        ],
    });
    b.m.assertions.push(Assertion { condition, message: NONE, observed: Vec::new() });
    b.m.prompts.push(PromptInfo {
        context: vec![v_content, v_name],
        default_context: false,
        into: v_answer,
        answer: None,
    });
    b.m.prompts.push(PromptInfo { context: Vec::new(), default_context: true, into: NONE, answer: None });

    // ---- main code --------------------------------------------------------
    b.emit(Instr::StepEnter { step: main_step });
    b.emit(Instr::PushConst { index: s_dir });
    b.emit(Instr::Store { slot: v_name });
    b.emit(Instr::Load { slot: v_name });
    b.emit(Instr::Interp { template: t_hello, holes: 1 });
    b.emit(Instr::Log {});
    b.emit(Instr::Load { slot: v_name });
    b.emit(Instr::Load { slot: v_name });
    b.emit(Instr::InterpShell { template: t_echo, holes: 2 });
    b.emit(Instr::PushConst { index: s_dir });
    b.emit(Instr::PushConst { index: d_timeout });
    b.emit(Instr::Run { flags: run_flags::DIR | run_flags::TIMEOUT });
    b.emit(Instr::PushConst { index: s_cmd });
    b.emit(Instr::Run { flags: 0 });
    b.emit(Instr::LastRun {});
    b.emit(Instr::Field { field: Field::ExitCode as u8 });
    b.emit(Instr::PushConst { index: i_zero });
    b.emit(Instr::Eq {});
    b.emit(Instr::Assert { assertion: 0 });
    for op in [
        Instr::Ne {},
        Instr::Contains {},
        Instr::StartsWith {},
        Instr::EndsWith {},
        Instr::MatchesDynamic {},
        Instr::FileContains {},
    ] {
        b.emit(Instr::PushConst { index: s_text });
        b.emit(Instr::PushConst { index: s_pattern });
        b.emit(op);
        b.emit(Instr::Pop {});
    }
    for op in [Instr::Lt {}, Instr::Le {}, Instr::Gt {}, Instr::Ge {}] {
        b.emit(Instr::PushConst { index: i_zero });
        b.emit(Instr::PushConst { index: i_big });
        b.emit(op);
        b.emit(Instr::Pop {});
    }
    for op in [Instr::Matches { regex: 0 }, Instr::IsEmpty {}, Instr::FileExists {}, Instr::FileIsEmpty {}] {
        b.emit(Instr::PushConst { index: s_path });
        b.emit(op);
        b.emit(Instr::Pop {});
    }
    b.emit(Instr::PushConst { index: t_true });
    b.emit(Instr::Not {});
    b.emit(Instr::Assert { assertion: 1 });
    b.emit(Instr::PushConst { index: t_true });
    let passed = b.emit(Instr::JumpIfTrue { target: 0 });
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Fail { assertion: 0 });
    let after_fail = b.pc();
    b.patch(passed, after_fail);
    b.emit(Instr::Cost {});
    b.emit(Instr::Field { field: Field::Instructions as u8 });
    b.emit(Instr::PushConst { index: i_big });
    b.emit(Instr::Gt {});
    b.emit(Instr::Pop {});
    b.emit(Instr::Estimate { estimate: 0 });
    b.emit(Instr::Pop {});
    b.emit(Instr::PushConst { index: s_path });
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Write {});
    b.emit(Instr::PushConst { index: s_path });
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Append {});
    b.emit(Instr::PushConst { index: s_path });
    b.emit(Instr::Read { slot: v_content });
    b.emit(Instr::PushConst { index: s_dir });
    b.emit(Instr::Mkdir {});
    b.emit(Instr::PushConst { index: s_dir });
    b.emit(Instr::Delete { recursive: 1 });
    b.emit(Instr::PushConst { index: s_path });
    b.emit(Instr::Delete { recursive: 0 });
    let env_name = b.string("CI");
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Env { name: env_name });
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Prompt { prompt: 0 });
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Prompt { prompt: 1 });
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Pause {});
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Review { slot: v_review });
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Review { slot: NO_SLOT });
    b.emit(Instr::PushConst { index: i_zero });
    b.emit(Instr::SetBudget { dim: 3 });
    let try_start = b.emit(Instr::Call { task: 0 });
    let try_end = b.pc();
    let skip_catch = b.emit(Instr::Jump { target: 0 });
    // The CATCH block; it falls through into the rest, so control only goes forward.
    let catch = b.emit(Instr::Load { slot: v_error });
    b.emit(Instr::Field { field: Field::Message as u8 });
    b.emit(Instr::Log {});
    let after_catch = b.pc();
    b.patch(skip_catch, after_catch);
    b.emit(Instr::PushConst { index: t_true });
    let if_true = b.emit(Instr::JumpIfTrue { target: 0 });
    b.emit(Instr::PushConst { index: t_true });
    let if_false = b.emit(Instr::JumpIfFalse { target: 0 });
    let jump = b.emit(Instr::Jump { target: 0 });
    let choose = b.emit(Instr::Choose { choice: 0 });
    b.patch(if_true, choose);
    b.patch(if_false, choose);
    b.patch(jump, choose);
    let option_a = b.emit(Instr::Jump { target: 0 });
    let option_b = b.emit(Instr::Jump { target: 0 });
    let exit = b.emit(Instr::StepExit { step: main_step });
    b.emit(Instr::Halt {});
    b.patch(option_a, exit);
    b.patch(option_b, exit);

    // ---- task 0 -----------------------------------------------------------
    let entry = b.emit(Instr::StepEnter { step: task_step });
    b.emit(Instr::PushConst { index: s_text });
    b.emit(Instr::Log {});
    b.emit(Instr::StepExit { step: task_step });
    b.emit(Instr::Return {});

    let task_name = b.string("helper");
    b.m.tasks.push(TaskInfo { name: task_name, entry, line: 40, bound: bound(300) });
    b.m.handlers.push(Handler {
        start: try_start,
        end: try_end,
        target: catch,
        stack_depth: 0,
        step_depth: 1,
        catch_slot: v_error,
    });
    let question = b.string("Which way?");
    let left = b.string("left");
    let right = b.string("right");
    b.m.choices.push(Choice {
        prompt: question,
        options: vec![
            ChoiceOption { label: left, target: option_a },
            ChoiceOption { label: right, target: option_b },
        ],
    });
    b.m.choices.push(Choice { prompt: NONE, options: vec![ChoiceOption { label: left, target: exit }] });
    b.m.lines = vec![
        LineEntry { pc: 0, line: 5, column: 1 },
        LineEntry { pc: 1, line: 6, column: 5 },
        LineEntry { pc: catch, line: 20, column: 9 },
        LineEntry { pc: entry, line: 40, column: 5 },
    ];

    let cmd_text = b.string("echo ${name}");
    let query = b.string("Summarize");
    let name_text = b.string("name");
    let dir_text = b.string("build");
    b.m.manifest = Manifest {
        commands: vec![
            CommandEntry {
                text: cmd_text,
                dynamic: true,
                dir: dir_text,
                timeout_ms: Some(30_000),
                line: 7,
                step: main_step,
            },
            CommandEntry { text: cmd_text, dynamic: false, dir: NONE, timeout_ms: None, line: 8, step: NONE },
        ],
        paths: [
            PathAccess::Read,
            PathAccess::Write,
            PathAccess::Append,
            PathAccess::Create,
            PathAccess::Delete,
            PathAccess::DeleteRecursive,
            PathAccess::Inspect,
        ]
        .into_iter()
        .enumerate()
        .map(|(i, access)| PathEntry { path: i as u32, access, dynamic: i % 2 == 0, line: 10 + i as u32 })
        .collect(),
        prompts: vec![
            PromptEntry { query, context: vec![name_text], line: 30 },
            PromptEntry { query, context: Vec::new(), line: 31 },
        ],
        interactions: vec![
            InteractionEntry { kind: InteractionKind::Pause, text: query, options: Vec::new(), line: 32 },
            InteractionEntry { kind: InteractionKind::Review, text: NONE, options: Vec::new(), line: 33 },
            InteractionEntry {
                kind: InteractionKind::Choose,
                text: question,
                options: vec![left, right],
                line: 34,
            },
        ],
        budgets: vec![
            BudgetEntry { dim: 3, value: Some(1000), line: 35 },
            BudgetEntry { dim: 2, value: None, line: 36 },
        ],
        env: vec![(env_name, 37)],
        risk: Risk {
            level: RiskLevel::High,
            reasons: vec![
                RiskReason { kind: RiskKind::Prompt, subject: 1, line: 38 },
                RiskReason { kind: RiskKind::LoaderEnvironment, subject: env_name, line: 39 },
                RiskReason { kind: RiskKind::RecursiveRm, subject: NONE, line: 40 },
            ],
        },
    };
    b.m.source = Source::Embedded { name: "sample.tiss".into(), text: "TASK \"test\"\n".into() };
    b.finish(3)
}
