//! The plan's answer types: every `TYPE Name = …` and every type written
//! after `INTO x AS`, resolved to one table of shapes (`tisslang::answer`),
//! each distinct shape once, children before their parents — the order the
//! module's table needs. Errors: a type name no TYPE defines (E0218), a
//! TYPE defined twice (E0219), a TYPE that contains itself (E0220), a field
//! or enum literal given twice (E0221).

use std::collections::HashMap as StdMap;

/// The table's maps: foldhash, seeded at random as SipHash is but a few
/// instructions a key (a prompt looks its answer up in several passes).
/// Nothing iterates them, so order never leaks.
type HashMap<K, V> = StdMap<K, V, foldhash::fast::RandomState>;

use tiss_support::suggest;
use tisslang::answer::{Shape, ShapeField, Shapes};

use crate::check::Ctx;
use crate::check::symbols::NameMap;
use crate::diagnostics::{Diagnostic, codes};
use crate::syntax::ast::{Cond, Expr, Item, Plan, Stmt, StmtKind, StrLit, TypeDef, TypeExpr, TypeKind};
use crate::syntax::visit::{self, Visitor};

/// How deep a type may nest (`LIST OF LIST OF …`): far beyond any real
/// answer, and it keeps the resolver's recursion bounded.
const MAX_DEPTH: usize = 32;

/// How many parts a prompt's type may spell out to (its schema's size).
pub(crate) const MAX_EXPANDED: u64 = 10_000;

/// The parts a shape spells out to, each child counted at each use;
/// saturating, children first (they lie below their parents).
pub(crate) fn expanded_size(shapes: &Shapes, shape: u32) -> u64 {
    let mut sizes: Vec<u64> = Vec::with_capacity(shape as usize + 1);
    for s in &shapes.shapes[..=shape as usize] {
        let size = match s {
            Shape::Str | Shape::Int | Shape::Bool => 1,
            Shape::Enum(names) => 1 + names.len() as u64,
            Shape::List(e) => 1u64.saturating_add(sizes[*e as usize]),
            Shape::Record(fields) => {
                fields.iter().fold(1u64, |n, f| n.saturating_add(1 + sizes[f.shape as usize]))
            }
        };
        sizes.push(size);
    }
    sizes[shape as usize]
}

#[derive(Debug, Default)]
pub(crate) struct AnswerTypes {
    pub shapes: Shapes,
    /// TYPE name → its shape (absent if it could not be resolved).
    pub named: HashMap<String, u32>,
    /// `INTO x AS T`, by the start of `x`'s span, ascending: that start,
    /// T's shape, and the name its schema is sent with, an index into
    /// `names`. 12 bytes a prompt: a map with a name each held 40 and more.
    prompts: Vec<(u32, u32, u32)>,
    /// The schema names (each TYPE's name, or `answer`), each once.
    names: Vec<Box<str>>,
}

impl AnswerTypes {
    /// The shape and schema name of the prompt whose INTO name starts at `at`.
    pub(crate) fn prompt(&self, at: u32) -> Option<(u32, &str)> {
        let i = self.prompts.binary_search_by_key(&at, |p| p.0).ok()?;
        let (_, shape, name) = self.prompts[i];
        Some((shape, &self.names[name as usize]))
    }
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Resolving,
    Done(Option<u32>),
}

struct Builder<'p, 'c, 's> {
    cx: &'c mut Ctx<'s>,
    defs: NameMap<'p, &'p TypeDef>,
    state: HashMap<&'p str, State>,
    index: HashMap<Shape<Box<str>>, u32>,
    /// Schema name → its index in `out.names`.
    name_ids: HashMap<&'p str, u32>,
    out: AnswerTypes,
}

pub(crate) fn collect(plan: &Plan, cx: &mut Ctx<'_>) -> AnswerTypes {
    let mut b = Builder {
        cx,
        defs: NameMap::default(),
        state: HashMap::default(),
        index: HashMap::default(),
        name_ids: HashMap::default(),
        out: AnswerTypes::default(),
    };
    for item in &plan.items {
        if let Item::TypeDef(def) = item {
            if let Some(first) = b.defs.get(&*def.name.name) {
                let line = b.cx.line(first.name.span);
                b.cx.emit(
                    Diagnostic::error(
                        codes::DUPLICATE_TYPE,
                        def.name.span,
                        format!("`TYPE {}` is defined twice (first on line {line})", def.name.name),
                    )
                    .with_label(first.name.span, "first defined here")
                    .with_note("a type has one definition; rename one of them"),
                );
                continue;
            }
            b.defs.insert(&def.name.name, def);
        }
    }
    for item in &plan.items {
        if let Item::TypeDef(def) = item {
            b.named(&def.name.name);
        }
    }
    let mut prompts = Prompts { b: &mut b };
    visit::walk_plan(&mut prompts, plan);
    // Found in source order, so already sorted but for a tree built by hand.
    if !b.out.prompts.is_sorted_by_key(|p| p.0) {
        b.out.prompts.sort_by_key(|p| p.0);
    }
    // The module keeps each distinct shape once, and holds at most so many.
    let shapes = b.out.shapes.shapes.len();
    if shapes > MAX_SHAPES
        && let Some(def) = plan.items.iter().find_map(|i| match i {
            Item::TypeDef(def) => Some(def),
            _ => None,
        })
    {
        b.cx.emit(Diagnostic::error(
            codes::RECURSIVE_TYPE,
            def.span,
            format!(
                "the plan's types make {shapes} distinct shapes, more than the {MAX_SHAPES} a module holds"
            ),
        ));
    }
    b.out
}

/// The most distinct shapes a module holds (the verifier's bound).
const MAX_SHAPES: usize = 65_000;

/// Every `INTO x AS T`, wherever it is.
struct Prompts<'b, 'p, 'c, 's> {
    b: &'b mut Builder<'p, 'c, 's>,
}

impl<'p> Visitor<'p> for Prompts<'_, 'p, '_, '_> {
    /// Expressions are not walked ([`Visitor::visit_expr`]): no name is read.
    fn src(&self) -> &'p str {
        ""
    }

    fn visit_stmt(&mut self, stmt: &'p Stmt) {
        if let StmtKind::PromptAgent { into: Some(into), .. } = &stmt.kind
            && let Some(ty) = &into.ty
        {
            let name = match &ty.kind {
                TypeKind::Named { name } => &*name.name,
                _ => "answer",
            };
            if let Some(shape) = self.b.resolve(ty, 0) {
                // Its schema spells every use of a named type out in full:
                // a type reused at each level grows without a bound.
                let parts = expanded_size(&self.b.out.shapes, shape);
                if parts > MAX_EXPANDED {
                    self.b.cx.emit(
                        Diagnostic::error(
                            codes::RECURSIVE_TYPE,
                            ty.span,
                            format!(
                                "this type spells out to more than {MAX_EXPANDED} parts (fields, literals and \
                                 elements, each use of a named type counted again): its JSON Schema would be too large to send"
                            ),
                        )
                        .with_note("use fewer nested uses of the same type, or ask for the parts in separate prompts"),
                    );
                } else {
                    let name = self.b.name_index(name);
                    self.b.out.prompts.push((into.var.span.start, shape, name));
                }
            }
        }
        visit::walk_stmt(self, stmt);
    }

    // A PROMPT_AGENT is a statement: conditions, expressions and strings,
    // most of a plan's tree, hold none (a plan of conditions spent 3% of
    // its compile walking them here).
    fn visit_cond(&mut self, _cond: &'p Cond) {}

    fn visit_expr(&mut self, _expr: &'p Expr) {}

    fn visit_strlit(&mut self, _lit: &'p StrLit) {}
}

impl<'p> Builder<'p, '_, '_> {
    /// The index of a schema name in `out.names`, added if new.
    fn name_index(&mut self, name: &'p str) -> u32 {
        let names = &mut self.out.names;
        *self.name_ids.entry(name).or_insert_with(|| {
            names.push(name.into());
            names.len() as u32 - 1
        })
    }

    /// The shape of `TYPE name`, resolving it on first use.
    fn named(&mut self, name: &'p str) -> Option<u32> {
        match self.state.get(name) {
            Some(State::Done(shape)) => return *shape,
            Some(State::Resolving) => return None,
            None => {}
        }
        let def = *self.defs.get(name)?;
        self.state.insert(name, State::Resolving);
        let shape = self.resolve(&def.ty, 0);
        self.state.insert(name, State::Done(shape));
        if let Some(shape) = shape {
            self.out.named.insert(name.to_string(), shape);
        }
        shape
    }

    fn resolve(&mut self, ty: &'p TypeExpr, depth: usize) -> Option<u32> {
        if depth > MAX_DEPTH {
            self.cx.emit(Diagnostic::error(
                codes::RECURSIVE_TYPE,
                ty.span,
                format!("this type nests more than {MAX_DEPTH} levels deep"),
            ));
            return None;
        }
        let shape = match &ty.kind {
            TypeKind::String => Shape::Str,
            TypeKind::Int => Shape::Int,
            TypeKind::Bool => Shape::Bool,
            TypeKind::Enum { literals } => {
                let mut names: Vec<Box<str>> = Vec::with_capacity(literals.len());
                for lit in literals {
                    let text = lit.as_literal().unwrap_or("");
                    if names.iter().any(|n| **n == *text) {
                        self.cx.emit(
                            Diagnostic::error(
                                codes::NAME_TWICE_IN_TYPE,
                                lit.span,
                                format!("the enum lists \"{}\" twice", text.escape_default()),
                            )
                            .with_note("each literal of an enum is listed once"),
                        );
                        continue;
                    }
                    names.push(text.into());
                }
                Shape::Enum(names)
            }
            TypeKind::List { element } => Shape::List(self.resolve(element, depth + 1)?),
            TypeKind::Record { fields } => {
                let mut out: Vec<ShapeField<Box<str>>> = Vec::with_capacity(fields.len());
                let mut ok = true;
                for field in fields {
                    if out.iter().any(|f| *f.name == *field.name.name) {
                        self.cx.emit(
                            Diagnostic::error(
                                codes::NAME_TWICE_IN_TYPE,
                                field.name.span,
                                format!("the record has two fields named `{}`", field.name.name),
                            )
                            .with_note("field names in a record are unique"),
                        );
                        ok = false;
                        continue;
                    }
                    match self.resolve(&field.ty, depth + 1) {
                        Some(shape) => out.push(ShapeField {
                            name: (*field.name.name).into(),
                            optional: field.optional,
                            shape,
                        }),
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                Shape::Record(out)
            }
            TypeKind::Named { name } => return self.reference(name, ty),
        };
        Some(self.intern(shape))
    }

    /// A type named where a type is expected.
    fn reference(&mut self, name: &'p crate::syntax::ast::Ident, ty: &TypeExpr) -> Option<u32> {
        if !self.defs.contains_key(&*name.name) {
            let mut d = Diagnostic::error(
                codes::UNKNOWN_TYPE,
                ty.span,
                format!("no `TYPE {}` is defined", name.name),
            );
            let names: Vec<&str> = self.defs.keys().copied().collect();
            if let Some(best) = suggest::closest(&name.name, names.iter().copied()) {
                d = d.with_suggestion("a type with a similar name exists", name.span, best);
            } else {
                d = d.with_note(format!(
                    "define it at the top level, after TASK: `TYPE {} = {{ field: STRING }}`; the built-in types are STRING, INT and BOOL",
                    name.name
                ));
            }
            self.cx.emit(d);
            return None;
        }
        if self.state.get(&*name.name) == Some(&State::Resolving) {
            self.cx.emit(
                Diagnostic::error(
                    codes::RECURSIVE_TYPE,
                    name.span,
                    format!("`{}` contains itself: an answer of this type could never end", name.name),
                )
                .with_note("a type may use other types, but not itself, directly or through others"),
            );
            return None;
        }
        let def = self.defs[&*name.name];
        self.named(&def.name.name)
    }

    /// The index of `shape`, added after its children if it is new.
    fn intern(&mut self, shape: Shape<Box<str>>) -> u32 {
        if let Some(&i) = self.index.get(&shape) {
            return i;
        }
        let i = self.out.shapes.shapes.len() as u32;
        self.index.insert(shape.clone(), i);
        self.out.shapes.shapes.push(shape);
        i
    }
}

#[cfg(test)]
mod tests {
    use crate::check::answer_types;

    /// A typed prompt's answer is found by where its INTO name starts:
    /// the shape, and the TYPE's name (or `answer` for a type written in
    /// place), each name held once however many prompts use it.
    #[test]
    fn prompts_are_found_by_the_start_of_their_name() {
        let src = "#TISS_VERSION >= 1.1\nTASK \"t\"\nTYPE Review = { ok: BOOL }\nSTEP \"s\" {\n    \
                   PROMPT_AGENT \"a\" INTO one AS Review\n    PROMPT_AGENT \"b\" INTO two\n    \
                   PROMPT_AGENT \"c\" INTO three AS { n: INT }\n    PROMPT_AGENT \"d\" INTO four AS Review\n}\n";
        let frontend = crate::frontend("t.tiss", src.as_bytes());
        assert!(!frontend.has_errors(), "{:#?}", frontend.diagnostics);
        let answers = answer_types(&frontend.plan);
        let at = |name: &str| src.find(&format!("INTO {name}")).map(|i| i as u32 + 5).unwrap_or(u32::MAX);
        let review = answers.named["Review"];
        assert_eq!(answers.prompt(at("one")), Some((review, "Review")));
        assert_eq!(answers.prompt(at("two")), None);
        let (inline, name) = answers.prompt(at("three")).unwrap_or_default();
        assert_eq!(name, "answer");
        assert_ne!(inline, review);
        assert_eq!(answers.prompt(at("four")), Some((review, "Review")));
        assert_eq!(answers.prompt(at("four") + 1), None);
        assert_eq!(answers.names.len(), 2);
    }
}
