//! The parser: tokens → [`Plan`] (book: reference/structure.md,
//! reference/statements.md, reference/expressions.md), by recursive descent,
//! taking tokens from the lexer as it goes.
//!
//! Errors are reported, not raised: a statement that fails to parse is skipped
//! up to the next statement keyword (or a line starting with a misspelling of
//! one) or closing brace, an item up to the next top-level keyword, so one run
//! reports every error in the file. A wrong operand that is all there (a
//! quoted timeout) is reported and the statement kept, so nothing is skipped. Nesting is
//! capped ([`MAX_DEPTH`]) so hostile input cannot overflow the Rust stack.

mod cond;
pub(crate) mod dialect;
mod foreign;
mod stmt;
mod types;

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::lexer::Lexer;
use crate::syntax::ast::{Block, Cond, Heredoc, Ident, Item, Plan, Step, Stmt, StrLit};
use crate::syntax::span::Span;
use crate::syntax::token::{Kw, Token, TokenKind};

/// Deepest nesting of blocks and parentheses accepted.
pub const MAX_DEPTH: usize = 64;

/// Lexes and parses a plan. The returned plan holds every item that parsed;
/// the diagnostics are the lexer's, then the parser's.
pub fn parse(src: &str) -> (Plan, Vec<Diagnostic>) {
    parse_with(src, false)
}

/// [`parse`] for a plan that is only checked and lowered: heredoc bodies
/// written as they are taken are left in `src` ([`Heredoc::body`] reads them
/// there), not copied into the tree. A tree to show or format comes from
/// [`parse`].
pub fn parse_for_lowering(src: &str) -> (Plan, Vec<Diagnostic>) {
    parse_with(src, true)
}

fn parse_with(src: &str, bodies_in_source: bool) -> (Plan, Vec<Diagnostic>) {
    let mut lexer = Lexer::new(src);
    lexer.bodies_in_source = bodies_in_source;
    lexer.out.tokens.reserve_exact(CHUNK);
    lexer.scan(CHUNK);
    let mut parser = Parser {
        src,
        lexer,
        first: 0,
        pos: 0,
        diagnostics: Vec::new(),
        depth: 0,
        prev_end: 0,
        stmts: Vec::new(),
        conds: Vec::new(),
        bindings: 0,
        braceless_depth: 0,
        closer_lines: None,
    };
    let plan = parser.plan();
    let mut diagnostics = parser.lexer.out.diagnostics;
    diagnostics.append(&mut parser.diagnostics);
    (plan, diagnostics)
}

/// Tokens are scanned this many at a time: the whole stream is never stored.
const CHUNK: usize = 256;
/// How far past the current token the parser looks.
const LOOKAHEAD: usize = 1;

/// Marks a parse function's failure; its diagnostic has already been recorded.
#[derive(Debug)]
pub(crate) struct Reported;

pub(crate) type PResult<T> = Result<T, Reported>;

pub(crate) struct Parser<'a> {
    src: &'a str,
    /// Its `out.tokens` hold the stream from token `first` on: at least the
    /// one before the current token (a parse function may step back once)
    /// to `LOOKAHEAD` after it, or to `Eof`.
    lexer: Lexer<'a>,
    first: usize,
    /// The index of the current token in the stream (tokens consumed so far).
    pos: usize,
    diagnostics: Vec<Diagnostic>,
    depth: usize,
    /// End of the last consumed token: the end of the node being built.
    prev_end: u32,
    /// The statements of the blocks being parsed, innermost last.
    stmts: Vec<Stmt>,
    /// The operands of the AND and OR chains being parsed, as `stmts`: a
    /// chain's move into a vector of exactly their number (one grown from
    /// two to four kept a fourth empty, after a copy).
    conds: Vec<Cond>,
    /// Statements parsed that bind a name (`Plan::bindings`).
    bindings: u32,
    /// How many blocks written without braces (`IF … ENDIF`) enclose the
    /// current token: inside one, recovery also stops at a line's `ELSE`.
    braceless_depth: usize,
    /// Where the lines that start with `ENDIF`, `ENDSTEP` and the like
    /// begin, and which of (IF, STEP) each closes; found on first need.
    closer_lines: Option<Vec<(u32, [bool; 2])>>,
}

impl<'a> Parser<'a> {
    // ---- token access -------------------------------------------------------

    fn peek(&self) -> Token {
        // The lexer always ends the stream with `Eof`, and `bump` never passes it.
        self.lexer.out.tokens[self.pos - self.first]
    }

    fn peek_kind(&self) -> TokenKind {
        self.peek().kind
    }

    /// The token `n` after the current one (`n <= LOOKAHEAD`), if the stream
    /// goes on that far.
    fn peek_nth(&self, n: usize) -> Option<Token> {
        debug_assert!(n <= LOOKAHEAD);
        self.lexer.out.tokens.get(self.pos - self.first + n).copied()
    }

    /// The kind of the token `n` after the current one (`n <= LOOKAHEAD`).
    fn peek_nth_kind(&self, n: usize) -> TokenKind {
        self.peek_nth(n).map_or(TokenKind::Eof, |t| t.kind)
    }

    /// The token before the current one (the window always keeps it).
    fn previous(&self) -> Option<Token> {
        self.pos.checked_sub(1).map(|i| self.lexer.out.tokens[i - self.first])
    }

    /// Drops the tokens before the previous one, with their literals'
    /// contents, and scans the next chunk. Out of line: `bump` stays small.
    #[inline(never)]
    fn refill(&mut self) {
        let tokens = &mut self.lexer.out.tokens;
        let drop = self.pos - 1 - self.first;
        let (mut last_string, mut last_heredoc) = (None, None);
        for token in &tokens[..drop] {
            match token.kind {
                TokenKind::Str(i) => last_string = Some(i),
                TokenKind::Heredoc(i) => last_heredoc = Some(i),
                _ => {}
            }
        }
        if let Some(i) = last_string {
            self.lexer.out.strings.release_through(i);
        }
        if let Some(i) = last_heredoc {
            self.lexer.out.heredocs.release_through(i);
        }
        self.lexer.out.tokens.drain(..drop);
        self.first += drop;
        self.lexer.scan(CHUNK);
    }

    fn bump(&mut self) -> Token {
        let tok = self.peek();
        if tok.kind != TokenKind::Eof {
            self.pos += 1;
            self.prev_end = tok.span.end;
            if self.pos + LOOKAHEAD >= self.first + self.lexer.out.tokens.len() && !self.lexer.done {
                self.refill();
            }
        }
        tok
    }

    fn at_kw(&self, kw: Kw) -> bool {
        self.peek_kind() == TokenKind::Kw(kw)
    }

    fn eat_kw(&mut self, kw: Kw) -> bool {
        if self.at_kw(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn text(&self, span: Span) -> &'a str {
        &self.src[span.range()]
    }

    /// Span from `start` to the end of the last consumed token.
    fn since(&self, start: Span) -> Span {
        Span { start: start.start, end: self.prev_end.max(start.end) }
    }

    fn error(&mut self, diagnostic: Diagnostic) -> Reported {
        self.diagnostics.push(diagnostic);
        Reported
    }

    /// "expected X, found Y" at the current token.
    fn expected(&mut self, what: &str) -> Reported {
        let tok = self.peek();
        // A keyword's text: `->` stands for `INTO` (see `dialect`).
        let found = match tok.kind {
            TokenKind::Ident | TokenKind::Kw(_) => format!("`{}`", self.text(tok.span)),
            kind => kind.describe().to_string(),
        };
        self.error(Diagnostic::error(
            codes::UNEXPECTED_TOKEN,
            tok.span,
            format!("expected {what}, found {found}"),
        ))
    }

    // ---- keywords, with typo detection ---------------------------------------

    /// If the current token is an identifier that looks like one of `candidates`
    /// (another case, or one edit away), reports E0101 and returns the keyword.
    /// `role` is what stands here ("a statement"): the message says the word
    /// is not one, and why the keyword is meant.
    fn keyword_typo(&mut self, candidates: &[Kw], role: &str) -> Option<Kw> {
        let tok = self.peek();
        if tok.kind != TokenKind::Ident {
            return None;
        }
        let word = self.text(tok.span);
        let kw = typo_of(word, candidates)?;
        let name = kw.as_str();
        let d = if name.eq_ignore_ascii_case(word) {
            Diagnostic::error(
                codes::MISSPELLED_KEYWORD,
                tok.span,
                format!("`{word}` is not {role}: keywords are uppercase, so write `{name}`"),
            )
            .with_fix("write the keyword in uppercase", tok.span, name)
        } else {
            Diagnostic::error(
                codes::MISSPELLED_KEYWORD,
                tok.span,
                format!("`{word}` is not {role}; did you mean `{name}` (one edit away)?"),
            )
            .with_suggestion("did you mean", tok.span, name)
        };
        self.diagnostics.push(d);
        Some(kw)
    }

    /// Consumes the keyword `kw` (or a misspelling of it, after reporting it).
    fn expect_kw(&mut self, kw: Kw) -> PResult<()> {
        if self.eat_kw(kw) || self.eat_kw_typo(kw) {
            return Ok(());
        }
        Err(self.expected(&format!("`{}`", kw.as_str())))
    }

    /// Consumes a misspelling of `kw`, reporting it.
    fn eat_kw_typo(&mut self, kw: Kw) -> bool {
        if self.keyword_typo(&[kw], "a keyword").is_some() {
            self.bump();
            true
        } else {
            false
        }
    }

    /// An optional keyword: the keyword itself or a misspelling of it.
    fn eat_kw_or_typo(&mut self, kw: Kw) -> bool {
        self.eat_kw(kw) || self.eat_kw_typo(kw)
    }

    fn expect(&mut self, kind: TokenKind, what: &str) -> PResult<Token> {
        if self.peek_kind() == kind { Ok(self.bump()) } else { Err(self.expected(what)) }
    }

    // ---- literals --------------------------------------------------------------

    fn string(&mut self, what: &str) -> PResult<StrLit> {
        match self.peek_kind() {
            TokenKind::Str(i) => {
                self.bump();
                Ok(self.take_string(i))
            }
            _ => Err(self.expected(what)),
        }
    }

    fn take_string(&mut self, index: u32) -> StrLit {
        self.lexer.out.strings.take(index)
    }

    fn take_heredoc(&mut self, index: u32) -> Heredoc {
        self.lexer.out.heredocs.take(index)
    }

    /// A name being bound (`VAR x`, `AS x`, `INTO x`, `WITH x`).
    fn binding_name(&mut self, what: &str) -> PResult<Ident> {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Ident => {
                self.bump();
                Ok(Ident { name: self.text(tok.span).into(), span: tok.span })
            }
            TokenKind::Kw(kw) => {
                self.bump();
                let lower = kw.as_str().to_ascii_lowercase();
                self.error(
                    Diagnostic::error(
                        codes::RESERVED_WORD_AS_NAME,
                        tok.span,
                        format!("`{}` is a reserved word and cannot name a variable", kw.as_str()),
                    )
                    .with_suggestion(
                        "names are case-sensitive; use a lowercase name",
                        tok.span,
                        lower.clone(),
                    ),
                );
                Ok(Ident { name: lower.into(), span: tok.span })
            }
            _ => Err(self.expected(what)),
        }
    }

    // ---- blocks and recovery -------------------------------------------------

    /// `{ statement* }`
    fn block(&mut self) -> PResult<Block> {
        let open = self.expect(TokenKind::LBrace, "`{` to open a block")?;
        if self.depth >= MAX_DEPTH {
            let err = self.error(Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                open.span,
                format!("blocks are nested more than {MAX_DEPTH} deep"),
            ));
            self.skip_balanced_from_open();
            return Err(err);
        }
        self.depth += 1;
        // Statements collect on the shared stack (nested blocks above this
        // one's), then move in one copy into a vector of exactly their number.
        let mark = self.stmts.len();
        let closed = loop {
            match self.peek_kind() {
                TokenKind::RBrace => {
                    self.bump();
                    break true;
                }
                TokenKind::Eof => break false,
                _ => {
                    let from = self.pos;
                    if self.statement().is_err() {
                        self.recover_statement(from);
                    }
                }
            }
        };
        let commands = self.stmts.split_off(mark).into_boxed_slice();
        self.depth -= 1;
        if !closed {
            let eof = self.peek().span;
            return Err(self.error(
                Diagnostic::error(codes::UNEXPECTED_TOKEN, eof, "this block is never closed: expected `}`")
                    .with_label(open.span, "block opened here")
                    .with_suggestion("close the block", eof, "}"),
            ));
        }
        Ok(Block { commands, span: self.since(open.span) })
    }

    /// A step's block, in braces or (reported) closed by `ENDSTEP`.
    fn step_body(&mut self, start: Span) -> PResult<Block> {
        if self.peek_kind() != TokenKind::LBrace && self.closer_ahead(dialect::Construct::Step) {
            return self.braceless_step(start);
        }
        self.block()
    }

    /// After an error inside a block: skip to the next statement (see
    /// [`Parser::resumes_here`]) or the block's closing brace, stepping over
    /// nested blocks whole. `from` is where the failed statement began.
    fn recover_statement(&mut self, from: usize) {
        let start = self.pos;
        loop {
            match self.peek_kind() {
                TokenKind::Eof | TokenKind::RBrace => return,
                _ if self.resumes_here(Kw::STATEMENT_STARTS, start, from) => return,
                TokenKind::LBrace => {
                    self.bump();
                    self.skip_balanced_from_open();
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// After an error at top level: skip to the next item at depth 0 (see
    /// [`Parser::resumes_here`]). `from` is where the failed item began.
    fn recover_item(&mut self, from: usize) {
        let start = self.pos;
        loop {
            match self.peek_kind() {
                TokenKind::Eof | TokenKind::Pragma(_) => return,
                _ if self.resumes_here(Kw::ITEM_STARTS, start, from) => return,
                TokenKind::LBrace => {
                    self.bump();
                    self.skip_balanced_from_open();
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// Whether recovery, which began at token `start` after an error in the
    /// statement or item that began at `from`, resumes at the current token:
    /// one of the keywords `starts` past the error, or, at the start of a
    /// line, one of them or a misspelling of a keyword that starts something
    /// (so `TIMEOUT "30s"` does not hide an `ASERT` on the next line). Only
    /// tokens past `from` qualify, so each failed statement consumes some.
    fn resumes_here(&self, starts: &[Kw], start: usize, from: usize) -> bool {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Kw(kw) if starts.contains(&kw) => {
                self.pos > start || (self.pos > from && self.starts_line())
            }
            TokenKind::Ident => {
                let word = self.text(tok.span);
                self.pos > from
                    && self.starts_line()
                    && (typo_of(word, ALL_STARTS).is_some() || dialect::starts_something(word))
            }
            TokenKind::Kw(Kw::ELSE) => self.braceless_depth > 0 && self.pos > from && self.starts_line(),
            _ => false,
        }
    }

    /// Whether the current token is the first on its line.
    pub(super) fn starts_line(&self) -> bool {
        let Some(before) = self.previous() else { return true };
        let gap = before.span.end as usize..self.peek().span.start as usize;
        self.src.as_bytes().get(gap).is_some_and(|gap| gap.contains(&b'\n'))
    }

    /// Skips tokens up to and including the `}` matching an already consumed `{`.
    fn skip_balanced_from_open(&mut self) {
        let mut depth = 1usize;
        loop {
            match self.bump().kind {
                TokenKind::LBrace => depth += 1,
                TokenKind::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                TokenKind::Eof => return,
                _ => {}
            }
        }
    }

    // ---- top level -------------------------------------------------------------

    fn plan(&mut self) -> Plan {
        // Room for an item per 200 bytes of source: a step of a few
        // statements is 200-500 bytes. Doubling from nothing copied the
        // list as it grew, and the list it left stayed resident until the
        // checks ended (0.3 MiB on a 2 MB plan of 4,000 steps). Room not
        // used is never touched; a plan of smaller items grows as before.
        let mut items = Vec::with_capacity(self.src.len() / 200);
        loop {
            let tok = self.peek();
            let from = self.pos;
            let result = match tok.kind {
                TokenKind::Eof => break,
                TokenKind::Pragma(i) => {
                    self.bump();
                    let empty = Item::Header { entries: Vec::new(), span: Span::default() };
                    items.push(std::mem::replace(&mut self.lexer.out.pragmas[i as usize], empty));
                    continue;
                }
                TokenKind::Kw(kw) => self.item(kw, &mut items),
                TokenKind::Ident if self.text(tok.span) == "PARALLEL" => {
                    self.parallel();
                    continue;
                }
                TokenKind::Ident if self.stray_closer().is_some() => continue,
                TokenKind::Ident => match self.keyword_typo(TOP_LEVEL_STARTS, "a statement") {
                    Some(kw) => self.item(kw, &mut items),
                    None => Err(self.expected(ITEM_EXPECTED)),
                },
                _ => Err(self.expected(ITEM_EXPECTED)),
            };
            if result.is_err() {
                self.recover_item(from);
            }
        }
        Plan { items, bindings: self.bindings }
    }

    /// One top-level item introduced by `kw` (the current token, possibly a
    /// reported misspelling of it).
    fn item(&mut self, kw: Kw, items: &mut Vec<Item>) -> PResult<()> {
        let start = self.bump().span;
        let item = match kw {
            Kw::TASK => {
                let name = self.string("the task description, a string")?;
                Item::Task { name, span: self.since(start) }
            }
            Kw::SETUP => {
                let description = match self.peek_kind() {
                    TokenKind::Str(_) => Some(self.string("a description")?),
                    _ => None,
                };
                let body = self.block()?;
                Item::Setup { description, body, span: self.since(start) }
            }
            Kw::STEP => {
                let name = self.name_string("the step name, a string")?;
                let body = self.step_body(start)?;
                Item::Step(Step { name, body, span: self.since(start) })
            }
            Kw::DEFINE_TASK => {
                let name = self.name_string("the task name, a string")?;
                let body = self.block()?;
                Item::DefineTask { name, body, span: self.since(start) }
            }
            Kw::SET_BUDGET => Item::SetBudget(self.budget(start)?),
            Kw::TYPE => Item::TypeDef(Box::new(self.typedef_rest(start)?)),
            kw if kw.starts_statement() => {
                // Parse it anyway, so its own errors are reported too, then drop it.
                let mark = self.stmts.len();
                let span = match self.statement_after(kw, start) {
                    Ok(()) => self.stmts.last().map_or_else(|| self.since(start), |s| s.span),
                    Err(Reported) => self.since(start),
                };
                self.stmts.truncate(mark);
                return Err(self.error(
                    Diagnostic::error(
                        codes::STATEMENT_AT_TOP_LEVEL,
                        span,
                        format!(
                            "`{}` must stand inside a `STEP` (or `SETUP`, `DEFINE_TASK`) block",
                            kw.as_str()
                        ),
                    )
                    .with_note(
                        "only TASK, SETUP, STEP, DEFINE_TASK, SET_BUDGET and TYPE stand at the top level",
                    ),
                ));
            }
            _ => {
                self.pos -= 1;
                return Err(self.expected(ITEM_EXPECTED));
            }
        };
        items.push(item);
        Ok(())
    }

    /// `PARALLEL` is reserved for a later TissLang: report it and skip its block.
    fn parallel(&mut self) {
        let tok = self.bump();
        self.diagnostics.push(
            Diagnostic::error(
                codes::RESERVED_PARALLEL,
                tok.span,
                format!(
                    "`PARALLEL` is reserved for a later TissLang (concurrent steps); this compiler implements {}",
                    tisslang::version::LANGUAGE_VERSION
                ),
            )
            .with_note("run the steps one after the other: write them as consecutive `STEP`s"),
        );
        if let TokenKind::Str(_) = self.peek_kind() {
            self.bump();
        }
        if self.peek_kind() == TokenKind::LBrace {
            self.bump();
            self.skip_balanced_from_open();
        }
    }
}

/// What stands at the top level, for "expected …" messages.
const ITEM_EXPECTED: &str = "`TASK`, `SETUP`, `STEP`, `DEFINE_TASK`, `SET_BUDGET` or `TYPE`";

/// Keywords that may begin something at the top level (an item, or a
/// statement standing there by mistake), for typo detection: TYPE stands
/// only there, so a word in a block that looks like it is no misspelling.
const TOP_LEVEL_STARTS: &[Kw] = &[
    Kw::TASK,
    Kw::SETUP,
    Kw::STEP,
    Kw::DEFINE_TASK,
    Kw::SET_BUDGET,
    Kw::TYPE,
    Kw::READ,
    Kw::WRITE,
    Kw::APPEND,
    Kw::MKDIR,
    Kw::DELETE,
    Kw::RUN,
    Kw::ENV,
    Kw::LOG,
    Kw::ASSERT,
    Kw::VAR,
    Kw::IF,
    Kw::TRY,
    Kw::CALL,
    Kw::PROMPT_AGENT,
    Kw::PAUSE,
    Kw::REQUEST_REVIEW,
    Kw::CHOOSE,
    Kw::ESTIMATE_COST,
];

/// Keywords that may begin an item or a statement, for typo detection.
const ALL_STARTS: &[Kw] = &[
    Kw::TASK,
    Kw::SETUP,
    Kw::STEP,
    Kw::DEFINE_TASK,
    Kw::SET_BUDGET,
    Kw::READ,
    Kw::WRITE,
    Kw::APPEND,
    Kw::MKDIR,
    Kw::DELETE,
    Kw::RUN,
    Kw::ENV,
    Kw::LOG,
    Kw::ASSERT,
    Kw::VAR,
    Kw::IF,
    Kw::TRY,
    Kw::CALL,
    Kw::PROMPT_AGENT,
    Kw::PAUSE,
    Kw::REQUEST_REVIEW,
    Kw::CHOOSE,
    Kw::ESTIMATE_COST,
];

/// The keyword `word` most likely stands for: equal ignoring case, or one
/// edit away (ignoring case) from one of `candidates`.
pub(crate) fn typo_of(word: &str, candidates: &[Kw]) -> Option<Kw> {
    if let Some(&kw) = candidates.iter().find(|kw| kw.as_str().eq_ignore_ascii_case(word)) {
        return Some(kw);
    }
    if word.len() < 3 {
        return None;
    }
    let upper = word.to_ascii_uppercase();
    candidates.iter().copied().find(|kw| tiss_support::suggest::edit_distance(&upper, kw.as_str(), 1) <= 1)
}

#[cfg(test)]
mod tests;
