//! `tissvm run --dry-run`: every effect the plan could have, in order —
//! both arms of each IF, every CHOOSE option, each CALLed task inline —
//! read from the bytecode without running anything.
//!
//! The code is walked in instruction order with a symbolic operand stack:
//! constants are their text, variables `${name}`, fields `${LAST_RUN.STDOUT}`,
//! interpolations their template. An effect's operands are always computed
//! straight before it (no jump in between), so the stack is simply cleared
//! at every jump.

use tisslang::isa::{Field, Instr, run_flags};
use tisslang::module::{Constant, NONE, TemplatePart};

use crate::machine::program::Program;
use crate::machine::value::format_duration;

/// The listing, one effect per line, indented by step and call depth.
pub fn dry_run(program: &Program) -> String {
    let mut out = String::new();
    let main_end =
        program.module.tasks.iter().map(|t| t.entry).min().unwrap_or(program.module.code.len() as u32);
    walk(program, 0, main_end, 0, &mut out, &mut Vec::new());
    out
}

fn unit_end(program: &Program, entry: u32) -> u32 {
    program
        .module
        .tasks
        .iter()
        .map(|t| t.entry)
        .filter(|&e| e > entry)
        .min()
        .unwrap_or(program.module.code.len() as u32)
}

fn walk(program: &Program, start: u32, end: u32, indent: usize, out: &mut String, calls: &mut Vec<u32>) {
    let module = &program.module;
    let mut stack: Vec<String> = Vec::new();
    let mut depth = indent;
    let option_starts: Vec<(u32, String)> = module
        .choices
        .iter()
        .flat_map(|c| {
            c.options
                .iter()
                .enumerate()
                .map(|(i, o)| (o.target, format!("option {}: {}", i + 1, program.string(o.label))))
        })
        .collect();
    let pad = |depth: usize| "  ".repeat(depth);
    for pc in start..end {
        for (_, label) in option_starts.iter().filter(|(t, _)| *t == pc) {
            out.push_str(&format!("{}{label}\n", pad(depth)));
        }
        let line = program.line(pc);
        let mut effect =
            |depth: usize, text: String| out.push_str(&format!("{}{text}  (line {line})\n", pad(depth)));
        let instr = module.code[pc as usize];
        let (pops, _) = instr.stack_effect();
        match instr {
            Instr::PushConst { index } => stack.push(match module.constants.get(index as usize) {
                Some(Constant::Str(s)) => program.string(*s).to_string(),
                Some(Constant::Int(i)) => i.to_string(),
                Some(Constant::Duration(d)) => format_duration(*d),
                Some(Constant::Bool(b)) => b.to_string(),
                None => "?".to_string(),
            }),
            Instr::Load { slot } => {
                let name = module.slots.get(slot as usize).map_or("?", |s| program.string(s.name));
                stack.push(format!("${{{name}}}"));
            }
            Instr::LastRun {} => stack.push("${LAST_RUN}".to_string()),
            Instr::Cost {} => stack.push("${COST}".to_string()),
            Instr::Field { field } => {
                let base = stack.pop().unwrap_or_default();
                let name = Field::from_u8(field).map_or("?", Field::name);
                let base =
                    base.strip_prefix("${").and_then(|b| b.strip_suffix('}')).unwrap_or(&base).to_string();
                stack.push(format!("${{{base}.{name}}}"));
            }
            Instr::Interp { template, holes } | Instr::InterpShell { template, holes } => {
                let at = stack.len().saturating_sub(holes as usize);
                let values: Vec<String> = stack.drain(at..).collect();
                let mut values = values.into_iter();
                let mut text = String::new();
                for part in module.templates.get(template as usize).map_or(&[][..], |t| &t.parts[..]) {
                    match part {
                        TemplatePart::Text(s) => text.push_str(program.string(*s)),
                        TemplatePart::Hole => text.push_str(&values.next().unwrap_or_default()),
                    }
                }
                stack.push(text);
            }
            Instr::StepEnter { step } => {
                let name = module.steps.get(step as usize).map_or(NONE, |s| s.name);
                effect(depth, format!("STEP \"{}\"", program.string(name)));
                depth += 1;
            }
            Instr::StepExit { .. } => depth = depth.saturating_sub(1),
            Instr::Run { flags } => {
                let timeout = if flags & run_flags::TIMEOUT != 0 { stack.pop() } else { None };
                let dir = if flags & run_flags::DIR != 0 { stack.pop() } else { None };
                let command = stack.pop().unwrap_or_default();
                let mut text = format!("RUN {command}");
                if let Some(d) = dir {
                    text.push_str(&format!("  [in {d}]"));
                }
                if let Some(t) = timeout {
                    text.push_str(&format!("  [timeout {t}]"));
                }
                effect(depth, text);
            }
            Instr::Write {} | Instr::Append {} => {
                let content = stack.pop().unwrap_or_default();
                let path = stack.pop().unwrap_or_default();
                let verb = if matches!(instr, Instr::Write {}) { "WRITE" } else { "APPEND" };
                effect(depth, format!("{verb} {path}  ({} bytes)", content.len()));
            }
            Instr::Read { .. } => effect(depth, format!("READ {}", stack.pop().unwrap_or_default())),
            Instr::Mkdir {} => effect(depth, format!("MKDIR {}", stack.pop().unwrap_or_default())),
            Instr::Delete { recursive } => {
                let path = stack.pop().unwrap_or_default();
                effect(depth, format!("DELETE {path}{}", if recursive == 1 { " RECURSIVE" } else { "" }));
            }
            Instr::Log {} => effect(depth, format!("LOG {}", stack.pop().unwrap_or_default())),
            Instr::Env { name } => {
                effect(depth, format!("ENV {}={}", program.string(name), stack.pop().unwrap_or_default()));
            }
            Instr::Prompt { .. } => {
                effect(depth, format!("PROMPT_AGENT {}", stack.pop().unwrap_or_default()))
            }
            Instr::Pause {} => effect(depth, format!("PAUSE {}", stack.pop().unwrap_or_default())),
            Instr::Review { .. } => {
                effect(depth, format!("REQUEST_REVIEW {}", stack.pop().unwrap_or_default()))
            }
            Instr::Choose { choice } => {
                let prompt = module.choices.get(choice as usize).map_or(NONE, |c| c.prompt);
                let text =
                    if prompt == NONE { String::new() } else { format!(" {}", program.string(prompt)) };
                effect(depth, format!("CHOOSE{text}"));
            }
            Instr::SetBudget { dim } => {
                let name = tisslang::cost::Dim::ALL.get(usize::from(dim)).map_or("?", |d| d.name());
                effect(depth, format!("SET_BUDGET {name} = {}", stack.pop().unwrap_or_default()));
            }
            Instr::Call { task } => {
                let Some(info) = module.tasks.get(task as usize) else { continue };
                effect(depth, format!("CALL \"{}\"", program.string(info.name)));
                if !calls.contains(&task) {
                    calls.push(task);
                    walk(program, info.entry, unit_end(program, info.entry), depth + 1, out, calls);
                    calls.pop();
                }
            }
            Instr::Jump { .. } | Instr::JumpIfFalse { .. } | Instr::JumpIfTrue { .. } => stack.clear(),
            _ => {
                // Tests and other value instructions: keep the stack shape.
                let keep = stack.len().saturating_sub(pops as usize);
                stack.truncate(keep);
                let (_, pushes) = instr.stack_effect();
                for _ in 0..pushes {
                    stack.push("<value>".to_string());
                }
            }
        }
    }
}
