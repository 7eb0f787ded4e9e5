//! The syntax tree of a plan. Every node carries a [`Span`].
//!
//! The tree serializes to the JSON of `tissc parse --emit ast-json`: a list of
//! command objects, each with `type`, its arguments and `span`.

use serde::Serialize;
use smallvec::SmallVec;
use tisslang::cost::Dim;
use tisslang::version::VersionReq;

pub use crate::syntax::expr::{Expr, ExprKind};
use crate::syntax::parts::Parts;
pub use crate::syntax::path_view::{Fields, IdentView, PathView, RootView};
use crate::syntax::span::Span;
pub use crate::syntax::text::Text;

/// A whole plan: its top-level items in source order (pragmas and `TASK` included).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub items: Vec<Item>,
    /// How many statements bind a name (VAR, READ, and the INTO and CATCH
    /// forms): at least the number of variables, so the checks size their
    /// symbol table once instead of growing it (a grown table is copied
    /// while the old one is still alive: 0.9 MiB more at the peak of a plan
    /// with 23,000 variables).
    #[serde(skip)]
    pub bindings: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Item {
    /// `#TISS! Key=Value ...`
    Header {
        entries: Vec<HeaderEntry>,
        span: Span,
    },
    /// `#TISS_VERSION <op> <version>`
    Version {
        requirement: VersionReq,
        span: Span,
    },
    Task {
        name: StrLit,
        span: Span,
    },
    Setup {
        description: Option<StrLit>,
        body: Block,
        span: Span,
    },
    Step(Step),
    DefineTask {
        name: StrLit,
        body: Block,
        span: Span,
    },
    SetBudget(Budget),
    /// `TYPE Name = type` (TissLang 1.1; boxed: keeps `Item` at 72 bytes).
    /// In JSON `"type": "TYPE"`, the keyword, as every other item.
    #[serde(rename = "TYPE")]
    TypeDef(Box<TypeDef>),
}

/// `TYPE Name = type`: a named shape for a model's answer (book: reference/types.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeDef {
    pub name: Ident,
    pub ty: TypeExpr,
    pub span: Span,
}

/// A type as written: after `TYPE Name =`, after `INTO x AS`, or inside
/// another type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeExpr {
    #[serde(flatten)]
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TypeKind {
    /// `STRING`
    String,
    /// `INT`
    Int,
    /// `BOOL`
    Bool,
    /// `"low" | "high"`: plain literals (no `${}`), each with its span.
    Enum { literals: Vec<StrLit> },
    /// `LIST OF type`
    List { element: Box<TypeExpr> },
    /// `{ name: type, other?: type }`
    Record { fields: Vec<FieldDecl> },
    /// A name given by TYPE.
    Named { name: Ident },
}

/// One field of a record type: `name: type`, or `name?: type` when the
/// answer may leave it out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldDecl {
    pub name: Ident,
    pub optional: bool,
    pub ty: TypeExpr,
    pub span: Span,
}

/// `INTO x [AS type]` of a PROMPT_AGENT.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptInto {
    pub var: Ident,
    /// `AS T` (TissLang 1.1): the answer is data of this type, not text.
    pub ty: Option<TypeExpr>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeaderEntry {
    pub key: String,
    pub value: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub name: StrLit,
    pub body: Block,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Budget {
    pub dim: Dim,
    pub dim_span: Span,
    pub value: Expr,
    pub span: Span,
}

/// `{ statement* }`: the statements in a boxed slice, 16 bytes where a
/// vector is 24 (a block is in every IF, step and branch).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Block {
    pub commands: Box<[Stmt]>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stmt {
    #[serde(flatten)]
    pub kind: StmtKind,
    pub span: Span,
}

/// A statement. Every block holds its statements by value, so the largest
/// variant sets the size of all: a condition is boxed, and so are the rare
/// name of TRY's CATCH, PROMPT_AGENT's INTO (its name and type), TRY's
/// handler and RUN's TIMEOUT and `IN` directory, and PROMPT_AGENT's WITH
/// is a boxed slice, which keeps a statement at 64 bytes (a test holds it
/// there).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StmtKind {
    Step { name: StrLit, body: Block },
    Read { path: StrLit, var: Ident },
    Write { path: StrLit, content: Content },
    Append { path: StrLit, content: Content },
    Mkdir { path: StrLit },
    Delete { path: StrLit, recursive: bool },
    Log { message: StrLit },
    Run { command: StrLit, dir: Option<Box<StrLit>>, timeout: Option<Box<DurationLit>> },
    Env { name: Ident, value: Expr },
    Assert { condition: Box<Cond>, message: Option<StrLit> },
    Var { name: Ident, value: Expr },
    If(Box<IfStmt>),
    Try { body: Block, catch_var: Option<Box<Ident>>, handler: Box<Block> },
    Call { task: StrLit },
    PromptAgent { query: StrLit, with: Box<[Ident]>, into: Option<Box<PromptInto>> },
    Pause { message: StrLit },
    RequestReview { message: StrLit, into: Option<Ident> },
    Choose { prompt: Option<StrLit>, options: Vec<ChooseOption> },
    EstimateCost { into: Option<Ident>, body: Block },
    SetBudget(Budget),
}

impl StmtKind {
    /// Whether the statement binds a variable (`Plan::bindings` counts them).
    pub fn binds_a_name(&self) -> bool {
        match self {
            StmtKind::Read { .. } | StmtKind::Var { .. } => true,
            StmtKind::Try { catch_var, .. } => catch_var.is_some(),
            StmtKind::PromptAgent { into, .. } => into.is_some(),
            StmtKind::RequestReview { into, .. } => into.is_some(),
            StmtKind::EstimateCost { into, .. } => into.is_some(),
            _ => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IfStmt {
    pub condition: Cond,
    pub then_block: Block,
    pub else_branch: Option<Else>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Else {
    /// `ELSE IF ...`: the nested IF's span covers from `IF` to its end.
    If {
        stmt: Box<IfStmt>,
        span: Span,
    },
    Block {
        block: Block,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChooseOption {
    pub label: StrLit,
    pub body: Block,
    /// Written as `STEP "..." { }` instead of `OPTION "..." { }`.
    pub is_step: bool,
    pub span: Span,
}

/// What WRITE / APPEND put in the file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Content {
    Heredoc(Box<Heredoc>),
    From { expr: Expr },
}

/// `<<TAG ... TAG` (or `<<~TAG`): raw text, already de-indented for `<<~`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Heredoc {
    /// The tag, also the language hint (`PYTHON`).
    pub tag: String,
    pub squiggly: bool,
    /// Read through [`Heredoc::body`]: empty when the body is left in the
    /// source (`in_source`).
    pub(crate) body: String,
    /// Where the body is in the source, when it was left there: written as
    /// it is taken (no `~`, no CR), by a parse for lowering only
    /// ([`crate::parser::parse_for_lowering`]), which then holds no second
    /// copy of it (a plan of heredocs is mostly their text).
    #[serde(skip)]
    pub(crate) in_source: Option<Span>,
    pub span: Span,
}

impl Heredoc {
    /// The body's text; `source` is the plan's text, where the body may lie.
    pub fn body<'a>(&'a self, source: &'a str) -> &'a str {
        match self.in_source {
            Some(span) => source.get(span.range()).unwrap_or(""),
            None => &self.body,
        }
    }
}

/// A string literal, split into literal text and `${...}` parts. Most
/// literals are one part, kept inline; more are on the heap.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StrLit {
    pub parts: StrParts,
    pub span: Span,
}

impl StrLit {
    /// The literal of `text` alone, written at `span` (no parts for `""`,
    /// as the lexer makes it).
    pub fn text(text: Text, span: Span) -> StrLit {
        let parts = if text.is_empty() { StrParts::default() } else { StrParts::one(StrPart::Text { text }) };
        StrLit { parts, span }
    }

    /// The text if the literal has no interpolation.
    pub fn as_literal(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [] => Some(""),
            [StrPart::Text { text }] => Some(text.as_str()),
            _ => None,
        }
    }
}

/// A string literal's parts in order, 16 bytes ([`Parts`]).
pub type StrParts = Parts<StrPart>;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StrPart {
    Text {
        text: Text,
    },
    /// Boxed: interpolation is the rarer part, and text parts stay small.
    Interp {
        path: Box<Path>,
    },
}

/// A name written by the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ident {
    pub name: Text,
    pub span: Span,
}

/// `12s`, stored in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DurationLit {
    pub millis: u64,
    pub span: Span,
}

/// `x.FIELD`, `LAST_RUN.STDOUT`, `COST`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Path {
    pub root: PathRoot,
    /// Usually none or one (`LAST_RUN.STDOUT`), kept inline.
    pub fields: SmallVec<[Ident; 1]>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PathRoot {
    Var { ident: Ident },
    LastRun { span: Span },
    Cost { span: Span },
}

impl PathRoot {
    pub fn span(&self) -> Span {
        match self {
            PathRoot::Var { ident } => ident.span,
            PathRoot::LastRun { span } | PathRoot::Cost { span } => *span,
        }
    }
}

/// A condition, 32 bytes: its span is kept in its kind, and a comparison's
/// is its operands' (`lhs` to `rhs`) widened by what parentheses around it
/// add, where a separate span made every condition 48.
#[derive(Debug, Clone, PartialEq)]
pub struct Cond {
    pub kind: CondKind,
}

/// The span a kind of condition keeps of its own (every kind but a
/// comparison, [`Test`], whose span its operands give), as a `&Span` or a
/// `&mut Span` after the kind's reference: every kind listed once.
macro_rules! own_span {
    ($kind:expr) => {
        match $kind {
            CondKind::Or { span, .. }
            | CondKind::And { span, .. }
            | CondKind::Not { span, .. }
            | CondKind::File { span, .. }
            | CondKind::IsEmpty { span, .. }
            | CondKind::Exists { span, .. }
            | CondKind::Expr { span, .. } => Ok(span),
            CondKind::Test(test) => Err(test),
        }
    };
}

impl Cond {
    /// `kind` written at `at` (the span fields of `kind` are set from it).
    /// A comparison whose span is more than 255 bytes beyond its operands
    /// on either side (parentheses around a comment) is held as an AND of
    /// itself alone, which means the same.
    pub fn new(mut kind: CondKind, at: Span) -> Cond {
        let fits = match own_span!(&mut kind) {
            Ok(span) => {
                *span = at;
                true
            }
            Err(test) => test.set_span(at),
        };
        match fits {
            true => Cond { kind },
            false => Cond { kind: CondKind::And { operands: Box::new([Cond { kind }]), span: at } },
        }
    }

    pub fn span(&self) -> Span {
        match own_span!(&self.kind) {
            Ok(span) => *span,
            Err(test) => test.span(),
        }
    }
}

/// As `tissc parse --emit ast-json` has always shown it: the kind's fields,
/// then its span; a comparison as `compare`, a string test as `str_test`.
impl Serialize for Cond {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        enum Shown<'a> {
            StrTest { lhs: &'a Expr, negated: bool, op: StrOp, rhs: &'a Expr },
            Compare { lhs: &'a Expr, op: CmpOp, rhs: &'a Expr },
        }
        #[derive(Serialize)]
        struct Flat<K> {
            #[serde(flatten)]
            kind: K,
            span: Span,
        }
        let span = self.span();
        match &self.kind {
            CondKind::Test(test) => {
                let (lhs, rhs) = (test.lhs(), test.rhs());
                let kind = match test.op() {
                    TestOp::Str { op, negated } => Shown::StrTest { lhs, negated, op, rhs },
                    TestOp::Compare(op) => Shown::Compare { lhs, op, rhs },
                };
                Flat { kind, span }.serialize(serializer)
            }
            kind => Flat { kind, span }.serialize(serializer),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CondKind {
    Or {
        operands: Box<[Cond]>,
        #[serde(skip)]
        span: Span,
    },
    And {
        operands: Box<[Cond]>,
        #[serde(skip)]
        span: Span,
    },
    Not {
        operand: Box<Cond>,
        #[serde(skip)]
        span: Span,
    },
    /// `FILE "path" test`.
    File {
        #[serde(flatten)]
        file: Box<FileCond>,
        #[serde(skip)]
        span: Span,
    },
    IsEmpty {
        operand: Expr,
        #[serde(skip)]
        span: Span,
    },
    Exists {
        operand: Expr,
        #[serde(skip)]
        span: Span,
    },
    /// A comparison (`==` ...) or a string test (`CONTAINS` ...): shown by
    /// [`Cond`]'s serialization.
    #[serde(skip)]
    Test(Test),
    Expr {
        expr: Expr,
        #[serde(skip)]
        span: Span,
    },
}

/// What `FILE "path" ...` tests (boxed in [`CondKind::File`]: it keeps a
/// condition at 32 bytes).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileCond {
    pub path: StrLit,
    pub test: FileTest,
}

/// `lhs OP rhs`, in 32 bytes: the two operands, with the operator and
/// what parentheses around the test add to its span kept in their spare
/// bytes (an expression has two beside its tag; `Expr::set_spare`): the
/// operator and the bytes before `lhs` in `lhs`'s, the bytes after `rhs`
/// in `rhs`'s. Three more bytes would make every condition 40 bytes, and
/// the conditions shape's tree 0.6 MiB larger (book: performance.md).
#[derive(Clone)]
pub struct Test {
    lhs: Expr,
    rhs: Expr,
}

/// The operator of a [`Test`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestOp {
    Compare(CmpOp),
    Str { op: StrOp, negated: bool },
}

/// Every operator of a [`Test`], by its code in `lhs`'s first spare byte
/// ([`TestOp::code`]).
static TEST_OPS: [TestOp; 14] = [
    TestOp::Compare(CmpOp::Eq),
    TestOp::Compare(CmpOp::Ne),
    TestOp::Compare(CmpOp::Lt),
    TestOp::Compare(CmpOp::Le),
    TestOp::Compare(CmpOp::Gt),
    TestOp::Compare(CmpOp::Ge),
    TestOp::Str { op: StrOp::Contains, negated: false },
    TestOp::Str { op: StrOp::StartsWith, negated: false },
    TestOp::Str { op: StrOp::EndsWith, negated: false },
    TestOp::Str { op: StrOp::Matches, negated: false },
    TestOp::Str { op: StrOp::Contains, negated: true },
    TestOp::Str { op: StrOp::StartsWith, negated: true },
    TestOp::Str { op: StrOp::EndsWith, negated: true },
    TestOp::Str { op: StrOp::Matches, negated: true },
];

impl TestOp {
    /// Its index in [`TEST_OPS`] (a test holds every operator's).
    fn code(self) -> u8 {
        match self {
            TestOp::Compare(op) => op as u8,
            TestOp::Str { op, negated } => 6 + op as u8 + if negated { 4 } else { 0 },
        }
    }
}

impl Test {
    /// `lhs op rhs`, its span theirs until [`Cond::new`] sets it.
    pub fn new(lhs: Expr, op: TestOp, rhs: Expr) -> Test {
        let (mut lhs, mut rhs) = (lhs, rhs);
        lhs.set_spare([op.code(), 0]);
        rhs.set_spare([0, 0]);
        Test { lhs, rhs }
    }

    pub fn lhs(&self) -> &Expr {
        &self.lhs
    }

    pub fn rhs(&self) -> &Expr {
        &self.rhs
    }

    pub fn op(&self) -> TestOp {
        // Only `Test::new` writes the code: always an index of the table.
        TEST_OPS[usize::from(self.lhs.spare()[0]) % TEST_OPS.len()]
    }

    /// From the start of `lhs`, or of parentheses around the test, to the
    /// end of `rhs` or of those parentheses.
    pub fn span(&self) -> Span {
        let inner = self.lhs.span().to(self.rhs.span());
        let (before, after) = (self.lhs.spare()[1], self.rhs.spare()[0]);
        Span { start: inner.start - u32::from(before), end: inner.end + u32::from(after) }
    }

    /// Makes `at` the test's span, if it is within 255 bytes of the
    /// operands' on either side.
    fn set_span(&mut self, at: Span) -> bool {
        let inner = self.lhs.span().to(self.rhs.span());
        let before = inner.start.checked_sub(at.start).and_then(|b| u8::try_from(b).ok());
        let after = at.end.checked_sub(inner.end).and_then(|a| u8::try_from(a).ok());
        let (Some(before), Some(after)) = (before, after) else { return false };
        let code = self.lhs.spare()[0];
        self.lhs.set_spare([code, before]);
        self.rhs.set_spare([after, 0]);
        true
    }
}

impl PartialEq for Test {
    fn eq(&self, other: &Test) -> bool {
        self.lhs == other.lhs
            && self.rhs == other.rhs
            && self.op() == other.op()
            && self.span() == other.span()
    }
}

impl std::fmt::Debug for Test {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Test")
            .field("lhs", &self.lhs)
            .field("op", &self.op())
            .field("rhs", &self.rhs)
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "test", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FileTest {
    Exists,
    IsEmpty,
    Contains { needle: Expr },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StrOp {
    Contains,
    StartsWith,
    EndsWith,
    Matches,
}

impl StrOp {
    pub fn keyword(self) -> &'static str {
        match self {
            StrOp::Contains => "CONTAINS",
            StrOp::StartsWith => "STARTS_WITH",
            StrOp::EndsWith => "ENDS_WITH",
            StrOp::Matches => "MATCHES",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CmpOp {
    #[serde(rename = "==")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// `<`, `<=`, `>`, `>=` need ordered operands.
    pub fn is_ordering(self) -> bool {
        !matches!(self, CmpOp::Eq | CmpOp::Ne)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tisslang::types::Field;

    /// The tree of a large plan is mostly statements and conditions: their
    /// size is the front end's memory, and the whole tree is alive when
    /// lowering starts, the peak of `tissc compile` (book: performance.md).
    /// Boxed because they set the size of every node above them: a path in
    /// an expression (80 bytes inline made every `Expr` 88, every `Cond` 192
    /// and every `Stmt` 144), a string in an expression and FILE's path (each
    /// made every `Expr` 56 and every `Cond` 128), RUN's rare `IN` directory,
    /// a heredoc, and the names TRY's CATCH and PROMPT_AGENT's INTO bind
    /// (`Stmt` 112): on the 50,000-line bench plan, the tree went from 8.8 MB
    /// to 7.2 MB with the last three, to 6.6 MB with a 16-byte [`Text`], and
    /// to 6.4 MB with 16-byte [`StrParts`] and TRY's handler boxed. A bare
    /// variable is no path at all ([`ExprKind::Var`]): 3 MiB off the peak
    /// of the 54,000-line conditions plan, where it is most operands; and
    /// an expression that keeps its span beside what it holds, reading a
    /// name and a plain literal from the source ([`Expr`], 16 bytes, every
    /// `Cond` 48): 1.0 MiB more; a block's statements in a boxed slice and
    /// RUN's TIMEOUT boxed (`Stmt` 64): 0.3 MiB more; a condition's span
    /// kept in its kind, a comparison's given by its operands (`Cond` 40,
    /// an IF 96): 0.7 MiB more; a comparison's operator and parentheses in
    /// its operands' spare bytes ([`Test`], `Cond` 32): 0.6 MiB more.
    /// Each operator's code is its place in the table a test reads it back from.
    #[test]
    fn a_test_keeps_its_operator() {
        for op in TEST_OPS {
            let test = Test::new(
                Expr::int(1, Span { start: 0, end: 1 }),
                op,
                Expr::int(2, Span { start: 5, end: 6 }),
            );
            assert_eq!(test.op(), op);
            assert_eq!(test.span(), Span { start: 0, end: 6 });
        }
    }

    #[test]
    fn statements_stay_small() {
        use std::mem::size_of;
        assert_eq!(size_of::<Stmt>(), 64);
        assert_eq!(size_of::<Cond>(), 32);
        assert_eq!(size_of::<Expr>(), 16);
        assert_eq!(size_of::<Item>(), 64);
        assert_eq!(size_of::<StrLit>(), 24);
        assert_eq!(size_of::<Ident>(), 24);
        assert_eq!(size_of::<Path>(), 64);
        assert_eq!(size_of::<Block>(), 24);
        assert_eq!(size_of::<IfStmt>(), 88);
        assert_eq!(size_of::<StrParts>(), 16);
    }

    /// A bare variable and `LAST_RUN.FIELD` are kept in their expression,
    /// not as a boxed path, and read and serialize as the paths they were.
    #[test]
    fn inline_paths_read_and_serialize_as_boxed_ones() {
        let src = "TASK \"t\"\nSTEP \"s\" {\n    VAR a = \"x\"\n    VAR b = a\n    RUN \"true\"\n    \
                   VAR c = LAST_RUN .  STDOUT\n    VAR d = LAST_RUN.EXIT_CODE\n    VAR e = COST.RUN_COUNT\n}\n";
        let (plan, diagnostics) = crate::parser::parse(src);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let Item::Step(step) = &plan.items[1] else { panic!("a step: {:?}", plan.items[1]) };
        let value = |i: usize| match &step.body.commands[i].kind {
            StmtKind::Var { value, .. } => value,
            other => panic!("a VAR: {other:?}"),
        };
        let (b, c, d, e) = (value(1), value(3), value(4), value(5));
        assert!(matches!(b.kind(), ExprKind::Var) && b.name(src) == "a", "{b:?}");
        assert!(matches!(c.kind(), ExprKind::LastRun { field: Field::Stdout, .. }), "{c:?}");
        assert!(matches!(d.kind(), ExprKind::LastRun { field: Field::ExitCode, .. }), "{d:?}");
        assert!(matches!(e.kind(), ExprKind::Path { .. }), "{e:?}");
        let text = |span: Span| &src[span.range()];
        let path = b.path(src).expect("a path");
        assert!(matches!(path.root, RootView::Var { ident } if ident.name == "a" && text(ident.span) == "a"));
        assert!(path.fields.is_empty());
        let path = c.path(src).expect("a path");
        assert_eq!(text(path.root.span()), "LAST_RUN");
        let field = path.fields.last().expect("a field");
        assert_eq!((field.name, text(field.span)), ("STDOUT", "STDOUT"));
        assert_eq!(text(path.span), "LAST_RUN .  STDOUT");
        assert_eq!(path.fields.len(), 1);
        assert!(path.fields.upto(0).is_empty());
        // As JSON, each is the boxed path the parser made before, field for field.
        let json =
            |expr: &Expr| crate::syntax::expr::with_source(src, || serde_json::to_value(expr).unwrap());
        for (expr, boxed) in [(b, b.path(src).unwrap().to_path()), (c, c.path(src).unwrap().to_path())] {
            assert_eq!(json(expr), json(&Expr::of_path(boxed)));
        }
        let json = json(c);
        assert_eq!(json["path"]["root"]["kind"], serde_json::json!("last_run"));
        assert_eq!(json["path"]["fields"][0]["name"], serde_json::json!("STDOUT"));
        assert_eq!(json["path"]["fields"][0]["span"], serde_json::to_value(field.span).unwrap());
        // Another field of LAST_RUN is an error, and its path stays boxed.
        let (plan, _) = crate::parser::parse("TASK \"t\"\nSTEP \"s\" {\n    VAR x = LAST_RUN.NOPE\n}\n");
        let Item::Step(step) = &plan.items[1] else { panic!("a step") };
        let StmtKind::Var { value, .. } = &step.body.commands[0].kind else { panic!("a VAR") };
        assert!(matches!(value.kind(), ExprKind::Path { .. }), "{value:?}");
        // Kept inline: exactly the record's own fields, each read back by name.
        for field in Field::ALL {
            let src = format!("TASK \"t\"\nSTEP \"s\" {{\n    VAR x = LAST_RUN.{}\n}}\n", field.name());
            let (plan, _) = crate::parser::parse(&src);
            let Item::Step(step) = &plan.items[1] else { panic!("a step") };
            let StmtKind::Var { value, .. } = &step.body.commands[0].kind else { panic!("a VAR") };
            let inline = matches!(value.kind(), ExprKind::LastRun { field: f, .. } if f == field);
            let of_the_record = tisslang::types::ValueType::LastRun.field(field).is_some();
            assert_eq!(inline, of_the_record, "{}: {value:?}", field.name());
            let last = value.path(&src).and_then(|path| path.fields.last()).expect("one field");
            assert_eq!((last.name, &src[last.span.range()]), (field.name(), field.name()));
        }
    }

    #[test]
    fn string_parts_serialize_as_a_list() {
        let one = StrParts::one(StrPart::Text { text: Text::new("x") });
        assert_eq!(serde_json::to_string(&one).unwrap(), r#"[{"kind":"text","text":"x"}]"#);
    }
}
