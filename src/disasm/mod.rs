//! The disassembler: a readable listing of a [`Module`] (`tissc disasm`,
//! `tissvm disasm`).
//!
//! The listing is a header, the constant, string and slot tables, the code
//! with the source lines it came from interleaved, then every other table and
//! the manifest. Mnemonics and operand names come from the instruction table
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

use crate::cost::Dim;
use crate::cost::bound::CostBound;
use crate::duration::literal as duration;
use crate::isa::{Instr, NO_SLOT, run_flags};
use crate::module::kept_source::{self, Source, SourceText, Unavailable};
use crate::module::{
    Constant, Module, NONE, PathAccess, PathRef, PathRootRef, RiskLevel, Template, TemplatePart,
};
use crate::types::Field;

/// Values shown inline (operand comments, the constant table) are cut to
/// this many characters, keeping head and tail.
const SHORT: usize = 48;

/// Width of the mnemonic column.
const MNEMONIC_WIDTH: usize = 14;

/// Width of the operand column before a `;` comment.
const OPERAND_WIDTH: usize = 22;

/// Returns the listing of `module` with its embedded source text, if any;
/// `hash` is its content hash as the caller wants it shown
/// (`format::content_hash`).
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
            line!(self, "  %{i:<4} {}: {}", self.name(s.name), s.ty.name());
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
                    format!("{}, INTO {}", self.context(&p.context, p.default_context), self.opt_slot(p.into))
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

    fn steps(&mut self) {
        let m = self.m;
        self.section("steps", m.steps.len());
        for (i, s) in m.steps.iter().enumerate() {
            let parent = if s.parent == NONE { "-".to_string() } else { format!("#{}", s.parent) };
            line!(
                self,
                "  #{i:<4} {}  line {}:{}  parent {parent}  depth {}",
                self.string_full(s.name),
                s.line,
                s.column,
                s.depth
            );
            line!(self, "         bound {}", bound_inline(&s.bound));
        }
    }

    fn tasks(&mut self) {
        let m = self.m;
        self.section("tasks", m.tasks.len());
        for (i, t) in m.tasks.iter().enumerate() {
            line!(
                self,
                "  #{i:<4} {}  entry {}  line {}",
                self.string_full(t.name),
                self.target(t.entry),
                t.line
            );
            line!(self, "         bound {}", bound_inline(&t.bound));
        }
    }

    fn handlers(&mut self) {
        let m = self.m;
        self.section("handlers", m.handlers.len());
        for (i, h) in m.handlers.iter().enumerate() {
            line!(
                self,
                "  #{i:<4} {:04}..{:04} -> {}  stack depth {}  step depth {}  catch {}",
                h.start,
                h.end,
                self.target(h.target),
                h.stack_depth,
                h.step_depth,
                self.opt_slot(h.catch_slot)
            );
        }
    }

    fn regexes(&mut self) {
        let m = self.m;
        self.section("regexes", m.regexes.len());
        for (i, &s) in m.regexes.iter().enumerate() {
            line!(self, "  #{i:<4} ${s} {}", self.string_full(s));
        }
    }

    fn templates(&mut self) {
        let m = self.m;
        self.section("templates", m.templates.len());
        for (i, t) in m.templates.iter().enumerate() {
            let holes = t.parts.iter().filter(|p| matches!(p, TemplatePart::Hole)).count();
            line!(self, "  #{i:<4} {}  ({})", self.template_text(t, None), plural(holes, "hole"));
        }
    }

    fn assertions(&mut self) {
        let m = self.m;
        self.section("assertions", m.assertions.len());
        for (i, a) in m.assertions.iter().enumerate() {
            line!(self, "  #{i:<4} {}", self.written(a.condition));
            if a.message != NONE {
                line!(self, "         MESSAGE {}", self.string_full(a.message));
            }
            for o in &a.observed {
                line!(self, "         shows {} = {}", self.written(o.text), self.path_ref(&o.path));
            }
        }
    }

    fn prompts(&mut self) {
        let m = self.m;
        self.section("prompts", m.prompts.len());
        for (i, p) in m.prompts.iter().enumerate() {
            line!(
                self,
                "  #{i:<4} {}  INTO {}",
                self.context(&p.context, p.default_context),
                self.opt_slot(p.into)
            );
        }
    }

    fn choices(&mut self) {
        let m = self.m;
        self.section("choices", m.choices.len());
        for (i, c) in m.choices.iter().enumerate() {
            line!(
                self,
                "  #{i:<4} {}",
                if c.prompt == NONE { "-".to_string() } else { self.string_full(c.prompt) }
            );
            for (k, o) in c.options.iter().enumerate() {
                line!(self, "         {}. {} -> {}", k + 1, self.string_full(o.label), self.target(o.target));
            }
        }
    }

    fn estimates(&mut self) {
        let m = self.m;
        self.section("estimates", m.estimates.len());
        for (i, b) in m.estimates.iter().enumerate() {
            line!(self, "  #{i:<4} {}", bound_inline(b));
        }
    }

    fn plan_bound(&mut self) {
        let b = self.m.bound;
        line!(self);
        line!(self, "plan bound:");
        for dim in Dim::ALL {
            let (min, max) = b.get(dim);
            let unit = if dim == Dim::ExecutionTime { " ms" } else { "" };
            line!(self, "  {:<15} {} .. {}{unit}", dim.name(), amount(min), amount(max));
        }
    }

    fn manifest(&mut self) {
        let man = &self.m.manifest;
        line!(self);
        line!(self, "manifest:");

        self.subsection("commands", man.commands.len());
        for c in &man.commands {
            let shown = |s| self.literal(s, c.dynamic);
            let mut text = format!("    line {:<5} RUN {}", c.line, shown(c.text));
            if c.dir != NONE {
                let _ = write!(text, " IN {}", shown(c.dir));
            }
            if let Some(ms) = c.timeout_ms {
                let _ = write!(text, " TIMEOUT {}", duration(ms));
            }
            if c.dynamic {
                text.push_str("  (dynamic)");
            }
            if c.step != NONE {
                let _ = write!(text, "  in step #{} {}", c.step, self.step_name(c.step));
            }
            line!(self, "{text}");
        }

        self.subsection("paths", man.paths.len());
        for p in &man.paths {
            let dynamic = if p.dynamic { "  (dynamic)" } else { "" };
            line!(
                self,
                "    line {:<5} {:<16} {}{dynamic}",
                p.line,
                access(p.access),
                self.literal(p.path, p.dynamic)
            );
        }

        self.subsection("prompts", man.prompts.len());
        for p in &man.prompts {
            let context = if p.context.is_empty() {
                "default context".to_string()
            } else {
                p.context.iter().map(|&s| self.name(s)).collect::<Vec<_>>().join(", ")
            };
            // The manifest does not say whether a query or message has holes;
            // the source text of one that has them contains `${`.
            let query = self.literal(p.query, self.has_holes(p.query));
            line!(self, "    line {:<5} {query}  WITH {context}", p.line);
        }

        self.subsection("interactions", man.interactions.len());
        for x in &man.interactions {
            let kind = match x.kind {
                crate::module::InteractionKind::Pause => "PAUSE",
                crate::module::InteractionKind::Review => "REQUEST_REVIEW",
                crate::module::InteractionKind::Choose => "CHOOSE",
            };
            let text =
                if x.text == NONE { "-".to_string() } else { self.literal(x.text, self.has_holes(x.text)) };
            let mut shown = format!("    line {:<5} {kind:<14} {text}", x.line);
            if !x.options.is_empty() {
                let options: Vec<String> = x.options.iter().map(|&o| self.string_full(o)).collect();
                let _ = write!(shown, "  options {}", options.join(", "));
            }
            line!(self, "{shown}");
        }

        self.subsection("budgets", man.budgets.len());
        for b in &man.budgets {
            let value = match (b.value, Dim::ALL.get(usize::from(b.dim))) {
                (None, _) => "<from a variable>".to_string(),
                (Some(v), Some(Dim::ExecutionTime)) => duration(v),
                (Some(v), _) => v.to_string(),
            };
            line!(self, "    line {:<5} {} = {value}", b.line, dim_name(b.dim));
        }

        self.subsection("env", man.env.len());
        for &(name, line) in &man.env {
            line!(self, "    line {line:<5} {}", self.name(name));
        }

        line!(self, "  risk: {}", level(man.risk.level));
        for r in &man.risk.reasons {
            line!(self, "    line {:<5} {:<6} {}", r.line, level(r.level()), printable(&self.m.risk_text(r)));
        }
    }

    fn subsection(&mut self, title: &str, count: usize) {
        if count == 0 {
            line!(self, "  {title}: none");
        } else {
            line!(self, "  {title} ({count}):");
        }
    }
}

// ---- formatting helpers ----------------------------------------------------------------

/// `1 step`, `2 steps`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("{n} {noun}") } else { format!("{n} {noun}s") }
}

fn bad(index: u32) -> String {
    format!("<bad index {index}>")
}

fn field_name(f: u8) -> String {
    match Field::from_u8(f) {
        Some(f) => f.name().to_string(),
        None => format!("<bad field {f}>"),
    }
}

fn dim_name(d: u8) -> String {
    match Dim::ALL.get(usize::from(d)) {
        Some(d) => d.name().to_string(),
        None => format!("<bad dimension {d}>"),
    }
}

/// `RUN` flags as `DIR|TIMEOUT`; `0` when none, unknown bits in hex.
fn flags(f: u8) -> String {
    let mut parts = Vec::new();
    if f & run_flags::DIR != 0 {
        parts.push("DIR".to_string());
    }
    if f & run_flags::TIMEOUT != 0 {
        parts.push("TIMEOUT".to_string());
    }
    let rest = f & !(run_flags::DIR | run_flags::TIMEOUT);
    if rest != 0 {
        parts.push(format!("0x{rest:02X}"));
    }
    if parts.is_empty() { "0".to_string() } else { parts.join("|") }
}

fn access(a: PathAccess) -> &'static str {
    match a {
        PathAccess::Read => "read",
        PathAccess::Write => "write",
        PathAccess::Append => "append",
        PathAccess::Create => "create",
        PathAccess::Delete => "delete",
        PathAccess::DeleteRecursive => "delete recursive",
        PathAccess::Inspect => "inspect",
    }
}

fn level(l: RiskLevel) -> &'static str {
    l.name()
}

/// A bound amount; a saturated maximum means "no finite bound".
fn amount(n: u64) -> String {
    if n == u64::MAX { "unbounded".to_string() } else { n.to_string() }
}

/// A bound on one line: `API_CALLS 0, RUN_COUNT 1..2, EXECUTION_TIME 30000ms, ...`.
fn bound_inline(b: &CostBound) -> String {
    let parts: Vec<String> = Dim::ALL
        .into_iter()
        .map(|dim| {
            let (min, max) = b.get(dim);
            let unit = if dim == Dim::ExecutionTime { "ms" } else { "" };
            if min == max {
                format!("{} {}{unit}", dim.name(), amount(min))
            } else {
                format!("{} {}..{}{unit}", dim.name(), amount(min), amount(max))
            }
        })
        .collect();
    parts.join(", ")
}

/// Is `s` shown as a bare name (an identifier)?
fn is_plain_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `s` as a TissLang string literal: quoted, with `\\ \" \n \t \r \$` and
/// `\u{..}` for other control characters, so it always fits on one line.
fn quote(s: &str) -> String {
    format!("\"{}\"", escape(s))
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '$' if chars.peek() == Some(&'{') => out.push_str("\\$"),
            c if c.is_control() || is_invisible(c) => {
                let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Characters that would make a line read differently from what it holds
/// (bidirectional overrides, zero-width characters).
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Source text as printed on one line: `\n`, `\r` and other control
/// characters (but tab) escaped, everything else as it is.
fn printable(s: &str) -> String {
    if s.chars().all(|c| c == '\t' || !(c.is_control() || is_invisible(c))) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || is_invisible(c) => {
                let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// Cuts `s` to about `limit` characters, keeping the head and the tail.
fn shorten(s: &str, limit: usize) -> String {
    let count = s.chars().count();
    if count <= limit {
        return s.to_string();
    }
    let keep = limit.saturating_sub(3);
    let head = keep - keep / 3;
    let tail = keep / 3;
    let head: String = s.chars().take(head).collect();
    let tail: String = s.chars().skip(count - tail).collect();
    format!("{head}...{tail}")
}

/// Shortens an already-quoted text, keeping the quotes and never cutting an
/// escape sequence in half.
fn shorten_quoted(quoted: &str, limit: usize) -> String {
    let inner = quoted.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(quoted);
    // Split into display units: an escape sequence or one character.
    let mut units: Vec<&str> = Vec::new();
    let mut rest = inner;
    while let Some(c) = rest.chars().next() {
        let len = if c == '\\' {
            match rest[1..].chars().next() {
                Some('u') => rest.find('}').map_or(rest.len(), |i| i + 1),
                Some(d) => 1 + d.len_utf8(),
                None => 1,
            }
        } else {
            c.len_utf8()
        };
        units.push(&rest[..len]);
        rest = &rest[len..];
    }
    if units.len() <= limit {
        return quoted.to_string();
    }
    let keep = limit.saturating_sub(3);
    let head = keep - keep / 3;
    let tail = keep / 3;
    format!("\"{}...{}\"", units[..head].concat(), units[units.len() - tail..].concat())
}

#[cfg(test)]
mod tests;
