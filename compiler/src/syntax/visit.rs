//! One walk over the syntax tree, shared by the checks, the linter and the
//! language server: a [`Visitor`] has a method per kind of node, each of
//! which by default walks the node's children (the `walk_*` functions),
//! in the style of `syn::visit`. A pass overrides what it looks at and
//! calls the `walk_*` function to go on below it, or not to skip the
//! children. What a statement holds is known here alone.
//!
//! Children come in source order, but a binding after what the statement
//! reads first: `VAR x = x + 1` reads `x`, then binds it.
//!
//! Besides: every statement in a flat list ([`statements`]), the blocks a
//! statement holds ([`blocks_of`]), and every path read by a node's own
//! parts ([`reads`]).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::syntax::ast::{Block, ChooseOption, Cond, CondKind, Content, Else, Expr, ExprKind, FileTest};
use crate::syntax::ast::{FieldDecl, Ident, IfStmt, Item, PathView, Plan, Stmt, StmtKind, StrLit, StrPart};
use crate::syntax::ast::{PromptInto, TypeDef, TypeExpr, TypeKind};

/// What binds a variable (book: reference/expressions.md), with what a binding's type needs.
#[derive(Clone, Copy)]
pub(crate) enum Binder<'a> {
    /// `READ … AS x`: the file's text.
    Read,
    /// `VAR x = value`.
    Var(&'a Expr),
    /// `TRY … CATCH AS e`: the error caught.
    Catch,
    /// `PROMPT_AGENT … INTO x [AS T]`: the answer (its type in the
    /// statement's [`PromptInto`]).
    PromptAgent,
    /// `REQUEST_REVIEW … INTO x`: the review.
    RequestReview,
    /// `ESTIMATE_COST INTO x`: the estimate.
    EstimateCost,
}

impl Binder<'_> {
    /// The statement that binds, as the editor names it.
    pub(crate) fn statement(self) -> &'static str {
        match self {
            Binder::Read => "READ … AS",
            Binder::Var(_) => "VAR",
            Binder::Catch => "CATCH AS",
            Binder::PromptAgent => "PROMPT_AGENT … INTO",
            Binder::RequestReview => "REQUEST_REVIEW … INTO",
            Binder::EstimateCost => "ESTIMATE_COST INTO",
        }
    }
}

/// A pass over the tree; `'a` is the tree's lifetime, so a pass may keep
/// what it visits.
pub(crate) trait Visitor<'a> {
    /// The text the plan was parsed from: a bare variable's name is read
    /// from it ([`Expr::path`]).
    fn src(&self) -> &'a str;

    fn visit_item(&mut self, item: &'a Item) {
        walk_item(self, item);
    }

    fn visit_block(&mut self, block: &'a Block) {
        walk_block(self, block);
    }

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        walk_stmt(self, stmt);
    }

    /// An IF, and each ELSE IF down its chain.
    fn visit_if(&mut self, if_stmt: &'a IfStmt) {
        walk_if(self, if_stmt);
    }

    /// One option of a CHOOSE.
    fn visit_option(&mut self, option: &'a ChooseOption) {
        walk_option(self, option);
    }

    fn visit_cond(&mut self, cond: &'a Cond) {
        walk_cond(self, cond);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        walk_expr(self, expr);
    }

    fn visit_strlit(&mut self, lit: &'a StrLit) {
        walk_strlit(self, lit);
    }

    /// `TYPE Name = type` (TissLang 1.1).
    fn visit_typedef(&mut self, def: &'a TypeDef) {
        walk_typedef(self, def);
    }

    /// A type as written: a TYPE's, one after `INTO x AS`, and (from
    /// [`walk_type`]) each type inside another.
    fn visit_type(&mut self, ty: &'a TypeExpr) {
        walk_type(self, ty);
    }

    /// One field of a record type.
    fn visit_field(&mut self, field: &'a FieldDecl) {
        walk_field(self, field);
    }

    /// A type's name where a type is used (`AS Review`, `LIST OF Review`),
    /// not where TYPE gives it.
    fn visit_type_name(&mut self, _ident: &'a Ident) {}

    /// PROMPT_AGENT's `INTO x [AS type]`: by default the type, then the binding.
    fn visit_prompt_into(&mut self, into: &'a PromptInto) {
        walk_prompt_into(self, into);
    }

    /// A path read: an expression, or `${…}` in a string.
    fn visit_path(&mut self, _path: PathView<'a>) {}

    /// A variable PROMPT_AGENT hands the agent (`WITH x`): read by name,
    /// not through a path.
    fn visit_with(&mut self, _ident: &'a Ident) {}

    /// A variable bound, and what binds it.
    fn visit_bind(&mut self, _ident: &'a Ident, _binder: Binder<'a>) {}
}

pub(crate) fn walk_plan<'a, V: Visitor<'a> + ?Sized>(v: &mut V, plan: &'a Plan) {
    for item in &plan.items {
        v.visit_item(item);
    }
}

pub(crate) fn walk_item<'a, V: Visitor<'a> + ?Sized>(v: &mut V, item: &'a Item) {
    match item {
        Item::Header { .. } | Item::Version { .. } => {}
        Item::Task { name, .. } => v.visit_strlit(name),
        Item::Setup { description, body, .. } => {
            if let Some(d) = description {
                v.visit_strlit(d);
            }
            v.visit_block(body);
        }
        Item::Step(step) => {
            v.visit_strlit(&step.name);
            v.visit_block(&step.body);
        }
        Item::DefineTask { name, body, .. } => {
            v.visit_strlit(name);
            v.visit_block(body);
        }
        Item::SetBudget(budget) => v.visit_expr(&budget.value),
        Item::TypeDef(def) => v.visit_typedef(def),
    }
}

pub(crate) fn walk_typedef<'a, V: Visitor<'a> + ?Sized>(v: &mut V, def: &'a TypeDef) {
    v.visit_type(&def.ty);
}

pub(crate) fn walk_type<'a, V: Visitor<'a> + ?Sized>(v: &mut V, ty: &'a TypeExpr) {
    match &ty.kind {
        TypeKind::String | TypeKind::Int | TypeKind::Bool | TypeKind::Enum { .. } => {}
        TypeKind::List { element } => v.visit_type(element),
        TypeKind::Record { fields } => {
            for field in fields {
                v.visit_field(field);
            }
        }
        TypeKind::Named { name } => v.visit_type_name(name),
    }
}

pub(crate) fn walk_field<'a, V: Visitor<'a> + ?Sized>(v: &mut V, field: &'a FieldDecl) {
    v.visit_type(&field.ty);
}

pub(crate) fn walk_prompt_into<'a, V: Visitor<'a> + ?Sized>(v: &mut V, into: &'a PromptInto) {
    if let Some(ty) = &into.ty {
        v.visit_type(ty);
    }
    v.visit_bind(&into.var, Binder::PromptAgent);
}

pub(crate) fn walk_block<'a, V: Visitor<'a> + ?Sized>(v: &mut V, block: &'a Block) {
    for stmt in &block.commands {
        v.visit_stmt(stmt);
    }
}

pub(crate) fn walk_stmt<'a, V: Visitor<'a> + ?Sized>(v: &mut V, stmt: &'a Stmt) {
    match &stmt.kind {
        StmtKind::Step { name, body } => {
            v.visit_strlit(name);
            v.visit_block(body);
        }
        StmtKind::Read { path, var } => {
            v.visit_strlit(path);
            v.visit_bind(var, Binder::Read);
        }
        StmtKind::Write { path, content } | StmtKind::Append { path, content } => {
            v.visit_strlit(path);
            if let Content::From { expr } = content {
                v.visit_expr(expr);
            }
        }
        StmtKind::Mkdir { path } | StmtKind::Delete { path, .. } => v.visit_strlit(path),
        StmtKind::Log { message } | StmtKind::Pause { message } => v.visit_strlit(message),
        StmtKind::Run { command, dir, .. } => {
            v.visit_strlit(command);
            if let Some(dir) = dir {
                v.visit_strlit(dir);
            }
        }
        StmtKind::Env { value, .. } => v.visit_expr(value),
        StmtKind::Assert { condition, message } => {
            v.visit_cond(condition);
            if let Some(m) = message {
                v.visit_strlit(m);
            }
        }
        StmtKind::Var { name, value } => {
            v.visit_expr(value);
            v.visit_bind(name, Binder::Var(value));
        }
        StmtKind::If(if_stmt) => v.visit_if(if_stmt),
        StmtKind::Try { body, catch_var, handler } => {
            v.visit_block(body);
            if let Some(e) = catch_var {
                v.visit_bind(e, Binder::Catch);
            }
            v.visit_block(handler);
        }
        StmtKind::Call { task } => v.visit_strlit(task),
        StmtKind::PromptAgent { query, with, into } => {
            v.visit_strlit(query);
            for ident in with {
                v.visit_with(ident);
            }
            if let Some(into) = into {
                v.visit_prompt_into(into);
            }
        }
        StmtKind::RequestReview { message, into } => {
            v.visit_strlit(message);
            if let Some(x) = into {
                v.visit_bind(x, Binder::RequestReview);
            }
        }
        StmtKind::Choose { prompt, options } => {
            if let Some(p) = prompt {
                v.visit_strlit(p);
            }
            for option in options {
                v.visit_option(option);
            }
        }
        // INTO is written first, and a body binding the same name comes after it.
        StmtKind::EstimateCost { into, body } => {
            if let Some(x) = into {
                v.visit_bind(x, Binder::EstimateCost);
            }
            v.visit_block(body);
        }
        StmtKind::SetBudget(budget) => v.visit_expr(&budget.value),
    }
}

pub(crate) fn walk_if<'a, V: Visitor<'a> + ?Sized>(v: &mut V, if_stmt: &'a IfStmt) {
    v.visit_cond(&if_stmt.condition);
    v.visit_block(&if_stmt.then_block);
    match &if_stmt.else_branch {
        Some(Else::If { stmt, .. }) => v.visit_if(stmt),
        Some(Else::Block { block }) => v.visit_block(block),
        None => {}
    }
}

pub(crate) fn walk_option<'a, V: Visitor<'a> + ?Sized>(v: &mut V, option: &'a ChooseOption) {
    v.visit_strlit(&option.label);
    v.visit_block(&option.body);
}

pub(crate) fn walk_cond<'a, V: Visitor<'a> + ?Sized>(v: &mut V, cond: &'a Cond) {
    match &cond.kind {
        CondKind::Or { operands, .. } | CondKind::And { operands, .. } => {
            for c in operands {
                v.visit_cond(c);
            }
        }
        CondKind::Not { operand, .. } => v.visit_cond(operand),
        CondKind::File { file, .. } => {
            v.visit_strlit(&file.path);
            if let FileTest::Contains { needle } = &file.test {
                v.visit_expr(needle);
            }
        }
        CondKind::IsEmpty { operand, .. }
        | CondKind::Exists { operand, .. }
        | CondKind::Expr { expr: operand, .. } => v.visit_expr(operand),
        CondKind::Test(test) => {
            v.visit_expr(test.lhs());
            v.visit_expr(test.rhs());
        }
    }
}

pub(crate) fn walk_expr<'a, V: Visitor<'a> + ?Sized>(v: &mut V, expr: &'a Expr) {
    match expr.kind() {
        ExprKind::Str { value } => v.visit_strlit(value),
        // No interpolation: nothing inside to visit.
        ExprKind::Text { .. } => {}
        ExprKind::Path { .. } | ExprKind::Var { .. } | ExprKind::LastRun { .. } => {
            if let Some(path) = expr.path(v.src()) {
                v.visit_path(path)
            }
        }
        ExprKind::Int { .. } | ExprKind::Duration { .. } | ExprKind::Bool { .. } => {}
    }
}

pub(crate) fn walk_strlit<'a, V: Visitor<'a> + ?Sized>(v: &mut V, lit: &'a StrLit) {
    for part in &lit.parts {
        if let StrPart::Interp { path } = part {
            v.visit_path(path.view());
        }
    }
}

/// Hands `f` every path a node reads in its own parts: for a statement or
/// an item, not in the blocks it holds (for an IF, the conditions of its
/// whole ELSE IF chain). `reads(f).visit_stmt(stmt)`.
pub(crate) struct Reads<'a, F>(&'a str, F);

/// A [`Reads`] calling `f`, on a tree parsed from `src`.
pub(crate) fn reads<'a, F: FnMut(PathView<'a>)>(src: &'a str, f: F) -> Reads<'a, F> {
    Reads(src, f)
}

impl<'a, F: FnMut(PathView<'a>)> Visitor<'a> for Reads<'a, F> {
    fn src(&self) -> &'a str {
        self.0
    }

    fn visit_block(&mut self, _block: &'a Block) {}

    fn visit_path(&mut self, path: PathView<'a>) {
        (self.1)(path);
    }
}

/// Calls `f` on every statement of the plan, nested ones included, in
/// source order. `in_estimate` says the statement is inside an
/// `ESTIMATE_COST` block, which is costed but never run.
pub(crate) fn statements<'a>(plan: &'a Plan, f: &mut impl FnMut(&'a Stmt, bool)) {
    for item in &plan.items {
        if let Some(body) = item_body(item) {
            block_statements(body, false, f);
        }
    }
}

fn block_statements<'a>(block: &'a Block, in_estimate: bool, f: &mut impl FnMut(&'a Stmt, bool)) {
    for stmt in &block.commands {
        f(stmt, in_estimate);
        for (inner, estimate) in blocks_of(stmt) {
            block_statements(inner, in_estimate || estimate, f);
        }
    }
}

/// Every DEFINE_TASK's body by name: the first definition, which is what
/// a CALL runs.
pub(crate) fn task_bodies(plan: &Plan) -> FxHashMap<&str, &Block> {
    let mut tasks = FxHashMap::default();
    for item in &plan.items {
        if let Item::DefineTask { name, body, .. } = item
            && let Some(name) = name.as_literal()
        {
            tasks.entry(name).or_insert(body);
        }
    }
    tasks
}

/// The block of a SETUP, STEP or DEFINE_TASK item.
pub(crate) fn item_body(item: &Item) -> Option<&Block> {
    match item {
        Item::Setup { body, .. } | Item::DefineTask { body, .. } => Some(body),
        Item::Step(step) => Some(&step.body),
        Item::Header { .. }
        | Item::Version { .. }
        | Item::Task { .. }
        | Item::SetBudget(_)
        | Item::TypeDef(_) => None,
    }
}

/// The blocks a statement holds (an IF's arms down its ELSE IF chain), each
/// with whether it is an `ESTIMATE_COST` block. Inline up to two: no
/// allocation but for a longer IF chain or a CHOOSE.
pub(crate) fn blocks_of(stmt: &Stmt) -> SmallVec<[(&Block, bool); 2]> {
    match &stmt.kind {
        StmtKind::Step { body, .. } => smallvec::smallvec![(body, false)],
        StmtKind::Try { body, handler, .. } => smallvec::smallvec![(body, false), (&**handler, false)],
        StmtKind::EstimateCost { body, .. } => smallvec::smallvec![(body, true)],
        StmtKind::Choose { options, .. } => options.iter().map(|o| (&o.body, false)).collect(),
        StmtKind::If(first) => {
            let mut out = SmallVec::new();
            let mut at: &IfStmt = first;
            loop {
                out.push((&at.then_block, false));
                match &at.else_branch {
                    Some(Else::If { stmt, .. }) => at = stmt,
                    Some(Else::Block { block }) => {
                        out.push((block, false));
                        break;
                    }
                    None => break,
                }
            }
            out
        }
        _ => SmallVec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a walk met, in order.
    struct Log<'a>(&'a str, Vec<String>);

    impl<'a> Visitor<'a> for Log<'a> {
        fn src(&self) -> &'a str {
            self.0
        }

        fn visit_typedef(&mut self, def: &'a TypeDef) {
            self.1.push(format!("typedef {}", def.name.name));
            walk_typedef(self, def);
        }

        fn visit_type(&mut self, ty: &'a TypeExpr) {
            let kind = serde_json::to_value(ty).unwrap()["kind"].as_str().unwrap().to_string();
            self.1.push(format!("type {kind}"));
            walk_type(self, ty);
        }

        fn visit_field(&mut self, field: &'a FieldDecl) {
            self.1.push(format!("field {}", field.name.name));
            walk_field(self, field);
        }

        fn visit_type_name(&mut self, ident: &'a Ident) {
            self.1.push(format!("type name {}", ident.name));
        }

        fn visit_path(&mut self, path: PathView<'a>) {
            if let crate::syntax::ast::RootView::Var { ident } = &path.root {
                self.1.push(format!("path {}", ident.name));
            }
        }

        fn visit_bind(&mut self, ident: &'a Ident, binder: Binder<'a>) {
            self.1.push(format!("bind {} ({})", ident.name, binder.statement()));
        }
    }

    #[test]
    fn types_prompt_intos_and_exists_are_walked() {
        let src = "TASK \"t\"\nTYPE R = { a: LIST OF Other, b?: { c: \"x\" | \"y\" } }\n\
                   STEP \"s\" {\n    PROMPT_AGENT \"q\" INTO r AS LIST OF R\n    IF r.b EXISTS { }\n}\n";
        let (plan, diagnostics) = crate::parser::parse(src);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let mut log = Log(src, Vec::new());
        walk_plan(&mut log, &plan);
        assert_eq!(
            log.1,
            [
                "typedef R",
                "type record",
                "field a",
                "type list",
                "type named",
                "type name Other",
                "field b",
                "type record",
                "field c",
                "type enum",
                // The answer's type, then the name it binds.
                "type list",
                "type named",
                "type name R",
                "bind r (PROMPT_AGENT … INTO)",
                "path r",
            ]
        );
    }
}
