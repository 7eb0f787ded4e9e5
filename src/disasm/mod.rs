//! The disassembler: a readable listing of a [`Module`] (`tissc disasm`,
//! `tissvm disasm`).
//!
//! The listing is a header, the constant, string, slot and answer shape
//! tables, the code with the source lines it came from interleaved, then
//! every other table and the manifest. Mnemonics and operand names come from the instruction table
//! in `isa.rs`; this file only adds what the operands mean (the constant a
//! `PUSH_CONST` pushes, the slot a `LOAD` reads, ...).
//!
//! It never panics, whatever the module: an index that points outside its
//! table (a module that has not been verified) prints as `<bad index N>`.
//! The output depends only on the module, the hash and the source text
//! given, so it is deterministic and can be snapshot-tested. The source text
//! is the embedded one, or what the caller found beside the `.tbc`
//! (`kept_source::find`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::duration::literal as duration;
use crate::isa::{Instr, NO_SLOT};
use crate::module::kept_source::{self, Source, SourceText, Unavailable};
use crate::module::{Constant, Module, NONE, PathRef, PathRootRef, Template, TemplatePart};
use crate::types::ValueType;
use text::{
    bad, bound_inline, dim_name, escape, field_name, flags, is_plain_name, plural, printable, quote, shorten,
    shorten_quoted,
};

/// Values shown inline (operand comments, the constant table) are cut to
/// this many characters, keeping head and tail.
const SHORT: usize = 48;

/// Width of the mnemonic column.
const MNEMONIC_WIDTH: usize = 14;

/// Width of the operand column before a `;` comment.
const OPERAND_WIDTH: usize = 22;

/// Returns the listing of `module` with its embedded source text, if any;
/// `hash` is its content hash as the caller wants it shown
/// (`container::content_hash`).
pub fn disassemble(module: &Module, hash: &str) -> String {
    disassemble_with_source(module, hash, &kept_source::find(&module.source, None))
}

/// [`disassemble`], with the source text to interleave (or why there is
/// none) as the caller found it.
pub fn disassemble_with_source(
    module: &Module,
    hash: &str,
    source: &Result<SourceText, Unavailable>,
) -> String {
    let mut d = Disasm { m: module, source, out: String::new() };
    d.header(hash);
    d.constants();
    d.strings();
    d.slots();
    d.shapes();
    d.code();
    d.steps();
    d.tasks();
    d.handlers();
    d.regexes();
    d.templates();
    d.assertions();
    d.prompts();
    d.choices();
    d.estimates();
    d.plan_bound();
    d.manifest();
    d.out
}

struct Disasm<'a> {
    m: &'a Module,
    source: &'a Result<SourceText, Unavailable>,
    out: String,
}

/// Appends one formatted line to the listing.
macro_rules! line {
    ($d:expr) => { $d.out.push('\n') };
    ($d:expr, $($arg:tt)*) => {{
        let _ = write!($d.out, $($arg)*);
        $d.out.push('\n');
    }};
}

mod tables;
mod text;

impl Disasm<'_> {
    // ---- lookups that never panic ---------------------------------------------------

    /// String `index`, quoted and escaped in full.
    fn string_full(&self, index: u32) -> String {
        match self.m.string(index) {
            Some(s) => quote(s),
            None => bad(index),
        }
    }

    /// String `index` holding source text as written (a condition): shown
    /// as it reads in the plan, only control characters escaped.
    fn written(&self, index: u32) -> String {
        match self.m.string(index) {
            Some(s) => printable(s),
            None => bad(index),
        }
    }

    /// As [`Self::written`], shortened.
    fn written_short(&self, index: u32) -> String {
        match self.m.string(index) {
            Some(s) => printable(&shorten(s, SHORT)),
            None => bad(index),
        }
    }

    /// A string of the manifest: a literal's value, or for a literal with
    /// `${...}` holes (`dynamic`), its source between the quotes, shown
    /// between quotes as written.
    fn literal(&self, index: u32, dynamic: bool) -> String {
        match self.m.string(index) {
            Some(s) if dynamic => format!("\"{}\"", printable(s)),
            Some(s) => quote(s),
            None => bad(index),
        }
    }

    fn has_holes(&self, index: u32) -> bool {
        self.m.string(index).is_some_and(|s| s.contains("${"))
    }

    /// String `index`, quoted, escaped and shortened.
    fn string_short(&self, index: u32) -> String {
        match self.m.string(index) {
            Some(s) => quote(&shorten(s, SHORT)),
            None => bad(index),
        }
    }

    /// String `index` as a bare name (a variable, an environment variable).
    fn name(&self, index: u32) -> String {
        match self.m.string(index) {
            Some(s) if is_plain_name(s) => s.to_string(),
            Some(s) => quote(s),
            None => bad(index),
        }
    }

    /// An optional string index (`NONE` prints as `-`).
    fn opt_string_short(&self, index: u32) -> String {
        if index == NONE { "-".to_string() } else { self.string_short(index) }
    }

    fn slot_name(&self, slot: u32) -> String {
        match self.m.slots.get(slot as usize) {
            Some(s) => self.name(s.name),
            None => bad(slot),
        }
    }

    /// An optional slot: `-`, or `%N name`.
    fn opt_slot(&self, slot: u32) -> String {
        if slot == NONE || slot == NO_SLOT {
            "-".to_string()
        } else {
            format!("%{slot} {}", self.slot_name(slot))
        }
    }

    fn step_name(&self, step: u32) -> String {
        match self.m.steps.get(step as usize) {
            Some(s) => self.string_short(s.name),
            None => bad(step),
        }
    }

    fn task_name(&self, task: u32) -> String {
        match self.m.tasks.get(task as usize) {
            Some(t) => self.string_short(t.name),
            None => bad(task),
        }
    }

    fn constant(&self, index: u32) -> String {
        match self.m.constants.get(index as usize) {
            Some(c) => self.constant_value(c),
            None => bad(index),
        }
    }

    fn constant_value(&self, c: &Constant) -> String {
        match *c {
            Constant::Str(s) => self.string_short(s),
            Constant::Int(n) => n.to_string(),
            Constant::Duration(ms) => duration(ms),
            Constant::Bool(b) => if b { "TRUE" } else { "FALSE" }.to_string(),
        }
    }

    /// A template's text with `${}` for each hole, quoted and shortened.
    fn template(&self, index: u32) -> String {
        match self.m.templates.get(index as usize) {
            Some(t) => self.template_text(t, Some(SHORT)),
            None => bad(index),
        }
    }

    fn template_text(&self, t: &Template, limit: Option<usize>) -> String {
        let mut text = String::from("\"");
        for part in &t.parts {
            match *part {
                TemplatePart::Text(s) => match self.m.string(s) {
                    Some(s) => text.push_str(&escape(s)),
                    None => text.push_str(&bad(s)),
                },
                TemplatePart::Hole => text.push_str("${}"),
            }
        }
        text.push('"');
        match limit {
            Some(n) => shorten_quoted(&text, n),
            None => text,
        }
    }

    fn path_ref(&self, p: &PathRef) -> String {
        let mut text = match p.root {
            PathRootRef::Slot(slot) => self.slot_name(slot),
            PathRootRef::LastRun => "LAST_RUN".to_string(),
            PathRootRef::Cost => "COST".to_string(),
        };
        for &f in &p.fields {
            text.push('.');
            text.push_str(&field_name(f));
        }
        text
    }

    /// A pc as shown in the code listing; past the end it is a bad index.
    fn target(&self, pc: u32) -> String {
        if (pc as usize) < self.m.code.len() { format!("{pc:04}") } else { format!("{pc:04} {}", bad(pc)) }
    }

    // ---- sections -------------------------------------------------------------------

    fn header(&mut self, hash: &str) {
        let m = self.m;
        line!(self, "; TissLang bytecode listing");
        line!(self, "task      {}", self.string_full(m.task));
        let [major, minor, patch] = m.language;
        line!(self, "language  {major}.{minor}.{patch}");
        if m.metadata.is_empty() {
            line!(self, "metadata  -");
        }
        for &(key, value) in &m.metadata {
            line!(self, "metadata  {} = {}", self.name(key), self.string_full(value));
        }
        line!(self, "hash      {hash}");
        match (self.source, &m.source) {
            (Ok(s), _) => line!(
                self,
                "source    {} ({}, {} lines, {} bytes)",
                quote(&s.name),
                if s.beside { "beside the bytecode, same hash" } else { "embedded" },
                s.text.lines().count(),
                s.text.len()
            ),
            (Err(_), Source::Stripped) => line!(self, "source    stripped"),
            (Err(why), Source::Hash(h)) => line!(self, "source    hash {h}, text not shown: {why}"),
            (Err(why), Source::Embedded { .. }) => line!(self, "source    not shown: {why}"),
        }
        let code_bytes = crate::isa::encode_all(&m.code).len();
        line!(
            self,
            "counts    {} ({}), max stack {}, {}, {}, {}, {}, {}, {}",
            plural(m.code.len(), "instruction"),
            plural(code_bytes, "byte"),
            m.max_stack,
            plural(m.constants.len(), "constant"),
            plural(m.strings.len(), "string"),
            plural(m.slots.len(), "slot"),
            plural(m.steps.len(), "step"),
            plural(m.tasks.len(), "task"),
            plural(m.handlers.len(), "handler")
        );
    }

    /// A section heading: a blank line, the title and the count.
    fn section(&mut self, title: &str, count: usize) {
        line!(self);
        if count == 0 {
            line!(self, "{title}: none");
        } else {
            line!(self, "{title} ({count}):");
        }
    }

    fn constants(&mut self) {
        let m = self.m;
        self.section("constants", m.constants.len());
        for (i, c) in m.constants.iter().enumerate() {
            let (kind, extra) = match *c {
                Constant::Str(s) => ("str", format!("${s} ")),
                Constant::Int(_) => ("int", String::new()),
                Constant::Duration(_) => ("dur", String::new()),
                Constant::Bool(_) => ("bool", String::new()),
            };
            line!(self, "  #{i:<4} {kind:<4} {extra}{}", self.constant_value(c));
        }
    }

    fn strings(&mut self) {
        let m = self.m;
        self.section("strings", m.strings.len());
        for (i, s) in m.strings.iter().enumerate() {
            line!(self, "  ${i:<4} {}", quote(s));
        }
    }

    fn slots(&mut self) {
        let m = self.m;
        self.section("slots", m.slots.len());
        for (i, s) in m.slots.iter().enumerate() {
            match s.ty {
                ValueType::Answer(shape) => {
                    line!(self, "  %{i:<4} {}: {} #{shape}", self.name(s.name), s.ty.name())
                }
                ty => line!(self, "  %{i:<4} {}: {}", self.name(s.name), ty.name()),
            }
        }
    }

    fn code(&mut self) {
        let m = self.m;
        line!(self);
        line!(self, "code ({} instructions):", m.code.len());
        let labels = self.labels();
        let source_lines: Vec<&str> = match self.source {
            Ok(s) => s.text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect(),
            Err(_) => Vec::new(),
        };
        let mut last_line = None;
        for (pc, instr) in m.code.iter().enumerate() {
            let pc = u32::try_from(pc).unwrap_or(u32::MAX);
            for label in labels.get(&pc).into_iter().flatten() {
                line!(self, "        ; {label}");
            }
            let line = m.position(pc).map(|(line, _)| line);
            if line != last_line {
                if let Some(n) = line {
                    match source_lines.get((n as usize).wrapping_sub(1)) {
                        Some(text) if n > 0 => line!(self, "  {n:>6} | {}", printable(text)),
                        _ if self.source.is_ok() => line!(self, "  {n:>6} | <no such line>"),
                        _ => line!(self, "  {n:>6} |"),
                    }
                }
                last_line = line;
            }
            let (operands, comment) = self.instr(instr);
            let mnemonic = instr.mnemonic();
            let mut text = format!("  {pc:04}  {mnemonic:<MNEMONIC_WIDTH$} {operands}");
            if let Some(comment) = comment {
                let pad = OPERAND_WIDTH.saturating_sub(operands.chars().count());
                text.push_str(&" ".repeat(pad));
                text.push_str(" ; ");
                text.push_str(&comment);
            }
            line!(self, "{}", text.trim_end());
        }
    }

    /// Notes shown before the instruction at a pc: task entries, TRY ranges
    /// and catch blocks, CHOOSE options.
    fn labels(&self) -> BTreeMap<u32, Vec<String>> {
        let m = self.m;
        let mut labels: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for (i, t) in m.tasks.iter().enumerate() {
            labels.entry(t.entry).or_default().push(format!("task #{i} {}", self.string_short(t.name)));
        }
        for (i, h) in m.handlers.iter().enumerate() {
            labels.entry(h.start).or_default().push(format!("try #{i} (to {:04})", h.end));
            labels.entry(h.target).or_default().push(format!("catch #{i}"));
        }
        for (i, c) in m.choices.iter().enumerate() {
            for (k, o) in c.options.iter().enumerate() {
                labels.entry(o.target).or_default().push(format!(
                    "choice #{i} option {} {}",
                    k + 1,
                    self.string_short(o.label)
                ));
            }
        }
        labels
    }

    /// One instruction's operands (`name=value`) and what they refer to.
    fn instr(&self, instr: &Instr) -> (String, Option<String>) {
        let operands: Vec<String> = instr
            .operands()
            .into_iter()
            .map(|(name, value)| {
                let shown = match (*instr, name) {
                    (Instr::Field { .. }, _) => field_name(value as u8),
                    (Instr::SetBudget { .. }, _) => dim_name(value as u8),
                    (Instr::Run { .. }, _) => flags(value as u8),
                    (Instr::Jump { .. } | Instr::JumpIfFalse { .. } | Instr::JumpIfTrue { .. }, _) => {
                        self.target(value)
                    }
                    (Instr::Review { .. }, _) if value == NO_SLOT => "-".to_string(),
                    _ => value.to_string(),
                };
                format!("{name}={shown}")
            })
            .collect();
        let comment = match *instr {
            Instr::PushConst { index } => Some(self.constant(index)),
            Instr::Load { slot } | Instr::Store { slot } | Instr::Read { slot } => Some(self.slot_name(slot)),
            Instr::Review { slot } if slot != NO_SLOT => Some(format!("INTO {}", self.slot_name(slot))),
            Instr::Interp { template, .. } | Instr::InterpShell { template, .. } => {
                Some(self.template(template))
            }
            Instr::Estimate { estimate } => Some(match self.m.estimates.get(estimate as usize) {
                Some(b) => bound_inline(b),
                None => bad(estimate),
            }),
            Instr::Matches { regex } => Some(match self.m.regexes.get(regex as usize) {
                Some(&s) => self.string_short(s),
                None => bad(regex),
            }),
            Instr::Call { task } => Some(self.task_name(task)),
            Instr::StepEnter { step } | Instr::StepExit { step } => Some(self.step_name(step)),
            Instr::Assert { assertion } | Instr::Fail { assertion } => {
                Some(match self.m.assertions.get(assertion as usize) {
                    Some(a) => self.written_short(a.condition),
                    None => bad(assertion),
                })
            }
            Instr::Choose { choice } => Some(match self.m.choices.get(choice as usize) {
                Some(c) => format!("{}, {} options", self.opt_string_short(c.prompt), c.options.len()),
                None => bad(choice),
            }),
            Instr::Env { name } => Some(self.name(name)),
            Instr::Prompt { prompt } => Some(match self.m.prompts.get(prompt as usize) {
                Some(p) => {
                    let answer = p.answer.map_or(String::new(), |a| format!(" AS #{}", a.shape));
                    format!(
                        "{}, INTO {}{answer}",
                        self.context(&p.context, p.default_context),
                        self.opt_slot(p.into)
                    )
                }
                None => bad(prompt),
            }),
            _ => None,
        };
        (operands.join(" "), comment)
    }

    fn context(&self, slots: &[u32], default: bool) -> String {
        if default && slots.is_empty() {
            return "WITH default context".to_string();
        }
        let names: Vec<String> = slots.iter().map(|&s| self.slot_name(s)).collect();
        let mut text = format!("WITH {}", if names.is_empty() { "-".to_string() } else { names.join(", ") });
        if default {
            text.push_str(" (+ default context)");
        }
        text
    }
}

#[cfg(test)]
mod tests;
