//! Conditions and expressions (book: reference/expressions.md).

use smallvec::SmallVec;

use super::{PResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{
    CmpOp, Cond, CondKind, Expr, FileCond, FileTest, Ident, Path, PathRoot, StrLit, StrOp, Test, TestOp,
};
use crate::syntax::path_view::last_run_field;
use crate::syntax::span::Span;

use crate::syntax::token::{Kw, TokenKind};

/// Words that may follow an expression inside a condition.
/// (`[1..5]` are the string operators, which `NOT` may precede.)
const CONDITION_OPERATORS: &[Kw] =
    &[Kw::IS_EMPTY, Kw::CONTAINS, Kw::STARTS_WITH, Kw::ENDS_WITH, Kw::MATCHES, Kw::NOT, Kw::EXISTS];

impl Parser<'_> {
    /// `cond = conj { OR conj }`
    pub(super) fn cond(&mut self) -> PResult<Cond> {
        let first = self.conj()?;
        if !self.eat_kw_or_typo(Kw::OR) {
            return Ok(first);
        }
        let start = first.span();
        let operands = self.chain(first, Kw::OR, Self::conj)?;
        Ok(Cond::new(
            CondKind::Or { operands: operands.into_boxed_slice(), span: Span::default() },
            self.since(start),
        ))
    }

    /// `conj = neg { AND neg }`
    fn conj(&mut self) -> PResult<Cond> {
        let first = self.neg()?;
        if !self.eat_kw_or_typo(Kw::AND) {
            return Ok(first);
        }
        let start = first.span();
        let operands = self.chain(first, Kw::AND, Self::neg)?;
        Ok(Cond::new(
            CondKind::And { operands: operands.into_boxed_slice(), span: Span::default() },
            self.since(start),
        ))
    }

    /// The operands of a chain after `first` and its keyword: each parsed
    /// by `operand`, while `keyword` follows. They collect on the shared
    /// stack (a nested chain's above them) and leave it in a vector of
    /// exactly their number, also when one fails.
    fn chain(
        &mut self,
        first: Cond,
        keyword: Kw,
        operand: fn(&mut Self) -> PResult<Cond>,
    ) -> PResult<Vec<Cond>> {
        let mark = self.conds.len();
        self.conds.push(first);
        let parsed = loop {
            match operand(self) {
                Ok(cond) => self.conds.push(cond),
                Err(e) => break Err(e),
            }
            if !self.eat_kw_or_typo(keyword) {
                break Ok(());
            }
        };
        let operands = self.conds.split_off(mark);
        parsed.map(|()| operands)
    }

    /// `neg = NOT neg | atom`
    fn neg(&mut self) -> PResult<Cond> {
        let tok = self.peek();
        if self.eat_kw(Kw::NOT) {
            let operand = self.nested(|p| p.neg())?;
            return Ok(Cond::new(
                CondKind::Not { operand: Box::new(operand), span: Span::default() },
                self.since(tok.span),
            ));
        }
        self.atom()
    }

    /// Runs `f` one nesting level deeper, refusing input nested past the cap.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= super::MAX_DEPTH {
            let span = self.peek().span;
            return Err(self.error(Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                span,
                format!("the condition is nested more than {} deep", super::MAX_DEPTH),
            )));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    fn atom(&mut self) -> PResult<Cond> {
        let tok = self.peek();
        if tok.kind == TokenKind::LParen {
            self.bump();
            let inner = self.nested(|p| p.cond())?;
            self.expect(TokenKind::RParen, "`)`")?;
            return Ok(Cond::new(inner.kind, self.since(tok.span)));
        }
        if self.eat_kw(Kw::FILE) {
            let path = self.string("the file's path, a string")?;
            let misplaced_not = self.at_kw(Kw::NOT)
                && matches!(self.peek_nth_kind(1), TokenKind::Kw(Kw::EXISTS | Kw::IS_EMPTY | Kw::CONTAINS));
            if misplaced_not {
                self.bump();
            }
            let test_start = self.peek().span.start;
            let test = if self.eat_kw_or_typo(Kw::EXISTS) {
                FileTest::Exists
            } else if self.eat_kw_or_typo(Kw::IS_EMPTY) {
                FileTest::IsEmpty
            } else if self.eat_kw_or_typo(Kw::CONTAINS) {
                FileTest::Contains { needle: self.expr("what the file must contain")? }
            } else {
                return Err(self.expected("`EXISTS`, `IS_EMPTY` or `CONTAINS` after `FILE \"path\"`"));
            };
            let path_end = path.span.end;
            let file = Cond::new(
                CondKind::File { file: Box::new(FileCond { path, test }), span: Span::default() },
                self.since(tok.span),
            );
            if misplaced_not {
                return Ok(self.not_before_file(file, path_end, test_start));
            }
            return Ok(file);
        }
        if let Some(file) = self.file_test_word() {
            return file;
        }
        let lhs = self.expr("a condition")?;
        let start = lhs.span();
        let op_tok = self.peek();
        if let Some(op) = self.foreign_operator() {
            let rhs = self.expr("the right side of the comparison")?;
            return Ok(Cond::new(
                CondKind::Test(Test::new(lhs, TestOp::Compare(op), rhs)),
                self.since(start),
            ));
        }
        let kind = match op_tok.kind {
            TokenKind::EqEq
            | TokenKind::NotEq
            | TokenKind::Lt
            | TokenKind::Le
            | TokenKind::Gt
            | TokenKind::Ge => {
                self.bump();
                let op = match op_tok.kind {
                    TokenKind::EqEq => CmpOp::Eq,
                    TokenKind::NotEq => CmpOp::Ne,
                    TokenKind::Lt => CmpOp::Lt,
                    TokenKind::Le => CmpOp::Le,
                    TokenKind::Gt => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                let rhs = self.expr("the right side of the comparison")?;
                CondKind::Test(Test::new(lhs, TestOp::Compare(op), rhs))
            }
            TokenKind::Assign => {
                self.bump();
                self.diagnostics.push(
                    Diagnostic::error(codes::UNEXPECTED_TOKEN, op_tok.span, "`=` binds; comparison is `==`")
                        .with_fix("compare with", op_tok.span, "=="),
                );
                let rhs = self.expr("the right side of the comparison")?;
                CondKind::Test(Test::new(lhs, TestOp::Compare(CmpOp::Eq), rhs))
            }
            _ => {
                let kw = match op_tok.kind {
                    TokenKind::Kw(kw) if CONDITION_OPERATORS.contains(&kw) => Some(kw),
                    TokenKind::Ident => self
                        .operator_word(CONDITION_OPERATORS)
                        .or_else(|| self.keyword_typo(CONDITION_OPERATORS, "an operator")),
                    _ => None,
                };
                match kw {
                    None => CondKind::Expr { expr: lhs, span: Span::default() },
                    Some(Kw::IS_EMPTY) => {
                        self.bump();
                        CondKind::IsEmpty { operand: lhs, span: Span::default() }
                    }
                    Some(Kw::EXISTS) => {
                        self.bump();
                        match lhs.into_string(self.src) {
                            Ok(lit) => return Ok(self.file_exists_without_file(lit, start)),
                            Err(lhs) => CondKind::Exists { operand: lhs, span: Span::default() },
                        }
                    }
                    Some(Kw::NOT)
                        if matches!(self.peek_nth_kind(1), TokenKind::Kw(Kw::EXISTS | Kw::IS_EMPTY)) =>
                    {
                        return Ok(self.not_after_operand(lhs));
                    }
                    Some(kw) => {
                        self.bump();
                        let (negated, kw) = if kw == Kw::NOT {
                            let next = match self.peek_kind() {
                                TokenKind::Kw(k) if CONDITION_OPERATORS[1..5].contains(&k) => Some(k),
                                TokenKind::Ident => self
                                    .operator_word(&CONDITION_OPERATORS[1..5])
                                    .or_else(|| self.keyword_typo(&CONDITION_OPERATORS[1..5], "an operator")),
                                _ => None,
                            };
                            let Some(next) = next else {
                                return Err(self.expected(
                                    "`CONTAINS`, `STARTS_WITH`, `ENDS_WITH` or `MATCHES` after `NOT`",
                                ));
                            };
                            self.bump();
                            (true, next)
                        } else {
                            (false, kw)
                        };
                        let op = match kw {
                            Kw::CONTAINS => StrOp::Contains,
                            Kw::STARTS_WITH => StrOp::StartsWith,
                            Kw::ENDS_WITH => StrOp::EndsWith,
                            _ => StrOp::Matches,
                        };
                        let rhs = self.expr(match op {
                            StrOp::Contains => "the right side of `CONTAINS`",
                            StrOp::StartsWith => "the right side of `STARTS_WITH`",
                            StrOp::EndsWith => "the right side of `ENDS_WITH`",
                            StrOp::Matches => "the right side of `MATCHES`",
                        })?;
                        CondKind::Test(Test::new(lhs, TestOp::Str { op, negated }, rhs))
                    }
                }
            }
        };
        Ok(Cond::new(kind, self.since(start)))
    }

    /// `FILE "x" NOT CONTAINS "y"`, parsed as `file` with the `NOT` skipped:
    /// reported with the whole test rewritten as `NOT FILE "x" CONTAINS "y"`
    /// (the path ends at `path_end`, the test starts at `test_start`), and
    /// taken as that.
    fn not_before_file(&mut self, file: Cond, path_end: u32, test_start: u32) -> Cond {
        let span = file.span();
        let fix = format!(
            "NOT {} {}",
            self.text(Span { start: span.start, end: path_end }),
            self.text(Span { start: test_start, end: span.end })
        );
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                span,
                "`NOT` negates the whole file test, so it stands before `FILE`",
            )
            .with_fix("write", span, fix),
        );
        Cond::new(CondKind::Not { operand: Box::new(file), span: Span::default() }, span)
    }

    /// `"p" EXISTS` (consumed, from `start`): a string is no optional
    /// field, so this is a file test without its `FILE`; reported with it
    /// and taken as it.
    fn file_exists_without_file(&mut self, path: StrLit, start: Span) -> Cond {
        let span = self.since(start);
        let fix = format!("FILE {}", self.text(span));
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                span,
                format!("whether a file exists is tested with `FILE`: `{fix}`"),
            )
            .with_fix("write", span, fix),
        );
        Cond::new(
            CondKind::File {
                file: Box::new(FileCond { path, test: FileTest::Exists }),
                span: Span::default(),
            },
            span,
        )
    }

    /// `x NOT EXISTS` / `x NOT IS_EMPTY` (the `NOT` current): reported with
    /// the test rewritten as `NOT x EXISTS`, and taken as that.
    fn not_after_operand(&mut self, operand: Expr) -> Cond {
        let not = self.bump();
        let test = self.bump();
        let span = self.since(operand.span());
        let fix = format!("NOT {} {}", self.text(operand.span()), self.text(test.span));
        let kind = if test.kind == TokenKind::Kw(Kw::EXISTS) {
            CondKind::Exists { operand, span: Span::default() }
        } else {
            CondKind::IsEmpty { operand, span: Span::default() }
        };
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                not.span,
                format!("`NOT` negates the whole test, so it stands first: `{fix}`"),
            )
            .with_fix("write", span, fix),
        );
        let inner = Cond::new(kind, span);
        Cond::new(CondKind::Not { operand: Box::new(inner), span: Span::default() }, span)
    }

    /// A comparison operator of another language, written as two tokens with
    /// nothing between them (`=>`, `=<`, `<>`, `===`, `!==`): reported with
    /// the TissLang operator, consumed, and returned as that operator.
    fn foreign_operator(&mut self) -> Option<CmpOp> {
        let first = self.peek();
        let second = self.peek_nth(1)?;
        if second.span.start != first.span.end {
            return None;
        }
        let (op, fix) = match (first.kind, second.kind) {
            (TokenKind::Assign, TokenKind::Gt) => (CmpOp::Ge, ">="),
            (TokenKind::Assign, TokenKind::Lt) => (CmpOp::Le, "<="),
            (TokenKind::Lt, TokenKind::Gt) | (TokenKind::NotEq, TokenKind::Assign) => (CmpOp::Ne, "!="),
            (TokenKind::EqEq, TokenKind::Assign) => (CmpOp::Eq, "=="),
            _ => return None,
        };
        self.bump();
        self.bump();
        let span = first.span.to(second.span);
        let written = self.text(span);
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                span,
                format!("`{written}` is not an operator; did you mean `{fix}`?"),
            )
            .with_fix("compare with", span, fix),
        );
        Some(op)
    }

    /// `expr = string | integer | duration | TRUE | FALSE | (ident | LAST_RUN | COST) { . FIELD }`
    pub(super) fn expr(&mut self, what: &str) -> PResult<Expr> {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Str(i) => {
                self.bump();
                let lit = self.take_string(i);
                Ok(Expr::string(lit, self.src))
            }
            TokenKind::Int(value) => {
                self.bump();
                Ok(Expr::int(value, tok.span))
            }
            TokenKind::Duration(millis) => {
                self.bump();
                Ok(Expr::duration(millis, tok.span))
            }
            TokenKind::Kw(Kw::TRUE) => {
                self.bump();
                Ok(Expr::bool(true, tok.span))
            }
            TokenKind::Kw(Kw::FALSE) => {
                self.bump();
                Ok(Expr::bool(false, tok.span))
            }
            TokenKind::Kw(Kw::LAST_RUN) => {
                self.bump();
                let path = self.path_fields(PathRoot::LastRun { span: tok.span })?;
                let span = self.since(tok.span);
                Ok(match last_run_field(&path) {
                    Some((field, at)) => Expr::last_run(field, at, span),
                    None => Expr::of_path(path),
                })
            }
            TokenKind::Kw(Kw::COST) => {
                self.bump();
                let path = self.path_fields(PathRoot::Cost { span: tok.span })?;
                Ok(Expr::of_path(path))
            }
            TokenKind::Ident => {
                self.bump();
                let word = self.text(tok.span);
                match [Kw::TRUE, Kw::FALSE, Kw::LAST_RUN]
                    .into_iter()
                    .find(|kw| kw.as_str().eq_ignore_ascii_case(word))
                {
                    Some(kw) => {
                        self.diagnostics.push(
                            Diagnostic::error(
                                codes::MISSPELLED_KEYWORD,
                                tok.span,
                                format!("`{word}` is the keyword `{}` in the wrong case", kw.as_str()),
                            )
                            .with_fix(
                                "keywords are uppercase; write",
                                tok.span,
                                kw.as_str(),
                            ),
                        );
                        match kw {
                            Kw::TRUE => Ok(Expr::bool(true, tok.span)),
                            Kw::FALSE => Ok(Expr::bool(false, tok.span)),
                            _ => {
                                let path = self.path_fields(PathRoot::LastRun { span: tok.span })?;
                                Ok(Expr::of_path(path))
                            }
                        }
                    }
                    None if self.peek_kind() != TokenKind::Dot => Ok(Expr::var(tok.span)),
                    None => {
                        let ident = Ident { name: word.into(), span: tok.span };
                        let path = self.path_fields(PathRoot::Var { ident })?;
                        Ok(Expr::of_path(path))
                    }
                }
            }
            TokenKind::Kw(
                kw @ (Kw::STDOUT | Kw::STDERR | Kw::EXIT_CODE | Kw::DURATION | Kw::TIMED_OUT | Kw::COMMAND),
            ) => {
                self.bump();
                Err(self.error(
                    Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        tok.span,
                        format!("`{}` is a field of `LAST_RUN`, not a value by itself", kw.as_str()),
                    )
                    .with_fix(
                        "read the field of the last command",
                        tok.span,
                        format!("LAST_RUN.{}", kw.as_str()),
                    ),
                ))
            }
            TokenKind::Heredoc(_) => {
                self.bump();
                Err(self.error(Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    tok.span,
                    "a heredoc is only the content of WRITE or APPEND, not a value",
                )))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// `{ . FIELD }` after a path's root. A field may be any word, keywords included.
    fn path_fields(&mut self, root: PathRoot) -> PResult<Path> {
        let start = root.span();
        let mut fields = SmallVec::new();
        while self.peek_kind() == TokenKind::Dot {
            self.bump();
            let tok = self.peek();
            match tok.kind {
                TokenKind::Ident | TokenKind::Kw(_) => {
                    self.bump();
                    fields.push(Ident { name: self.text(tok.span).into(), span: tok.span });
                }
                _ => return Err(self.expected("a field name after `.`")),
            }
        }
        Ok(Path { root, fields, span: self.since(start) })
    }
}
