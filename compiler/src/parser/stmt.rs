//! Statements inside blocks (book: reference/statements.md).

use super::{ALL_STARTS, PResult, Parser, Reported};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{
    Budget, ChooseOption, Content, DurationLit, Else, IfStmt, PromptInto, Stmt, StmtKind,
};
use crate::syntax::span::Span;
use crate::syntax::token::{Kw, TokenKind};
use tisslang::cost::Dim;

impl Parser<'_> {
    /// One statement, pushed onto `self.stmts` (built in place there rather
    /// than returned: a statement is a few hundred bytes). `Ok` without a
    /// push means something was consumed and reported but nothing is to be
    /// kept (e.g. `PARALLEL`), with no recovery needed.
    pub(super) fn statement(&mut self) -> PResult<()> {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Kw(kw) => {
                self.bump();
                self.statement_after(kw, tok.span)
            }
            TokenKind::Ident if self.text(tok.span) == "PARALLEL" => {
                self.parallel();
                Ok(())
            }
            TokenKind::Ident => {
                if let Some(result) = self.dialect_statement() {
                    return result;
                }
                if let Some(kw) = self.keyword_typo(ALL_STARTS, "a statement") {
                    self.bump();
                    return self.statement_after(kw, tok.span);
                }
                if self.peek_nth_kind(1) == TokenKind::Assign {
                    let name = self.text(tok.span);
                    return Err(self.error(
                        Diagnostic::error(
                            codes::UNEXPECTED_TOKEN,
                            tok.span,
                            format!("expected a statement, found `{name}`: variables are bound with `VAR`"),
                        )
                        .with_fix("bind it with", tok.span, format!("VAR {name}")),
                    ));
                }
                Err(self.expected("a statement"))
            }
            _ => Err(self.expected("a statement")),
        }
    }

    /// The rest of a statement whose keyword `kw` (at `start`) was consumed,
    /// pushed onto `self.stmts`.
    pub(super) fn statement_after(&mut self, kw: Kw, start: Span) -> PResult<()> {
        let kind = match kw {
            Kw::STEP => {
                let name = self.name_string("the step name, a string")?;
                let body = self.step_body(start)?;
                StmtKind::Step { name, body }
            }
            Kw::READ => {
                let path = self.string("the path to read, a string")?;
                self.expect_kw(Kw::AS)?;
                let var = self.binding_name("a variable name after `AS`")?;
                StmtKind::Read { path, var }
            }
            Kw::WRITE => {
                let path = self.string("the path to write, a string")?;
                StmtKind::Write { path, content: self.content("WRITE")? }
            }
            Kw::APPEND => {
                let path = self.string("the path to append to, a string")?;
                StmtKind::Append { path, content: self.content("APPEND")? }
            }
            Kw::MKDIR => StmtKind::Mkdir { path: self.string("the directory to create, a string")? },
            Kw::DELETE => {
                let path = self.string("the path to delete, a string")?;
                let recursive = self.eat_kw_or_typo(Kw::RECURSIVE);
                StmtKind::Delete { path, recursive }
            }
            Kw::LOG => StmtKind::Log { message: self.string("the message to log, a string")? },
            Kw::RUN => {
                let (run, bound) = self.run()?;
                // `RUN "c" -> out` (reported): the RUN, then the binding its fix writes.
                if let Some(binding) = bound {
                    self.stmts.push(Stmt { kind: run, span: self.since(start) });
                    self.stmts.push(binding);
                    return Ok(());
                }
                run
            }
            Kw::ENV => {
                let name = self.env_name()?;
                self.assign()?;
                StmtKind::Env { name, value: self.expr("the value, an expression")? }
            }
            Kw::ASSERT => {
                let condition = self.cond()?;
                let message = if self.eat_kw_or_typo(Kw::MESSAGE) {
                    Some(self.string("the failure message, a string")?)
                } else {
                    None
                };
                StmtKind::Assert { condition: Box::new(condition), message }
            }
            Kw::VAR => {
                let name = self.binding_name("a variable name after `VAR`")?;
                self.assign()?;
                StmtKind::Var { name, value: self.expr("the value, an expression")? }
            }
            Kw::IF => StmtKind::If(Box::new(self.if_rest(start)?)),
            Kw::TRY => {
                let body = self.block()?;
                self.expect_kw(Kw::CATCH)?;
                let catch_var = if self.eat_kw_or_typo(Kw::AS) {
                    Some(Box::new(self.binding_name("a name for the error")?))
                } else {
                    None
                };
                let handler = Box::new(self.block()?);
                StmtKind::Try { body, catch_var, handler }
            }
            Kw::CALL => StmtKind::Call { task: self.name_string("the name of a DEFINE_TASK, a string")? },
            Kw::PROMPT_AGENT => {
                let query = self.string("the query, a string")?;
                let mut with = Vec::new();
                if self.eat_kw_or_typo(Kw::WITH) {
                    with.push(self.binding_name("a variable name after `WITH`")?);
                    while self.peek_kind() == TokenKind::Comma {
                        self.bump();
                        with.push(self.binding_name("a variable name after `,`")?);
                    }
                }
                let with = exactly(with);
                let into = match self.optional_into()? {
                    Some(var) => {
                        let ty = if self.eat_kw_or_typo(Kw::AS) { Some(self.type_expr()?) } else { None };
                        Some(Box::new(PromptInto { var, ty }))
                    }
                    None => None,
                };
                StmtKind::PromptAgent { query, with: with.into_boxed_slice(), into }
            }
            Kw::PAUSE => StmtKind::Pause { message: self.string("the message for the human, a string")? },
            Kw::REQUEST_REVIEW => {
                let message = self.string("what to review, a string")?;
                StmtKind::RequestReview { message, into: self.optional_into()? }
            }
            Kw::CHOOSE => self.choose()?,
            Kw::ESTIMATE_COST => {
                let into = self.optional_into()?;
                StmtKind::EstimateCost { into, body: self.block()? }
            }
            Kw::SET_BUDGET => StmtKind::SetBudget(self.budget(start)?),
            Kw::DEFINE_TASK => {
                // Parse the definition for its own errors, then drop it.
                let _ = self.string("the task name, a string")?;
                let _ = self.block()?;
                return Err(self.error(
                    Diagnostic::error(
                        codes::DEFINE_NOT_TOP_LEVEL,
                        self.since(start),
                        "`DEFINE_TASK` must stand at the top level, not inside a block",
                    )
                    .with_note("move the definition out of the block; `CALL` it from here"),
                ));
            }
            Kw::TYPE => {
                // Parse the type for its own errors, then drop it.
                let _ = self.typedef_rest(start)?;
                return Err(self.error(
                    Diagnostic::error(
                        codes::TYPE_NOT_TOP_LEVEL,
                        self.since(start),
                        "`TYPE` must stand at the top level, after `TASK`, not inside a block",
                    )
                    .with_note(
                        "move the definition out of the block; a type may also be written in place, \
                         `PROMPT_AGENT \"…\" INTO x AS { … }`",
                    ),
                ));
            }
            Kw::TASK | Kw::SETUP => {
                return Err(self.error(Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    start,
                    format!("`{}` stands only at the top level of a plan, not inside a block", kw.as_str()),
                )));
            }
            _ => {
                self.pos -= 1;
                return Err(self.expected("a statement"));
            }
        };
        let span = self.since(start);
        self.bindings += u32::from(kind.binds_a_name());
        self.stmts.push(Stmt { kind, span });
        Ok(())
    }

    /// `=` (reporting `==` as a likely slip).
    fn assign(&mut self) -> PResult<()> {
        match self.peek_kind() {
            TokenKind::Assign => {
                self.bump();
                Ok(())
            }
            TokenKind::EqEq => {
                let tok = self.bump();
                self.diagnostics.push(
                    Diagnostic::error(codes::UNEXPECTED_TOKEN, tok.span, "expected `=`, found `==`")
                        .with_fix("binding uses a single", tok.span, "="),
                );
                Ok(())
            }
            _ => Err(self.expected("`=`")),
        }
    }

    /// `ENV NAME`: environment variable names may also be reserved words.
    fn env_name(&mut self) -> PResult<crate::syntax::ast::Ident> {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Ident | TokenKind::Kw(_) => {
                self.bump();
                Ok(crate::syntax::ast::Ident { name: self.text(tok.span).into(), span: tok.span })
            }
            _ => Err(self.expected("an environment variable name")),
        }
    }

    /// `[INTO name]`; `-> name` and `AS name` (dialect) are reported and taken as it.
    pub(super) fn optional_into(&mut self) -> PResult<Option<crate::syntax::ast::Ident>> {
        let tok = self.peek();
        let written = self.text(tok.span);
        if (self.at_kw(Kw::INTO) && written == "->") || self.at_kw(Kw::AS) {
            self.bump();
            let name = self.binding_name("a variable name after `INTO`");
            // The error and its fix cover the whole binding (`INTO summary`), where
            // there is a name: a JSON reader replaces the diagnostic's span.
            let (span, replacement) = match &name {
                Ok(name) => (tok.span.to(name.span), format!("INTO {}", name.name)),
                Err(_) => (tok.span, "INTO".to_string()),
            };
            self.diagnostics.push(
                Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    span,
                    format!("`{written}` is not TissLang: the answer is bound with `INTO`"),
                )
                .with_fix("write", span, replacement),
            );
            return Ok(Some(name?));
        }
        if self.eat_kw_or_typo(Kw::INTO) {
            Ok(Some(self.binding_name("a variable name after `INTO`")?))
        } else {
            Ok(None)
        }
    }

    /// WRITE / APPEND content: a heredoc or `FROM expr`.
    fn content(&mut self, what: &str) -> PResult<Content> {
        match self.peek_kind() {
            TokenKind::Heredoc(i) => {
                self.bump();
                Ok(Content::Heredoc(Box::new(self.take_heredoc(i))))
            }
            _ if self.eat_kw_or_typo(Kw::FROM) => {
                Ok(Content::From { expr: self.expr("the value to write")? })
            }
            TokenKind::Str(_) => {
                let tok = self.peek();
                Err(self.error(
                    Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        tok.span,
                        format!("{what} takes its content as a heredoc or `FROM expr`, not a bare string"),
                    )
                    .with_fix(
                        "write the string with `FROM`",
                        tok.span,
                        format!("FROM {}", self.text(tok.span)),
                    ),
                ))
            }
            _ => Err(self.expected(&format!("the {} content: a heredoc (`<<EOF`) or `FROM expr`", what))),
        }
    }

    /// `RUN string [IN string] [TIMEOUT duration]` (the two options in any order).
    /// With the `VAR` that `RUN "c" -> out` stands for, if that was written.
    pub(super) fn run(&mut self) -> PResult<(StmtKind, Option<Stmt>)> {
        let command = self.string("the command to run, a string")?;
        let mut dir = None;
        let mut timeout = None;
        let mut bound = None;
        loop {
            if self.eat_kw_or_typo(Kw::IN) {
                if dir.is_some() {
                    return Err(self.duplicate_option("IN"));
                }
                dir = Some(Box::new(self.string("the directory to run in, a string")?));
            } else if self.eat_kw_or_typo(Kw::TIMEOUT) {
                if timeout.is_some() {
                    return Err(self.duplicate_option("TIMEOUT"));
                }
                if self.peek_kind() == TokenKind::Assign {
                    timeout = Some(self.timeout_assigned()?);
                    continue;
                }
                match self.duration("a duration such as `30s`") {
                    Ok(duration) => timeout = Some(duration),
                    // Missing at the end of its line: keep the RUN (later
                    // statements read LAST_RUN) and go on with the next line.
                    Err(Reported) if self.starts_line() => break,
                    Err(reported) => return Err(reported),
                }
            } else if self.at_kw(Kw::INTO) && self.text(self.peek().span) == "->" && bound.is_none() {
                bound = Some(self.run_arrow()?);
            } else {
                break;
            }
        }
        Ok((StmtKind::Run { command, dir, timeout: timeout.map(Box::new) }, bound))
    }

    fn duplicate_option(&mut self, name: &str) -> Reported {
        let span = Span { start: self.prev_end, end: self.prev_end };
        self.error(Diagnostic::error(codes::UNEXPECTED_TOKEN, span, format!("`{name}` is given twice")))
    }

    /// A timeout's duration. A number without a unit or a string is
    /// reported and taken as the duration it stands for (0 if none): the
    /// operand is all there, so the statement is kept and parsing goes on.
    fn duration(&mut self, what: &str) -> PResult<DurationLit> {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Duration(millis) => {
                self.bump();
                Ok(DurationLit { millis, span: tok.span })
            }
            TokenKind::Int(n) => {
                self.bump();
                if let Some(joined) = self.unit_written_apart(tok.span) {
                    return Ok(joined);
                }
                self.diagnostics.push(
                    Diagnostic::error(codes::UNEXPECTED_TOKEN, tok.span, "a timeout needs a unit").with_fix(
                        "in seconds",
                        tok.span,
                        format!("{n}s"),
                    ),
                );
                let millis = u64::try_from(n).unwrap_or(0).saturating_mul(1000);
                Ok(DurationLit { millis, span: tok.span })
            }
            TokenKind::Str(i) => {
                self.bump();
                let lit = self.take_string(i);
                let mut d = Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    tok.span,
                    "a timeout is a duration literal, not a string",
                );
                let written = lit.as_literal().and_then(crate::written_duration::read);
                if let Some(fix) = written.as_ref().and_then(|w| w.fix()) {
                    d = d.with_fix("drop the quotes", tok.span, fix);
                }
                self.diagnostics.push(d);
                let millis = written.and_then(|w| w.millis.ok()).unwrap_or(0);
                Ok(DurationLit { millis, span: tok.span })
            }
            _ => Err(self.expected(what)),
        }
    }

    /// `TIMEOUT 5 sec`: the number at `number` (consumed) and a unit after
    /// it on the same line, reported as one duration written apart and
    /// consumed. `None` (nothing consumed) if no unit follows.
    fn unit_written_apart(&mut self, number: Span) -> Option<DurationLit> {
        let unit = self.peek();
        if unit.kind != TokenKind::Ident || self.starts_line() {
            return None;
        }
        let joined = format!("{}{}", self.text(number), self.text(unit.span));
        let written = crate::written_duration::read(&joined)?;
        let (millis, fix) = (written.millis.ok()?, written.fix()?);
        self.bump();
        let span = number.to(unit.span);
        self.diagnostics.push(
            Diagnostic::error(codes::UNEXPECTED_TOKEN, span, "a timeout's unit follows its number directly")
                .with_fix("write", span, fix),
        );
        Some(DurationLit { millis, span })
    }

    /// `IF` (at `start`) already consumed: `cond [THEN] block [ELSE (IF ... | block)]`,
    /// or (reported) the braceless `IF cond THEN ... ENDIF` of other dialects.
    fn if_rest(&mut self, start: Span) -> PResult<IfStmt> {
        let condition = self.cond()?;
        let then = self.peek().span;
        let then = self.eat_kw_or_typo(Kw::THEN).then_some(then);
        if self.peek_kind() != TokenKind::LBrace && self.closer_ahead(super::dialect::Construct::If) {
            return self.braceless_if(start, condition, then);
        }
        let then_block = self.block()?;
        let else_if = self.else_if_word();
        let else_branch = if else_if.is_some() || self.eat_kw_or_typo(Kw::ELSE) {
            let if_tok = else_if.unwrap_or_else(|| self.peek());
            if else_if.is_some() || self.eat_kw_or_typo(Kw::IF) {
                if self.depth >= super::MAX_DEPTH {
                    return Err(self.error(Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        if_tok.span,
                        format!("`ELSE IF` chains are nested more than {} deep", super::MAX_DEPTH),
                    )));
                }
                self.depth += 1;
                let nested = self.if_rest(if_tok.span);
                self.depth -= 1;
                Some(Else::If { stmt: Box::new(nested?), span: self.since(if_tok.span) })
            } else {
                Some(Else::Block { block: self.block()? })
            }
        } else {
            None
        };
        Ok(IfStmt { condition, then_block, else_branch })
    }

    /// `CHOOSE [string] { (OPTION|STEP) string block ... }`
    fn choose(&mut self) -> PResult<StmtKind> {
        let prompt = match self.peek_kind() {
            TokenKind::Str(_) => Some(self.string("the question")?),
            _ => None,
        };
        let open = self.expect(TokenKind::LBrace, "`{` and the options")?;
        let mut options = Vec::new();
        loop {
            let tok = self.peek();
            match tok.kind {
                TokenKind::RBrace => {
                    self.bump();
                    break;
                }
                TokenKind::Eof => {
                    return Err(self.error(
                        Diagnostic::error(
                            codes::UNEXPECTED_TOKEN,
                            tok.span,
                            "the `CHOOSE` block is never closed",
                        )
                        .with_label(open.span, "opened here"),
                    ));
                }
                _ => {}
            }
            let is_step = self.at_kw(Kw::STEP);
            if !(self.eat_kw(Kw::OPTION) || self.eat_kw(Kw::STEP) || self.eat_kw_typo(Kw::OPTION)) {
                let _ = self.expected("`OPTION \"label\" { ... }`");
                // Skip to the next option or the end of the CHOOSE.
                while !matches!(
                    self.peek_kind(),
                    TokenKind::Eof | TokenKind::RBrace | TokenKind::Kw(Kw::OPTION) | TokenKind::Kw(Kw::STEP)
                ) {
                    if self.bump().kind == TokenKind::LBrace {
                        self.skip_balanced_from_open();
                    }
                }
                continue;
            }
            let label = self.string("the option's label, a string")?;
            let body = self.block()?;
            options.push(ChooseOption { label, body, is_step, span: self.since(tok.span) });
        }
        Ok(StmtKind::Choose { prompt, options: exactly(options) })
    }

    /// `SET_BUDGET` already consumed (at `start`): `DIM = value`.
    pub(super) fn budget(&mut self, start: Span) -> PResult<Budget> {
        let tok = self.peek();
        let dim_kws = [Kw::API_CALLS, Kw::TOKEN_COUNT, Kw::EXECUTION_TIME, Kw::RUN_COUNT, Kw::INSTRUCTIONS];
        let kw = match tok.kind {
            TokenKind::Kw(kw) if dim_kws.contains(&kw) => kw,
            TokenKind::Ident => match self.keyword_typo(&dim_kws, "a cost dimension") {
                Some(kw) => kw,
                None => return Err(self.expected(
                    "a cost dimension (API_CALLS, TOKEN_COUNT, EXECUTION_TIME, RUN_COUNT or INSTRUCTIONS)",
                )),
            },
            _ => {
                return Err(self.expected(
                    "a cost dimension (API_CALLS, TOKEN_COUNT, EXECUTION_TIME, RUN_COUNT or INSTRUCTIONS)",
                ));
            }
        };
        self.bump();
        let dim = Dim::from_name(kw.as_str()).ok_or(Reported)?;
        self.assign()?;
        let value = self.expr("the budget: an integer, or a duration for EXECUTION_TIME")?;
        Ok(Budget { dim, dim_span: tok.span, value, span: self.since(start) })
    }
}

/// `items` in a vector of exactly their number, for the tree: a vector's
/// first push makes room for four, and a list of two (`WITH diff, ctx`)
/// kept 48 bytes empty beside each prompt. A copy, because shrinking in
/// place gives nothing back to the allocator's size classes.
fn exactly<T>(mut items: Vec<T>) -> Vec<T> {
    if items.len() == items.capacity() {
        return items;
    }
    let mut exact = Vec::with_capacity(items.len());
    exact.append(&mut items);
    exact
}
