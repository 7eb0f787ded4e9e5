//! Pass 1: every table. Every string, slot, step, field and dimension
//! number a table holds is in range (`NONE` only where `module` says an
//! index may be absent), handler ranges and task entries lie inside the
//! code, the line table is sorted, and a variable that a table fills (a
//! caught error, a prompt's answer) is declared with that type.

use crate::answer::{Shape, Shapes};
use crate::cost::Dim;
use crate::module::{Module, NONE, PathRootRef, Subject, TemplatePart};
use crate::types::{Field, ValueType};

use super::error::{Result, Site, Table, VerifyError};
use super::forest::MAX_SHAPES;

const FIELD_RANGE: &str = "a record field number, 0..=21";

pub(super) struct Checker<'a> {
    pub m: &'a Module,
    pub len: usize,
}

impl Checker<'_> {
    pub(super) fn index(&self, site: Site, what: &'static str, index: u32, table: Table) -> Result {
        let len = match table {
            Table::Strings => self.m.strings.len(),
            Table::Constants => self.m.constants.len(),
            Table::Slots => self.m.slots.len(),
            Table::Templates => self.m.templates.len(),
            Table::Regexes => self.m.regexes.len(),
            Table::Assertions => self.m.assertions.len(),
            Table::Prompts => self.m.prompts.len(),
            Table::Choices => self.m.choices.len(),
            Table::Estimates => self.m.estimates.len(),
            Table::Steps => self.m.steps.len(),
            Table::Tasks => self.m.tasks.len(),
            Table::ManifestPrompts => self.m.manifest.prompts.len(),
            Table::Shapes => self.m.shapes.len(),
        };
        if (index as usize) < len {
            Ok(())
        } else {
            Err(VerifyError::IndexOutOfRange { site, what, index, table, len })
        }
    }

    /// An index that may be `NONE`.
    pub(super) fn optional(&self, site: Site, what: &'static str, index: u32, table: Table) -> Result {
        if index == NONE { Ok(()) } else { self.index(site, what, index, table) }
    }

    pub(super) fn string(&self, site: Site, what: &'static str, index: u32) -> Result {
        self.index(site, what, index, Table::Strings)
    }

    pub(super) fn target(&self, site: Site, what: &'static str, target: u32) -> Result {
        if (target as usize) < self.len {
            Ok(())
        } else {
            Err(VerifyError::TargetOutOfRange { site, what, target, len: self.len })
        }
    }

    pub(super) fn field(&self, site: Site, field: u8) -> Result {
        match Field::from_u8(field) {
            Some(_) => Ok(()),
            None => Err(VerifyError::BadOperand {
                site,
                what: "field number",
                value: u32::from(field),
                expected: FIELD_RANGE,
            }),
        }
    }

    pub(super) fn dim(&self, site: Site, dim: u8) -> Result {
        if usize::from(dim) < Dim::ALL.len() {
            Ok(())
        } else {
            Err(VerifyError::BadOperand {
                site,
                what: "dimension number",
                value: u32::from(dim),
                expected: "0..=4",
            })
        }
    }

    /// A shape index that a typed answer on the stack may have: in range,
    /// and a list or a record (a leaf is a plain value).
    pub(super) fn composite(&self, site: Site, shape: u32) -> Result {
        self.index(site, "answer shape", shape, Table::Shapes)?;
        match self.m.shapes[shape as usize] {
            Shape::List(_) | Shape::Record(_) => Ok(()),
            _ => Err(VerifyError::LeafAnswer { site, shape }),
        }
    }

    /// A variable (in range, or `NONE`) that receives a value of type
    /// `receives` must be declared with it.
    pub(super) fn slot_receives(&self, site: Site, slot: u32, receives: ValueType) -> Result {
        match self.m.slots.get(slot as usize) {
            Some(declared) if declared.ty != receives => {
                Err(VerifyError::SlotType { site, slot, declared: declared.ty, receives })
            }
            _ => Ok(()),
        }
    }

    /// Pass 1: every table.
    pub(super) fn tables(&self) -> Result {
        let m = self.m;
        let entry = |table, index| Site::Entry { table, index };
        let nested = |table, index, part, part_index| Site::Nested { table, index, part, part_index };

        self.string(Site::Module { field: "task" }, "task string", m.task)?;
        if m.max_stack as usize > self.len {
            return Err(VerifyError::MaxStackTooLarge { max_stack: m.max_stack, len: self.len });
        }
        for (i, &(key, value)) in m.metadata.iter().enumerate() {
            self.string(entry("metadata", i), "key string", key)?;
            self.string(entry("metadata", i), "value string", value)?;
        }
        for (i, c) in m.constants.iter().enumerate() {
            if let crate::module::Constant::Str(s) = *c {
                self.string(entry("constants", i), "string", s)?;
            }
        }
        // Shapes first: slots and prompts refer to them.
        if m.shapes.len() > MAX_SHAPES {
            let reason = format!("{} shapes, more than the {MAX_SHAPES} a module may have", m.shapes.len());
            return Err(VerifyError::BadShape { reason });
        }
        if let Err(reason) = Shapes::resolve(&m.shapes, |n| m.string(n)) {
            return Err(VerifyError::BadShape { reason });
        }
        for (i, slot) in m.slots.iter().enumerate() {
            self.string(entry("slots", i), "name string", slot.name)?;
            if let ValueType::Answer(shape) = slot.ty {
                self.composite(entry("slots", i), shape)?;
            }
        }
        let mut previous = None;
        for (i, line) in m.lines.iter().enumerate() {
            if line.pc as usize >= self.len {
                return Err(VerifyError::LineOutOfRange { entry: i, pc: line.pc, len: self.len });
            }
            if let Some(previous) = previous
                && line.pc < previous
            {
                return Err(VerifyError::LinesUnsorted { entry: i, pc: line.pc, previous });
            }
            previous = Some(line.pc);
        }
        for (i, step) in m.steps.iter().enumerate() {
            self.string(entry("steps", i), "name string", step.name)?;
            if step.parent != NONE && step.parent as usize >= i {
                return Err(VerifyError::StepParent { step: i, parent: step.parent });
            }
        }
        for (i, task) in m.tasks.iter().enumerate() {
            self.string(entry("tasks", i), "name string", task.name)?;
            self.target(entry("tasks", i), "entry", task.entry)?;
        }
        for (i, h) in m.handlers.iter().enumerate() {
            if h.start > h.end || h.end as usize > self.len {
                return Err(VerifyError::HandlerRange {
                    handler: i,
                    start: h.start,
                    end: h.end,
                    len: self.len,
                });
            }
            self.target(entry("handlers", i), "target", h.target)?;
            self.optional(entry("handlers", i), "catch slot", h.catch_slot, Table::Slots)?;
            self.slot_receives(entry("handlers", i), h.catch_slot, ValueType::Error)?;
        }
        // Each is compiled at load time, a few KiB at least: a table of the
        // same pattern many times over would take gigabytes from a small file.
        if m.regexes.len() > super::MAX_REGEXES {
            return Err(VerifyError::TooManyRegexes { count: m.regexes.len() });
        }
        let mut patterns = std::collections::HashMap::with_capacity(m.regexes.len());
        for (i, &regex) in m.regexes.iter().enumerate() {
            self.string(entry("regexes", i), "pattern string", regex)?;
            if let Some(&earlier) = patterns.get(&regex) {
                return Err(VerifyError::RegexRepeated { regex: i, earlier });
            }
            patterns.insert(regex, i);
        }
        // What a template builds is bounded by what the module holds: no two
        // text parts in a row, its text no longer than all the module's.
        let limit = m.strings.text_len().saturating_add(super::TEMPLATE_TEXT_SLACK);
        for (i, t) in m.templates.iter().enumerate() {
            let mut bytes = 0usize;
            let mut after_text = false;
            for (j, part) in t.parts.iter().enumerate() {
                if let TemplatePart::Text(s) = *part {
                    self.string(nested("templates", i, "parts", j), "text string", s)?;
                    if after_text {
                        return Err(VerifyError::TemplateTextRepeated { template: i, part: j });
                    }
                    bytes = bytes.saturating_add(m.strings.get(s).map_or(0, str::len));
                    if bytes > limit {
                        return Err(VerifyError::TemplateTooLong { template: i, bytes, limit });
                    }
                }
                after_text = matches!(part, TemplatePart::Text(_));
            }
        }
        for (i, a) in m.assertions.iter().enumerate() {
            self.string(entry("assertions", i), "condition string", a.condition)?;
            self.optional(entry("assertions", i), "message string", a.message, Table::Strings)?;
            for (j, o) in a.observed.iter().enumerate() {
                let site = nested("assertions", i, "observed", j);
                self.string(site, "text string", o.text)?;
                if let PathRootRef::Slot(slot) = o.path.root {
                    self.index(site, "root slot", slot, Table::Slots)?;
                }
                for &field in &o.path.fields {
                    self.field(site, field)?;
                }
            }
        }
        for (i, p) in m.prompts.iter().enumerate() {
            let mut named = std::collections::HashSet::with_capacity(p.context.len().min(self.m.slots.len()));
            for (j, &slot) in p.context.iter().enumerate() {
                self.index(nested("prompts", i, "context", j), "slot", slot, Table::Slots)?;
                if !named.insert(slot) {
                    return Err(VerifyError::ContextRepeated { prompt: i, entry: j });
                }
            }
            self.optional(entry("prompts", i), "INTO slot", p.into, Table::Slots)?;
            let answer = match p.answer {
                None => ValueType::Str,
                Some(a) => {
                    self.index(entry("prompts", i), "answer shape", a.shape, Table::Shapes)?;
                    self.string(entry("prompts", i), "schema name string", a.name)?;
                    self.string(entry("prompts", i), "schema string", a.schema)?;
                    m.shapes[a.shape as usize].value_type(a.shape)
                }
            };
            self.slot_receives(entry("prompts", i), p.into, answer)?;
        }
        for (i, c) in m.choices.iter().enumerate() {
            self.optional(entry("choices", i), "prompt string", c.prompt, Table::Strings)?;
            if c.options.is_empty() {
                return Err(VerifyError::EmptyChoice { choice: i });
            }
            if c.options.len() > super::MAX_CHOICE_OPTIONS {
                return Err(VerifyError::TooManyOptions { choice: i, count: c.options.len() });
            }
            for (j, o) in c.options.iter().enumerate() {
                let site = nested("choices", i, "options", j);
                self.string(site, "label string", o.label)?;
                self.target(site, "target", o.target)?;
            }
        }
        self.manifest()
    }

    fn manifest(&self) -> Result {
        let man = &self.m.manifest;
        let entry = |table, index| Site::Entry { table, index };
        for (i, c) in man.commands.iter().enumerate() {
            let site = entry("manifest.commands", i);
            self.string(site, "text string", c.text)?;
            self.optional(site, "dir string", c.dir, Table::Strings)?;
            self.optional(site, "step", c.step, Table::Steps)?;
        }
        for (i, p) in man.paths.iter().enumerate() {
            self.string(entry("manifest.paths", i), "path string", p.path)?;
        }
        for (i, p) in man.prompts.iter().enumerate() {
            self.string(entry("manifest.prompts", i), "query string", p.query)?;
            for (j, &name) in p.context.iter().enumerate() {
                let site =
                    Site::Nested { table: "manifest.prompts", index: i, part: "context", part_index: j };
                self.string(site, "name string", name)?;
            }
        }
        for (i, x) in man.interactions.iter().enumerate() {
            self.optional(entry("manifest.interactions", i), "text string", x.text, Table::Strings)?;
            for (j, &label) in x.options.iter().enumerate() {
                let site =
                    Site::Nested { table: "manifest.interactions", index: i, part: "options", part_index: j };
                self.string(site, "label string", label)?;
            }
        }
        for (i, b) in man.budgets.iter().enumerate() {
            self.dim(entry("manifest.budgets", i), b.dim)?;
        }
        for (i, &(name, _line)) in man.env.iter().enumerate() {
            self.string(entry("manifest.env", i), "name string", name)?;
        }
        for (i, r) in man.risk.reasons.iter().enumerate() {
            let site = entry("manifest.risk.reasons", i);
            match r.kind.subject() {
                Some(Subject::String) => self.string(site, "subject string", r.subject)?,
                Some(Subject::Prompt) => {
                    self.index(site, "subject prompt", r.subject, Table::ManifestPrompts)?
                }
                None => {}
            }
        }
        Ok(())
    }
}
