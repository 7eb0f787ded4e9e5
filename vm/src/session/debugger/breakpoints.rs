//! Breakpoints: set at a line or where a named step starts, listed, deleted.

use std::collections::BTreeSet;

use tisslang::isa::Instr;

use super::probe::{At, Probe, ProbeKind};
use super::{BREAK, Breakpoint, Checked, Debugger, HitCondition, STATEMENT, Target};
use crate::host::Host;

/// A line breakpoint as a front end asks for it (DAP's `SourceBreakpoint`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Spec {
    pub line: u32,
    pub condition: Option<String>,
    pub hit_condition: Option<String>,
    pub log_message: Option<String>,
}

/// A breakpoint set: its id and the line it stops at (the one asked for,
/// or the nearest line with a statement).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    pub id: u32,
    pub line: u32,
}

impl<H: Host> Debugger<H> {
    /// Adds a breakpoint; the text reports it, the error says why not.
    pub fn add_breakpoint(&mut self, target: Target) -> Result<String, String> {
        if let Some(old) = self.breakpoints.iter().find(|b| b.target == target) {
            return Ok(format!("breakpoint {} already stops at {}", old.id, target.describe()));
        }
        let module = &self.program.module;
        let pcs: Vec<u32> = match &target {
            Target::Line(line) => module
                .lines
                .iter()
                .filter(|e| e.line == *line && self.is_statement(e.pc))
                .map(|e| e.pc)
                .collect(),
            Target::Step(name) => module
                .code
                .iter()
                .enumerate()
                .filter(|(_, instr)| match instr {
                    Instr::StepEnter { step } => self.step_name(*step) == name,
                    _ => false,
                })
                .map(|(pc, _)| pc as u32)
                .collect(),
        };
        if pcs.is_empty() {
            return Err(match &target {
                Target::Line(line) => self.no_code_at(*line),
                Target::Step(name) => self.no_step_named(name),
            });
        }
        let id = self.next_id;
        self.next_id += 1;
        let text = format!("breakpoint {id} at {}", target.describe());
        self.push_breakpoint(id, target, pcs, [None, None], None);
        Ok(text)
    }

    fn push_breakpoint(
        &mut self,
        id: u32,
        target: Target,
        pcs: Vec<u32>,
        [condition, log_message]: [Option<Checked>; 2],
        hit_condition: Option<HitCondition>,
    ) {
        self.breakpoints.push(Breakpoint {
            id,
            target,
            pcs,
            condition,
            hit_condition,
            log_message,
            hits: Default::default(),
        });
        self.index_breakpoints(&[]);
    }

    /// Replaces every line breakpoint with `specs` (DAP's setBreakpoints):
    /// each is set at its line, or moved to the nearest line below (else
    /// above) that starts a statement; `Err` says why one cannot be set
    /// (its condition, hit count or message does not compile).
    pub fn replace_line_breakpoints(&mut self, specs: &[Spec]) -> Vec<Result<Placed, String>> {
        let removed: Vec<u32> = self
            .breakpoints
            .iter()
            .filter(|b| matches!(b.target, Target::Line(_)))
            .flat_map(|b| b.pcs.clone())
            .collect();
        self.breakpoints.retain(|b| !matches!(b.target, Target::Line(_)));
        self.index_breakpoints(&removed);
        specs.iter().map(|spec| self.set_line(spec)).collect()
    }

    fn set_line(&mut self, spec: &Spec) -> Result<Placed, String> {
        let lines: BTreeSet<u32> =
            self.program.module.lines.iter().filter(|e| self.is_statement(e.pc)).map(|e| e.line).collect();
        let line = lines
            .range(spec.line..)
            .next()
            .or_else(|| lines.range(..spec.line).next_back())
            .copied()
            .ok_or_else(|| self.no_code_at(spec.line))?;
        let pcs: Vec<u32> = self
            .program
            .module
            .lines
            .iter()
            .filter(|e| e.line == line && self.is_statement(e.pc))
            .map(|e| e.pc)
            .collect();
        let hit_condition = spec.hit_condition.as_deref().map(HitCondition::parse).transpose()?;
        let condition = self.checked(spec.condition.as_deref(), pcs[0], ProbeKind::Condition)?;
        let log_message = self.checked(spec.log_message.as_deref(), pcs[0], ProbeKind::Message)?;
        let id = self.next_id;
        self.next_id += 1;
        self.push_breakpoint(id, Target::Line(line), pcs, [condition, log_message], hit_condition);
        Ok(Placed { id, line })
    }

    /// `text` compiled as a `kind` at the statement at `pc`, if given.
    fn checked(&self, text: Option<&str>, pc: u32, kind: ProbeKind) -> Result<Option<Checked>, String> {
        let Some(text) = text.filter(|t| !t.trim().is_empty()) else { return Ok(None) };
        let probe = self.probe(pc, kind, text)?;
        Ok(Some(Checked { text: text.to_string(), probe }))
    }

    /// `text` compiled as a `kind` at the statement at `pc`.
    pub fn probe(&self, pc: u32, kind: ProbeKind, text: &str) -> Result<Probe, String> {
        let source = self.source.as_ref().map_err(|why| {
            format!("conditions and messages are checked against the plan's source, and there is none: {why}")
        })?;
        Probe::compile(&At { program: &self.program, source, pc }, kind, text)
    }

    /// Flags the pcs of the breakpoints after unflagging `removed`.
    pub(super) fn index_breakpoints(&mut self, removed: &[u32]) {
        for pc in removed {
            if let Some(flags) = self.stops.get_mut(*pc as usize) {
                *flags &= !BREAK;
            }
        }
        for pc in self.breakpoints.iter().flat_map(|b| &b.pcs) {
            if let Some(flags) = self.stops.get_mut(*pc as usize) {
                *flags |= BREAK;
            }
        }
    }

    pub(super) fn is_statement(&self, pc: u32) -> bool {
        self.stops.get(pc as usize).is_some_and(|f| f & STATEMENT != 0)
    }

    /// Why a line cannot hold a breakpoint, with the nearest lines that can.
    pub(super) fn no_code_at(&self, line: u32) -> String {
        let lines: BTreeSet<u32> =
            self.program.module.lines.iter().filter(|e| self.is_statement(e.pc)).map(|e| e.line).collect();
        let before = lines.range(..line).next_back();
        let after = lines.range(line + 1..).next();
        let source_lines = self.source().map(|s| s.lines().count() as u32);
        let what = match source_lines {
            Some(n) if line > n => format!("line {line} is past the end of the plan ({n} lines)"),
            _ => format!("line {line} has no code to stop at"),
        };
        match (before, after) {
            (Some(b), Some(a)) => format!("{what}; the nearest lines with code are {b} and {a}"),
            (Some(b), None) => format!("{what}; the last line with code is {b}"),
            (None, Some(a)) => format!("{what}; the first line with code is {a}"),
            (None, None) => format!("{what}; the plan has no statement to stop at"),
        }
    }

    pub(super) fn no_step_named(&self, name: &str) -> String {
        let mut names: Vec<&str> = Vec::new();
        for step in &self.program.module.steps {
            let n = self.program.string(step.name);
            if !names.contains(&n) {
                names.push(n);
            }
        }
        let mut text = format!("no step is named {name:?}");
        if let Some(close) = tiss_support::suggest::closest(name, names.iter().copied()) {
            text.push_str(&format!("; did you mean {close:?}?"));
        } else if names.is_empty() {
            text.push_str("; the plan has no steps");
        } else {
            let shown: Vec<String> = names.iter().take(10).map(|n| format!("{n:?}")).collect();
            let more = if names.len() > 10 { ", ..." } else { "" };
            text.push_str(&format!("; the steps are {}{more}", shown.join(", ")));
        }
        text
    }

    pub(super) fn list_breakpoints(&self) -> String {
        if self.breakpoints.is_empty() {
            return "no breakpoints".into();
        }
        self.breakpoints
            .iter()
            .map(|b| format!("breakpoint {} at {}", b.id, b.target.describe()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    pub(super) fn delete(&mut self, arg: &str) -> String {
        if arg.is_empty() {
            let n = self.breakpoints.len();
            let removed: Vec<u32> = self.breakpoints.drain(..).flat_map(|b| b.pcs).collect();
            self.index_breakpoints(&removed);
            return match n {
                0 => "no breakpoints to delete".into(),
                1 => "deleted the breakpoint".into(),
                n => format!("deleted all {n} breakpoints"),
            };
        }
        let Ok(id) = arg.parse::<u32>() else {
            return format!("delete takes a breakpoint number, not `{arg}`: `break` lists them");
        };
        let Some(at) = self.breakpoints.iter().position(|b| b.id == id) else {
            return match self.breakpoints.len() {
                0 => format!("no breakpoint {id}: there are no breakpoints"),
                _ => {
                    let ids: Vec<String> = self.breakpoints.iter().map(|b| b.id.to_string()).collect();
                    format!("no breakpoint {id}; the breakpoints are {}", ids.join(", "))
                }
            };
        };
        let gone = self.breakpoints.remove(at);
        self.index_breakpoints(&gone.pcs);
        format!("deleted breakpoint {id} at {}", gone.target.describe())
    }
}
