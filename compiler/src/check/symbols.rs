//! The plan's symbol tables, collected in one walk in source order: every
//! variable with each place that binds it, and every `DEFINE_TASK` with the
//! `CALL`s in its body. Later passes look names up here instead of re-walking.

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

use hashbrown::{HashTable, hash_table};

use crate::syntax::ast::{Block, Cond, Expr, Ident, Item, Plan, Stmt, StmtKind, StrLit};
use crate::syntax::span::Span;
use crate::syntax::visit::{self, Binder, Visitor};

use super::answers::AnswerTypes;
use super::types::shape_ty;
use super::types::ty::Rec;
use super::types::ty::Ty;

/// A map keyed by names borrowed from the tree, with a hash cheaper than
/// SipHash: word-at-a-time mixing and a final avalanche (names such as
/// `out_1` ... `out_999` differ in one byte, which must reach the low bits
/// the table indexes with). Nothing iterates these maps, so order never leaks.
pub(crate) type NameMap<'a, V> = HashMap<&'a str, V, BuildHasherDefault<NameHasher>>;

#[derive(Default)]
pub(crate) struct NameHasher(u64);

const MUL: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            self.0 = (self.0 ^ word).wrapping_mul(MUL).rotate_left(29);
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.0 = (self.0 ^ u64::from_le_bytes(tail)).wrapping_mul(MUL).rotate_left(29);
    }

    fn write_u8(&mut self, byte: u8) {
        self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(MUL);
    }

    /// MurmurHash3's finalizer: every input bit reaches every output bit.
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

pub(crate) struct Symbols<'a> {
    /// Indices into `vars`, found by the variable's name (hashed with
    /// [`NameHasher`]): 4 bytes a variable where a map of names held 24.
    var_ids: HashTable<u32>,
    /// Variables in the order of their first binding in the source.
    pub vars: Vec<Var<'a>>,
    /// Every `DEFINE_TASK`, duplicates included, in source order.
    pub tasks: Vec<Task<'a>>,
    /// Task name → index into `tasks` of its first definition (what a CALL runs).
    pub task_ids: NameMap<'a, u32>,
    /// The last variable `var` found: the checks read one operand several
    /// times in a row (is it bound, its type, its shape), so most lookups
    /// repeat the one before and are answered without hashing.
    /// (An index, not the name: a `Cell` of a borrow would make the
    /// struct invariant in `'a`.)
    last: Cell<u32>,
    /// The text the plan was parsed from: a bare variable's name is read from it.
    pub src: &'a str,
}

pub(crate) struct Var<'a> {
    pub name: &'a str,
    /// The first binding in source order, then the others: most variables
    /// are bound once, and so need no vector (boxed, so `Var` is 48 bytes).
    pub first: Binding<'a>,
    #[allow(clippy::box_collection)] // 8 bytes where a `Vec` is 24, in every variable
    more: Option<Box<Vec<Binding<'a>>>>,
}

impl<'a> Var<'a> {
    /// Binding `i` in source order.
    pub(crate) fn binding(&self, i: usize) -> Option<&Binding<'a>> {
        if i == 0 { Some(&self.first) } else { self.more.as_ref()?.get(i - 1) }
    }

    /// Every binding, in source order.
    pub(crate) fn bindings(&self) -> impl Iterator<Item = &Binding<'a>> {
        std::iter::once(&self.first).chain(self.more.iter().flat_map(|more| more.iter()))
    }
}

/// One place that binds a variable.
pub(crate) struct Binding<'a> {
    /// The bound name as written (`x` in `VAR x = ...`).
    pub span: Span,
    pub source: BindSource<'a>,
}

pub(crate) enum BindSource<'a> {
    /// READ, PROMPT_AGENT, REQUEST_REVIEW, CATCH AS, ESTIMATE_COST: the
    /// statement fixes the type.
    Fixed(Ty),
    /// `VAR x = expr`: the type of the expression.
    Expr(&'a Expr),
}

pub(crate) struct Task<'a> {
    /// `None` when the name is interpolated (the parser's or a later check's
    /// business; such a task can never be called).
    pub name: Option<&'a str>,
    pub body: &'a Block,
    /// Whether this is the definition a CALL of its name runs.
    pub is_first: bool,
    /// The CALLs in the body (nested blocks included), in source order.
    pub calls: Vec<CallSite<'a>>,
}

pub(crate) struct CallSite<'a> {
    pub name: &'a str,
    /// The whole `CALL "name"` statement.
    pub span: Span,
}

impl<'a> Symbols<'a> {
    pub(crate) fn var(&self, name: &str) -> Option<u32> {
        let last = self.last.get();
        if self.vars.get(last as usize).is_some_and(|var| var.name == name) {
            return Some(last);
        }
        let vars = &self.vars;
        let id = *self.var_ids.find(name_hash(name), |&i| vars[i as usize].name == name)?;
        self.last.set(id);
        Some(id)
    }
}

fn name_hash(name: &str) -> u64 {
    BuildHasherDefault::<NameHasher>::default().hash_one(name)
}

/// `answers`: the plan's answer types, which give a typed PROMPT_AGENT's
/// variable its type.
pub(crate) fn collect<'a>(plan: &'a Plan, src: &'a str, answers: &AnswerTypes) -> Symbols<'a> {
    // There are at most as many variables as bindings (the parser counts
    // them), so neither table grows; an item holds at most one task.
    let capacity = plan.bindings as usize;
    let mut c = Collector {
        syms: Symbols {
            var_ids: HashTable::with_capacity(capacity),
            vars: Vec::with_capacity(capacity),
            tasks: Vec::new(),
            task_ids: NameMap::with_capacity_and_hasher(plan.items.len(), Default::default()),
            last: Cell::new(u32::MAX),
            src,
        },
        task: None,
        answers,
    };
    visit::walk_plan(&mut c, plan);
    c.syms
}

struct Collector<'a, 't> {
    syms: Symbols<'a>,
    answers: &'t AnswerTypes,
    /// The DEFINE_TASK being walked, if any.
    task: Option<usize>,
}

impl<'a> Collector<'a, '_> {
    fn bind(&mut self, name: &'a str, span: Span, source: BindSource<'a>) {
        let binding = Binding { span, source };
        let vars = &mut self.syms.vars;
        let hash = name_hash(name);
        let entry = self.syms.var_ids.entry(
            hash,
            |&i| vars[i as usize].name == name,
            |&i| name_hash(vars[i as usize].name),
        );
        match entry {
            hash_table::Entry::Occupied(id) => {
                vars[*id.get() as usize].more.get_or_insert_default().push(binding)
            }
            hash_table::Entry::Vacant(slot) => {
                slot.insert(vars.len() as u32);
                vars.push(Var { name, first: binding, more: None });
            }
        }
    }
}

/// Only bindings, CALLs and DEFINE_TASKs matter here: what statements read
/// is not walked.
impl<'a> Visitor<'a> for Collector<'a, '_> {
    fn src(&self) -> &'a str {
        self.syms.src
    }

    fn visit_item(&mut self, item: &'a Item) {
        let Item::DefineTask { name, body, .. } = item else { return visit::walk_item(self, item) };
        let index = self.syms.tasks.len() as u32;
        let literal = name.as_literal();
        let is_first = match literal {
            Some(n) => *self.syms.task_ids.entry(n).or_insert(index) == index,
            None => false,
        };
        self.syms.tasks.push(Task { name: literal, body, is_first, calls: Vec::new() });
        self.task = Some(index as usize);
        self.visit_block(body);
        self.task = None;
    }

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let StmtKind::Call { task } = &stmt.kind {
            if let (Some(t), Some(name)) = (self.task, task.as_literal()) {
                self.syms.tasks[t].calls.push(CallSite { name, span: stmt.span });
            }
            return;
        }
        visit::walk_stmt(self, stmt);
    }

    fn visit_bind(&mut self, ident: &'a Ident, binder: Binder<'a>) {
        let source = match binder {
            Binder::Var(value) => BindSource::Expr(value),
            Binder::Read => BindSource::Fixed(Ty::Str),
            // `INTO x AS T`: T's type; an untyped answer is text.
            Binder::PromptAgent => BindSource::Fixed(
                self.answers
                    .prompt(ident.span.start)
                    .map_or(Ty::Str, |(shape, _)| shape_ty(&self.answers.shapes, shape)),
            ),
            Binder::Catch => BindSource::Fixed(Ty::Record(Rec::Error)),
            Binder::RequestReview => BindSource::Fixed(Ty::Record(Rec::Review)),
            Binder::EstimateCost => BindSource::Fixed(Ty::Record(Rec::Estimate)),
        };
        self.bind(&ident.name, ident.span, source);
    }

    fn visit_cond(&mut self, _cond: &'a Cond) {}

    fn visit_expr(&mut self, _expr: &'a Expr) {}

    fn visit_strlit(&mut self, _lit: &'a StrLit) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::answer_types;

    /// Sized once from the parser's count of binding statements: the
    /// table never grows (a grown one is copied while the old is alive),
    /// and a name bound many times is one variable with its bindings in
    /// source order.
    #[test]
    fn the_table_is_sized_once_and_keeps_bindings_in_order() {
        let src = "TASK \"t\"\nSTEP \"s\" {\n    VAR a = 1\n    VAR b = \"x\"\n    VAR a = 2\n    \
                   READ \"f\" AS c\n    VAR a = 3\n}\n";
        let (plan, diags) = crate::parser::parse(src);
        assert!(diags.is_empty(), "{diags:?}");
        let syms = collect(&plan, src, &answer_types(&plan));
        assert_eq!(plan.bindings, 5);
        assert_eq!(syms.vars.capacity(), 5);
        let names: Vec<&str> = syms.vars.iter().map(|v| v.name).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let a = syms.var("a").map(|i| &syms.vars[i as usize]);
        let starts: Vec<usize> =
            a.into_iter().flat_map(|v| v.bindings()).map(|b| b.span.start as usize).collect();
        let lines: Vec<&str> = starts.iter().map(|&s| &src[s..s + 1]).collect();
        assert_eq!(lines, ["a", "a", "a"]);
        assert!(starts.is_sorted() && starts.len() == 3);
        assert_eq!(a.and_then(|v| v.binding(2)).map(|b| b.span.start as usize), starts.get(2).copied());
        assert!(a.and_then(|v| v.binding(3)).is_none());
        assert_eq!(syms.var("b"), Some(1));
        assert_eq!(syms.var("c"), Some(2));
        assert_eq!(syms.var("d"), None);
        assert_eq!(std::mem::size_of::<Var<'_>>(), 48);
    }
}
