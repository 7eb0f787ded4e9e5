//! The tables every unit appends to, and the final assembly of the module.

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use tisslang::answer::{Shape, ShapeField};
use tisslang::cost::bound::CostBound;
use tisslang::isa::{Instr, NO_SLOT};
use tisslang::module::strings::StringTable;
use tisslang::module::{
    Assertion, Choice, Constant, Manifest, Module, PromptAnswer, PromptInfo, Risk, Slot, Source, StepInfo,
    TaskInfo, Template,
};
use tisslang::types::ValueType;
use tisslang::version::LANGUAGE_VERSION;

use super::UnitCode;
use crate::check::answers::AnswerTypes;
use crate::source_file::SourceFile;
use crate::syntax::ast::{Expr, ExprKind, Heredoc, Item, StrLit, StrPart};
use crate::syntax::span::Span;

/// The plan's source as lowering holds it: borrowed ([`super::lower`]), or
/// owned, so the text of the items already lowered can be given back
/// ([`super::lower_owned`]).
pub(crate) enum SourceRef<'f> {
    Borrowed(&'f SourceFile),
    Owned(SourceFile),
}

impl std::ops::Deref for SourceRef<'_> {
    type Target = SourceFile;
    fn deref(&self) -> &SourceFile {
        match self {
            SourceRef::Borrowed(file) => file,
            SourceRef::Owned(file) => file,
        }
    }
}

pub(crate) struct Tables<'f> {
    pub(crate) file: SourceRef<'f>,
    strings: Strings,
    /// While an ASSERT is lowered: its condition's string and source span,
    /// so strings taken from inside it can share its text.
    pub(crate) enclosing: Option<(u32, Span)>,
    /// The RUN command whose template is lowered next, and the string that
    /// shows it (`literal_or_raw`): the template's text parts lie inside it.
    pub(crate) shown: Option<(Span, u32)>,
    /// Reused buffer for the text of interpolated literals.
    scratch: String,
    constants: Vec<Constant>,
    /// The other constants' indices; a string constant's is in
    /// `str_constants`, by string index (`u32::MAX`: none), without hashing.
    constant_index: FxHashMap<Constant, u32>,
    str_constants: Vec<u32>,
    /// Declared before any other string is interned ([`Tables::with_slots`]),
    /// so slot `i` is named by string `i`: finding a variable's slot is
    /// finding its name's string, with no table from one to the other.
    pub(crate) slots: Vec<Slot>,
    /// Slots whose type is not known yet (copies of later-typed variables).
    unresolved: FxHashSet<u32>,
    /// Slots bound by READ: the default context of a PROMPT_AGENT.
    read_slots: std::collections::BTreeSet<u32>,
    pub(crate) templates: Vec<Template>,
    template_index: FxHashMap<Template, u32>,
    pub(crate) regexes: Vec<u32>,
    pub(crate) assertions: Vec<Assertion>,
    pub(crate) prompts: Vec<PromptInfo>,
    /// The plan's answer types (`INTO x AS T`), as the checker resolved them:
    /// their shapes become the module's table, in the same order.
    pub(crate) answers: AnswerTypes,
    /// Shape → the string of its JSON Schema: derived once per shape, not
    /// once per prompt (a plan asks for the same TYPE many times).
    schemas: FxHashMap<u32, u32>,
    pub(crate) choices: Vec<Choice>,
    pub(crate) estimates: Vec<CostBound>,
    pub(crate) steps: Vec<StepInfo>,
    /// Per DEFINE_TASK (source order): its table entry and code, once lowered.
    pub(crate) task_infos: Vec<Option<(TaskInfo, UnitCode)>>,
    pub(crate) manifest: Manifest,
}

impl<'f> Tables<'f> {
    /// `variables`: at least the names the slots are declared with, the
    /// first strings: the index starts with room for them and grows as
    /// more come; the table of spans gets room for the rest once they are
    /// counted ([`Tables::reserve_strings`]).
    fn new(file: SourceRef<'f>, variables: usize) -> Tables<'f> {
        // The strings' text, mostly the source's, is not longer than it
        // (room only: pages are touched as strings are added; half the
        // source made a plan of heredocs grow it twice, 0.8 MiB more at its
        // peak).
        let len = file.text.len();
        Tables {
            file,
            strings: Strings::with_capacity(variables + 16, len + 64),
            enclosing: None,
            shown: None,
            scratch: String::new(),
            constants: Vec::new(),
            constant_index: FxHashMap::default(),
            str_constants: Vec::new(),
            slots: Vec::new(),
            unresolved: Default::default(),
            read_slots: Default::default(),
            templates: Vec::new(),
            template_index: FxHashMap::default(),
            regexes: Vec::new(),
            assertions: Vec::new(),
            prompts: Vec::new(),
            answers: AnswerTypes::default(),
            schemas: FxHashMap::default(),
            choices: Vec::new(),
            estimates: Vec::new(),
            steps: Vec::new(),
            task_infos: Vec::new(),
            manifest: Manifest::default(),
        }
    }

    /// Interns a string: each distinct string is stored once.
    /// New tables with every variable's slot declared by `declare`, before
    /// anything else is interned: the only way slots are made, so slot `i`
    /// is named by string `i` however lowering changes.
    /// `variables`: at least how many there are (`Plan::bindings`).
    pub(crate) fn with_slots<R>(
        file: SourceRef<'f>,
        answers: AnswerTypes,
        variables: usize,
        declare: impl FnOnce(&mut Declaring<'_, 'f>) -> R,
    ) -> (Tables<'f>, R) {
        let mut tables = Tables::new(file, variables);
        tables.answers = answers;
        let declared = declare(&mut Declaring(&mut tables));
        (tables, declared)
    }

    pub(crate) fn string(&mut self, text: &str) -> u32 {
        self.strings.intern(text, None)
    }

    /// Room for `strings` strings in all in the table of spans, and for as
    /// many constants, which most strings are: room only, touched as it is
    /// used, where doubling copied each table and faulted in the copy. A
    /// little more than the estimate: it is exact on the prompts shape but
    /// for the few strings interned at the end (the header's, a risk's
    /// tool), where one more string doubled the spans, a copy of 0.6 MiB.
    ///
    /// Not the index: its room is touched wherever hashes land, so a table
    /// sized now would be resident whole from the start of lowering, while
    /// the whole tree is, the peak of the steps shape. It grows as strings
    /// come, by then beside what is left of the tree, and growing is cheap
    /// ([`Strings`]).
    pub(crate) fn reserve_strings(&mut self, strings: usize) {
        let strings = strings + strings / 64 + 64;
        self.strings.table.reserve(strings.saturating_sub(self.strings.table.len()));
        self.constants.reserve(strings.saturating_sub(self.constants.len()));
        self.str_constants.reserve(strings.saturating_sub(self.str_constants.len()));
    }

    /// Interns the source text at `span` (a string literal's, between its
    /// quotes). A new string inside the enclosing ASSERT condition is
    /// noted, so the module stores its text once.
    pub(crate) fn source_string(&mut self, span: Span) -> u32 {
        self.strings.intern_inside(self.enclosing, self.file.slice(span), span)
    }

    /// Interns the code at `span` (a condition, a path) as `tissc fmt`
    /// prints it, so a formatted plan stores the same text (book: guide/tissc.md).
    pub(crate) fn source_code(&mut self, span: Span) -> u32 {
        let text = crate::fmt::one_line(self.file.slice(span));
        self.strings.intern_inside(self.enclosing, &text, span)
    }

    /// Interns `text`, which is the text of string `outer` from byte
    /// `offset` on: if it is new, the module stores it as a span of `outer`.
    fn string_within(&mut self, text: &str, outer: u32, offset: u32) -> u32 {
        self.strings.intern(text, Some((outer, offset)))
    }

    /// A literal's text, or for an interpolated one its text with each hole
    /// shown as `${…}` as written (a literal `${` in the text as `\${`).
    pub(crate) fn literal_or_raw(&mut self, lit: &StrLit) -> u32 {
        if let Some(text) = lit.as_literal() {
            return self.string(text);
        }
        let mut shown = std::mem::take(&mut self.scratch);
        shown.clear();
        for part in &lit.parts {
            match part {
                StrPart::Text { text } if text.contains("${") => shown.push_str(&text.replace("${", "\\${")),
                StrPart::Text { text } => shown.push_str(text),
                StrPart::Interp { path } => {
                    shown.push_str("${");
                    shown.push_str(self.file.slice(path.span));
                    shown.push('}');
                }
            }
        }
        let index = self.string(&shown);
        self.scratch = shown;
        index
    }

    /// A bare variable's name, read from the source ("" for any other expression).
    pub(crate) fn var_name(&self, expr: &Expr) -> &str {
        match expr.kind() {
            ExprKind::Var => self.file.slice(expr.span()),
            _ => "",
        }
    }

    /// A string literal's source between its quotes.
    pub(crate) fn raw_text(&self, lit: Span) -> &str {
        self.file.slice(self.raw_span(lit))
    }

    /// The span of a string literal's source (written at `lit`) between its quotes.
    pub(crate) fn raw_span(&self, lit: Span) -> Span {
        let text = self.file.slice(lit);
        if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
            Span { start: lit.start + 1, end: lit.end - 1 }
        } else {
            lit
        }
    }

    pub(crate) fn constant(&mut self, constant: Constant) -> u32 {
        let next = self.constants.len() as u32;
        let index = match constant {
            Constant::Str(string) => {
                let at = string as usize;
                if self.str_constants.len() <= at {
                    self.str_constants.resize(at + 1, u32::MAX);
                }
                let index = &mut self.str_constants[at];
                if *index == u32::MAX {
                    *index = next;
                }
                *index
            }
            _ => *self.constant_index.entry(constant).or_insert(next),
        };
        if index == next {
            self.constants.push(constant);
        }
        index
    }

    /// A heredoc's body as a string constant, read from the source when
    /// it was left there.
    pub(crate) fn heredoc_constant(&mut self, heredoc: &Heredoc) -> u32 {
        let s = self.strings.intern(heredoc.body(&self.file.text), None);
        self.constant(Constant::Str(s))
    }

    /// The slot of a declared variable ([`Declaring`]). Every binder was
    /// declared, so a miss is the compiler's own fault: `NO_SLOT`, which the
    /// verifier refuses, rather than a slot of another variable.
    pub(crate) fn slot(&self, name: &str) -> u32 {
        self.existing_slot(name).unwrap_or(NO_SLOT)
    }

    /// The slot named by string `string`, if there is one.
    fn slot_named(&self, string: u32) -> Option<u32> {
        self.slots.get(string as usize).filter(|slot| slot.name == string).map(|_| string)
    }

    /// `INTO x AS T` where `x` starts at `at`: T's shape and schema name.
    pub(crate) fn prompt_answer(&self, at: u32) -> Option<(u32, String)> {
        self.answers.prompt(at).map(|(shape, name)| (shape, name.to_string()))
    }

    /// The stack type of a value of shape `shape`.
    pub(crate) fn shape_type(&self, shape: u32) -> ValueType {
        self.answers.shapes.get(shape).map_or(ValueType::Str, |s| s.value_type(shape))
    }

    /// A typed prompt's answer entry: its JSON Schema derived here, once
    /// per shape. The name is interned first, as the table's order has it.
    pub(crate) fn prompt_answer_entry(&mut self, shape: u32, name: &str) -> PromptAnswer {
        let name = self.string(name);
        let schema = match self.schemas.get(&shape) {
            Some(&schema) => schema,
            None => {
                let text = tisslang::answer::schema::schema_text(&self.answers.shapes, shape);
                let schema = self.string(&text);
                self.schemas.insert(shape, schema);
                schema
            }
        };
        PromptAnswer { shape, name, schema }
    }

    /// The answer shapes with their names interned.
    fn module_shapes(&mut self) -> Vec<Shape> {
        let shapes = std::mem::take(&mut self.answers.shapes.shapes);
        shapes
            .iter()
            .map(|shape| match shape {
                Shape::Str => Shape::Str,
                Shape::Int => Shape::Int,
                Shape::Bool => Shape::Bool,
                Shape::List(e) => Shape::List(*e),
                Shape::Enum(names) => Shape::Enum(names.iter().map(|n| self.string(n)).collect()),
                Shape::Record(fields) => Shape::Record(
                    fields
                        .iter()
                        .map(|f| ShapeField {
                            name: self.string(&f.name),
                            optional: f.optional,
                            shape: f.shape,
                        })
                        .collect(),
                ),
            })
            .collect()
    }

    /// The type of a declared variable whose type is known.
    pub(crate) fn known_slot_type(&self, name: &str) -> Option<ValueType> {
        let slot = self.existing_slot(name)?;
        (!self.unresolved.contains(&slot)).then(|| self.slots[slot as usize].ty)
    }

    /// The slots bound by READ, in slot order.
    pub(crate) fn read_slots(&self) -> Vec<u32> {
        self.read_slots.iter().copied().collect()
    }

    pub(crate) fn read_slot_count(&self) -> usize {
        self.read_slots.len()
    }

    pub(crate) fn existing_slot(&self, name: &str) -> Option<u32> {
        self.slot_named(self.existing_string(name)?)
    }

    pub(crate) fn slot_type(&self, slot: u32) -> ValueType {
        self.slots.get(slot as usize).map_or(ValueType::Str, |s| s.ty)
    }

    /// The template of an interpolated literal (deduplicated).
    pub(crate) fn template(&mut self, lit: &StrLit) -> u32 {
        use tisslang::module::TemplatePart;
        // The text parts of a RUN command lie inside the string that shows
        // it (`literal_or_raw`), unless escaping changed them there.
        let shown = self.shown.take().filter(|&(span, _)| span == lit.span).map(|(_, index)| index);
        let mut offset = 0;
        let parts = lit
            .parts
            .iter()
            .map(|part| match part {
                StrPart::Text { text } => {
                    let index = match shown {
                        Some(outer) if !text.contains("${") => self.string_within(text, outer, offset),
                        _ => self.string(text),
                    };
                    offset += (text.len() + text.matches("${").count()) as u32;
                    TemplatePart::Text(index)
                }
                StrPart::Interp { path } => {
                    offset += path.span.end - path.span.start + 3;
                    TemplatePart::Hole
                }
            })
            .collect();
        let template = Template { parts };
        let next = self.templates.len() as u32;
        if let Some(&index) = self.template_index.get(&template) {
            return index;
        }
        self.template_index.insert(template.clone(), next);
        self.templates.push(template);
        next
    }

    pub(crate) fn regex(&mut self, pattern: &str) -> u32 {
        let s = self.string(pattern);
        if let Some(i) = self.regexes.iter().position(|&r| r == s) {
            return i as u32;
        }
        self.regexes.push(s);
        self.regexes.len() as u32 - 1
    }

    /// Concatenates the units (main first, then tasks in source order),
    /// relocating their jump targets, and fills in the module.
    /// The task's name and the `#TISS!` metadata, interned.
    pub(crate) fn header(&mut self, items: &[Item]) -> Header {
        let mut task = u32::MAX;
        let mut metadata = Vec::new();
        for item in items {
            match item {
                Item::Task { name, .. } => task = self.literal_or_raw(name),
                Item::Header { entries, .. } => {
                    for e in entries {
                        metadata.push((self.string(&e.key), self.string(&e.value)));
                    }
                }
                _ => {}
            }
        }
        if task == u32::MAX {
            task = self.string("");
        }
        Header { task, metadata }
    }

    /// Assembles the module: `risk` is the manifest's risk, assessed over
    /// these tables by the caller.
    pub(crate) fn into_module(
        mut self,
        Header { task, metadata }: Header,
        risk: Risk,
        main: UnitCode,
        bound: CostBound,
    ) -> (Module, SourceRef<'f>) {
        // The main unit comes first, at pc 0: its vectors are the module's,
        // grown once to take the tasks' code.
        let task_units: Vec<_> = std::mem::take(&mut self.task_infos).into_iter().flatten().collect();
        let (task_code, task_lines) =
            task_units.iter().fold((0, 0), |(c, l), (_, unit)| (c + unit.code.len(), l + unit.lines.len()));
        let (mut code, mut lines, mut handlers) = (main.code, main.lines, main.handlers);
        code.reserve_exact(task_code);
        lines.reserve_exact(task_lines);
        let mut max_stack = main.max_stack;
        let mut tasks = Vec::with_capacity(task_units.len());
        for (info, unit) in task_units {
            let base = code.len() as u32;
            code.extend(unit.code.into_iter().map(|instr| relocate(instr, base)));
            lines.extend(unit.lines.into_iter().map(|mut l| {
                l.pc += base;
                l
            }));
            handlers.extend(unit.handlers.into_iter().map(|mut h| {
                h.start += base;
                h.end += base;
                h.target += base;
                h
            }));
            for choice in unit.choices {
                for option in &mut self.choices[choice as usize].options {
                    option.target += base;
                }
            }
            max_stack = max_stack.max(unit.max_stack);
            tasks.push(TaskInfo { entry: base, ..info });
        }

        let mut manifest = std::mem::take(&mut self.manifest);
        manifest.risk = risk;
        let shapes = self.module_shapes();
        let strings = self.strings.table;
        let module = Module {
            language: [LANGUAGE_VERSION.major, LANGUAGE_VERSION.minor, LANGUAGE_VERSION.patch],
            task,
            metadata,
            strings,
            constants: self.constants,
            code,
            max_stack,
            slots: self.slots,
            lines,
            steps: self.steps,
            tasks,
            handlers,
            regexes: self.regexes,
            templates: self.templates,
            assertions: self.assertions,
            prompts: self.prompts,
            shapes,
            choices: self.choices,
            estimates: self.estimates,
            bound,
            manifest,
            // What is kept of the source is the caller's (`KeepSource`).
            source: Source::Stripped,
        };
        (module, self.file)
    }

    /// The index of `text` if it is already a string of the module.
    pub(crate) fn existing_string(&self, text: &str) -> Option<u32> {
        self.strings.get(text)
    }

    /// Resolves a string index back to text (for the risk assessment).
    pub(crate) fn text_of(&self, index: u32) -> &str {
        self.strings.table.get(index).unwrap_or("")
    }
}

/// Tables whose slots are being declared ([`Tables::with_slots`]): the only
/// handle that creates a slot. It reads the tables as they stand (a copy
/// takes the type of the variable it copies).
pub(crate) struct Declaring<'t, 'f>(&'t mut Tables<'f>);

impl<'f> std::ops::Deref for Declaring<'_, 'f> {
    type Target = Tables<'f>;
    fn deref(&self) -> &Tables<'f> {
        self.0
    }
}

impl Declaring<'_, '_> {
    /// The slot of a variable, created on first declaration with `ty` as its type.
    pub(crate) fn declare(&mut self, name: &str, ty: ValueType) -> u32 {
        let tables = &mut *self.0;
        let name_index = tables.string(name);
        if let Some(slot) = tables.slot_named(name_index) {
            return slot;
        }
        // Only slot names have been interned, each once.
        let slot = tables.slots.len() as u32;
        debug_assert_eq!(slot, name_index);
        tables.slots.push(Slot { name: name_index, ty });
        slot
    }

    /// Declares a variable whose type is not known yet.
    pub(crate) fn declare_unresolved(&mut self, name: &str) {
        if self.existing_slot(name).is_some() {
            return;
        }
        let slot = self.declare(name, ValueType::Str);
        self.0.unresolved.insert(slot);
    }

    pub(crate) fn set_slot_type(&mut self, name: &str, ty: ValueType) {
        if let Some(slot) = self.existing_slot(name) {
            self.0.slots[slot as usize].ty = ty;
            self.0.unresolved.remove(&slot);
        }
    }

    pub(crate) fn mark_read_slot(&mut self, name: &str) {
        if let Some(slot) = self.existing_slot(name) {
            self.0.read_slots.insert(slot);
        }
    }
}

/// The module's header fields, interned before the risk assessment so the
/// string table's order is that of the source.
pub(crate) struct Header {
    task: u32,
    metadata: Vec<(u32, u32)>,
}

/// The module's strings, interned as they are met: each distinct string is
/// laid out once, straight into the module's own table (a string found
/// inside an earlier one as a span of it), and `index` finds a string's
/// index by its text, hashing into the table's text rather than a copy.
/// (An interner of its own, lasso, held every string a second time, and the
/// module's table was copied out of it at the end: on a plan of heredocs,
/// the peak of `tissc compile`.)
///
/// Each entry of the index keeps its string's hash beside the string's
/// index: growing the index moves entries without hashing any text again
/// (a rehash that did was 3.6% of a compile of the steps shape), and a
/// lookup compares texts only when the hashes agree.
struct Strings {
    table: StringTable,
    /// (string index, hash): the hash is 32 bits, spread to 64 for the
    /// table by [`Strings::spread`].
    index: hashbrown::HashTable<(u32, u32)>,
}

impl Strings {
    fn with_capacity(strings: usize, bytes: usize) -> Strings {
        Strings {
            table: StringTable::with_capacity(strings, bytes),
            index: hashbrown::HashTable::with_capacity(strings),
        }
    }

    fn hash(text: &str) -> u32 {
        let hash = FxBuildHasher.hash_one(text);
        (hash ^ (hash >> 32)) as u32
    }

    /// The 64-bit hash the table places an entry by, from the 32 it keeps:
    /// the multiplication carries every bit to the top seven, which the
    /// table matches first.
    fn spread(hash: u32) -> u64 {
        u64::from(hash).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// The index of `text`, if it is a string already.
    fn get(&self, text: &str) -> Option<u32> {
        self.find(text, Strings::hash(text))
    }

    /// [`Strings::get`] with the text's hash taken.
    fn find(&self, text: &str, hash: u32) -> Option<u32> {
        let table = &self.table;
        self.index
            .find(Strings::spread(hash), |&(i, h)| h == hash && table.get(i) == Some(text))
            .map(|&(i, _)| i)
    }

    /// Interns `text`, from `span` of the source: inside the enclosing
    /// condition (`Tables::enclosing`), as a span of its text where it
    /// occurs there.
    fn intern_inside(&mut self, enclosing: Option<(u32, Span)>, text: &str, span: Span) -> u32 {
        match enclosing {
            Some((outer, outer_span)) if outer_span.start <= span.start && span.end <= outer_span.end => {
                let offset = self.table.get(outer).and_then(|outer| find(outer, text));
                self.intern(text, offset.map(|offset| (outer, offset as u32)))
            }
            _ => self.intern(text, None),
        }
    }

    /// The index of `text`, added if new: as a span of string `outer` from
    /// byte `offset` when `inside` says it is there (and it is), else as
    /// text of its own. Indices are given in the order strings are first
    /// met.
    fn intern(&mut self, text: &str, inside: Option<(u32, u32)>) -> u32 {
        let hash = Strings::hash(text);
        if let Some(index) = self.find(text, hash) {
            return index;
        }
        let table = &mut self.table;
        let new = table.len() as u32;
        let index = match inside {
            Some((outer, offset)) if outer < new => table.push_within(outer, offset as usize, text),
            _ => None,
        }
        .unwrap_or_else(|| table.push(text));
        self.index.insert_unique(Strings::spread(hash), (index, hash), |&(_, h)| Strings::spread(h));
        index
    }
}

/// The first place `needle` occurs in `hay`. A short needle (most are: a
/// path, a word) by its first byte, without setting up a searcher for
/// each; a long one with `str::find`, linear whatever the text.
fn find(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    match n.first() {
        Some(&first) if n.len() <= 32 => memchr::memchr_iter(first, h).find(|&i| h[i..].starts_with(n)),
        _ => hay.find(needle),
    }
}

fn relocate(instr: Instr, base: u32) -> Instr {
    match instr {
        Instr::Jump { target } => Instr::Jump { target: target + base },
        Instr::JumpIfFalse { target } => Instr::JumpIfFalse { target: target + base },
        Instr::JumpIfTrue { target } => Instr::JumpIfTrue { target: target + base },
        other => other,
    }
}
