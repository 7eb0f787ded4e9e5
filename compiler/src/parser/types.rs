//! Types of model answers (book: reference/types.md, TissLang 1.1): `TYPE Name = type`
//! and the type after `PROMPT_AGENT … INTO x AS`.
//!
//! ```ebnf
//! typedef = "TYPE" Ident "=" type ;
//! type    = "STRING" | "INT" | "BOOL" | string { "|" string }
//!         | "LIST" "OF" type | "{" field { "," field } [ "," ] "}" | Ident ;
//! field   = word [ "?" ] ":" type ;
//! ```
//!
//! Where the spec is silent: a record may end with a comma (`{ a: INT, }`;
//! `tissc fmt` writes one after the last field of a record laid out one
//! field per line, none on one line); a field may be named by any word, a
//! keyword too, as a field after `.` may (`{ KIND: STRING }`), and a type by
//! any identifier. The common slips are reported with the exact form and
//! parsed on as it: `LIST STRING` (`LIST OF STRING`), `"a" | b` (`"a" |
//! "b"`), `string` (`STRING`), `{"a": INT}` (`{ a: INT }`), a missing `:`
//! or `,`, `x: INT?` (`x?: INT`), `TYPE T { … }` (`TYPE T = { … }`).

use super::{PResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{FieldDecl, Ident, StrLit, TypeDef, TypeExpr, TypeKind};
use crate::syntax::span::Span;
use crate::syntax::token::{Kw, TokenKind};

/// The type keywords a word in another case stands for.
const TYPE_WORDS: &[Kw] = &[Kw::STRING, Kw::INT, Kw::BOOL, Kw::LIST];

/// What a type may be, for "expected …" messages.
const A_TYPE: &str =
    "a type (`STRING`, `INT`, `BOOL`, `\"a\" | \"b\"`, `LIST OF type`, `{ field: type }` or a TYPE's name)";

impl Parser<'_> {
    /// `TYPE` (at `start`) already consumed: `Name = type`.
    pub(super) fn typedef_rest(&mut self, start: Span) -> PResult<TypeDef> {
        let name = self.type_name()?;
        match self.peek_kind() {
            TokenKind::Assign | TokenKind::EqEq => self.assign_once()?,
            TokenKind::Colon => {
                let tok = self.bump();
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        tok.span,
                        "expected `=`, found `:`: a type is named with `TYPE Name = type`",
                    )
                    .with_fix("write", tok.span, "="),
                );
            }
            kind if starts_type(kind) => {
                // `TYPE Review { … }`: the `=` is missing; take the type as given.
                let at = Span { start: name.span.end, end: name.span.end };
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        self.peek().span,
                        format!("expected `=` after the type's name: `TYPE {} = …`", name.name),
                    )
                    .with_fix("insert", at, " ="),
                );
            }
            _ => return Err(self.expected("`=` after the type's name")),
        }
        let ty = self.type_expr()?;
        Ok(TypeDef { name, ty, span: self.since(start) })
    }

    /// `=` (or `==`, reported).
    fn assign_once(&mut self) -> PResult<()> {
        let tok = self.bump();
        if tok.kind == TokenKind::EqEq {
            self.diagnostics.push(
                Diagnostic::error(codes::UNEXPECTED_TOKEN, tok.span, "expected `=`, found `==`").with_fix(
                    "a type is named with a single",
                    tok.span,
                    "=",
                ),
            );
        }
        Ok(())
    }

    /// The name a `TYPE` gives: an identifier, not a reserved word.
    fn type_name(&mut self) -> PResult<Ident> {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Ident => {
                self.bump();
                Ok(Ident { name: self.text(tok.span).into(), span: tok.span })
            }
            TokenKind::Kw(kw) => {
                self.bump();
                let word = kw.as_str();
                // `TYPE REVIEW` → `Review`, the usual spelling of a type's name.
                let mut name = word[..1].to_string();
                name.push_str(&word[1..].to_ascii_lowercase());
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::RESERVED_WORD_AS_NAME,
                        tok.span,
                        format!("`{word}` is a reserved word and cannot name a type"),
                    )
                    .with_suggestion(
                        "names are case-sensitive; use another case",
                        tok.span,
                        name.clone(),
                    ),
                );
                Ok(Ident { name: name.into(), span: tok.span })
            }
            _ => Err(self.expected("the type's name, an identifier (`TYPE Review = …`)")),
        }
    }

    /// A type, possibly an enum of string literals joined by `|`.
    pub(super) fn type_expr(&mut self) -> PResult<TypeExpr> {
        if self.depth >= super::MAX_DEPTH {
            let span = self.peek().span;
            return Err(self.error(Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                span,
                format!("the type is nested more than {} deep", super::MAX_DEPTH),
            )));
        }
        self.depth += 1;
        let result = self.type_inner();
        self.depth -= 1;
        result
    }

    fn type_inner(&mut self) -> PResult<TypeExpr> {
        let tok = self.peek();
        let kind = match tok.kind {
            TokenKind::Kw(Kw::STRING) => {
                self.bump();
                TypeKind::String
            }
            TokenKind::Kw(Kw::INT) => {
                self.bump();
                TypeKind::Int
            }
            TokenKind::Kw(Kw::BOOL) => {
                self.bump();
                TypeKind::Bool
            }
            TokenKind::Kw(Kw::LIST) => {
                self.bump();
                self.list_rest(tok.span)?
            }
            TokenKind::Str(_) => return self.enum_type(),
            TokenKind::LBrace => self.record()?,
            TokenKind::Ident => {
                let word = self.text(tok.span);
                if let Some(&kw) = TYPE_WORDS.iter().find(|kw| kw.as_str().eq_ignore_ascii_case(word)) {
                    // `string`, `Int`: the keyword in another case.
                    self.bump();
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::MISSPELLED_KEYWORD,
                            tok.span,
                            format!(
                                "`{word}` is not a type: keywords are uppercase, so write `{}`",
                                kw.as_str()
                            ),
                        )
                        .with_fix(
                            "write the keyword in uppercase",
                            tok.span,
                            kw.as_str(),
                        ),
                    );
                    match kw {
                        Kw::STRING => TypeKind::String,
                        Kw::INT => TypeKind::Int,
                        Kw::BOOL => TypeKind::Bool,
                        _ => self.list_rest(tok.span)?,
                    }
                } else if self.peek_nth_kind(1) == TokenKind::Pipe {
                    // `low | high`: an enum of bare words.
                    return self.enum_type();
                } else {
                    self.bump();
                    TypeKind::Named { name: Ident { name: word.into(), span: tok.span } }
                }
            }
            _ => return Err(self.expected(A_TYPE)),
        };
        let ty = TypeExpr { kind, span: self.since(tok.span) };
        if matches!(self.peek_kind(), TokenKind::Pipe | TokenKind::Kw(Kw::OR)) {
            let tok = self.peek();
            return Err(self.error(
                Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    tok.span,
                    format!(
                        "`{}` joins string literals into an enum (`\"low\" | \"high\"`); a value of one of \
                         several types is not TissLang",
                        self.text(tok.span)
                    ),
                )
                .with_note("give the answer one type: a record with an optional field for each case, say"),
            ));
        }
        Ok(ty)
    }

    /// `LIST` (at `start`) consumed: `OF type`.
    fn list_rest(&mut self, start: Span) -> PResult<TypeKind> {
        if !self.eat_kw_or_typo(Kw::OF) {
            if !starts_type(self.peek_kind()) {
                return Err(self.expected("`OF` after `LIST` (`LIST OF STRING`)"));
            }
            // `LIST STRING`: the `OF` is missing; take the element type as given.
            let found = self.peek().span;
            self.diagnostics.push(
                Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    found,
                    format!(
                        "expected `OF`, found `{}`: a list type is written `LIST OF {}`",
                        self.text(found),
                        self.text(found)
                    ),
                )
                .with_fix("write", start, "LIST OF"),
            );
        }
        let element = self.type_expr()?;
        Ok(TypeKind::List { element: Box::new(element) })
    }

    /// `"a" | "b" | …`: the first alternative is current (a string, or a
    /// bare word, reported).
    fn enum_type(&mut self) -> PResult<TypeExpr> {
        let start = self.peek().span;
        let mut literals = vec![self.enum_literal()?];
        loop {
            match self.peek_kind() {
                TokenKind::Pipe => {
                    self.bump();
                }
                TokenKind::Kw(Kw::OR) => {
                    // `||` (lexed as OR, reported there) or the word `OR`.
                    let tok = self.bump();
                    if self.text(tok.span) == "OR" {
                        self.diagnostics.push(
                            Diagnostic::error(
                                codes::UNEXPECTED_TOKEN,
                                tok.span,
                                "the literals of an enum are joined with `|`, not `OR`",
                            )
                            .with_fix("write", tok.span, "|"),
                        );
                    }
                }
                _ => break,
            }
            literals.push(self.enum_literal()?);
        }
        Ok(TypeExpr { kind: TypeKind::Enum { literals }, span: self.since(start) })
    }

    /// One literal of an enum: a string without `${}`; a bare word is
    /// reported with its quoted form and taken as it.
    fn enum_literal(&mut self) -> PResult<StrLit> {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Str(i) => {
                self.bump();
                let lit = self.take_string(i);
                if lit.as_literal().is_none() {
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::UNEXPECTED_TOKEN,
                            tok.span,
                            "an enum's literal is plain text: it cannot interpolate `${…}`",
                        )
                        .with_note("the model answers with one of the literals as written"),
                    );
                }
                Ok(lit)
            }
            TokenKind::Ident => {
                self.bump();
                let word = self.text(tok.span);
                let quoted = format!("\"{word}\"");
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        tok.span,
                        format!("the literals of an enum are strings: write `{quoted}`"),
                    )
                    .with_suggestion("quote it", tok.span, quoted),
                );
                let text = crate::syntax::ast::StrParts::one(crate::syntax::ast::StrPart::Text {
                    text: word.into(),
                });
                Ok(StrLit { parts: text, span: tok.span })
            }
            TokenKind::Kw(Kw::STRING | Kw::INT | Kw::BOOL | Kw::LIST) | TokenKind::LBrace => Err(self.error(
                Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    tok.span,
                    format!(
                        "expected a string literal, found {}: `|` joins string literals into an enum; \
                         a value of one of several types is not TissLang",
                        self.found(tok.kind, tok.span)
                    ),
                )
                .with_note("give the answer one type: a record with an optional field for each case, say"),
            )),
            _ => Err(self.expected("a string literal (an enum is written `\"low\" | \"high\"`)")),
        }
    }

    /// How a token is named in a message.
    fn found(&self, kind: TokenKind, span: Span) -> String {
        match kind {
            TokenKind::Ident | TokenKind::Kw(_) => format!("`{}`", self.text(span)),
            kind => kind.describe().to_string(),
        }
    }

    /// `{ field, … [,] }`, the `{` current.
    fn record(&mut self) -> PResult<TypeKind> {
        let open = self.bump();
        let mut fields = Vec::new();
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
                            "this record type is never closed: expected `}`",
                        )
                        .with_label(open.span, "record opened here"),
                    ));
                }
                _ => {}
            }
            match self.field() {
                Ok(field) => fields.push(field),
                Err(reported) => {
                    self.skip_record();
                    return Err(reported);
                }
            }
            match self.peek_kind() {
                TokenKind::Comma => {
                    self.bump();
                }
                TokenKind::RBrace => {}
                // The next field, with no comma before it.
                TokenKind::Ident | TokenKind::Kw(_) | TokenKind::Str(_)
                    if matches!(self.peek_nth_kind(1), TokenKind::Colon | TokenKind::Question) =>
                {
                    let at = Span { start: self.prev_end, end: self.prev_end };
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::UNEXPECTED_TOKEN,
                            self.peek().span,
                            "expected `,` or `}` after a field: the fields of a record are separated by commas",
                        )
                        .with_fix("insert", at, ","),
                    );
                }
                _ => {
                    let reported = self.expected("`,` or `}` after the field");
                    self.skip_record();
                    return Err(reported);
                }
            }
        }
        if fields.is_empty() {
            let span = self.since(open.span);
            self.diagnostics.push(
                Diagnostic::error(codes::UNEXPECTED_TOKEN, span, "a record type needs at least one field")
                    .with_note("write its fields as `{ name: STRING, count?: INT }`"),
            );
        }
        Ok(TypeKind::Record { fields })
    }

    /// After an error inside a record: skips past its `}`, or up to a line
    /// that starts an item or a statement (the `}` may be missing), so the
    /// rest of the record is not read as items.
    fn skip_record(&mut self) {
        loop {
            let tok = self.peek();
            match tok.kind {
                TokenKind::Eof => return,
                TokenKind::RBrace => {
                    self.bump();
                    return;
                }
                TokenKind::LBrace => {
                    self.bump();
                    self.skip_balanced_from_open();
                }
                TokenKind::Kw(kw)
                    if (Kw::ITEM_STARTS.contains(&kw) || kw.starts_statement())
                        && self.starts_line()
                        && !matches!(self.peek_nth_kind(1), TokenKind::Colon | TokenKind::Question) =>
                {
                    return;
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    /// `name [?] : type`
    fn field(&mut self) -> PResult<FieldDecl> {
        let tok = self.peek();
        let name = match tok.kind {
            TokenKind::Ident | TokenKind::Kw(_) => {
                self.bump();
                Ident { name: self.text(tok.span).into(), span: tok.span }
            }
            // `"verdict": …`, as in JSON.
            TokenKind::Str(i) => {
                self.bump();
                let lit = self.take_string(i);
                let word = lit.as_literal().filter(|w| is_word(w)).map(str::to_string);
                let Some(word) = word else {
                    return Err(self.error(Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        tok.span,
                        "a field's name is a word (letters, digits, `_`), not a string",
                    )));
                };
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        tok.span,
                        format!("a field's name is written bare, without quotes: `{word}`"),
                    )
                    .with_fix("drop the quotes", tok.span, word.clone()),
                );
                Ident { name: word.into(), span: tok.span }
            }
            _ => return Err(self.expected("a field name (`{ name: STRING }`)")),
        };
        let optional = self.peek_kind() == TokenKind::Question;
        if optional {
            self.bump();
        }
        match self.peek_kind() {
            TokenKind::Colon => {
                self.bump();
            }
            TokenKind::Assign => {
                let tok = self.bump();
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        tok.span,
                        "expected `:`, found `=`: a field is written `name: type`",
                    )
                    .with_fix("write", tok.span, ":"),
                );
            }
            kind if starts_type(kind) && !self.starts_line() => {
                let at = Span { start: self.prev_end, end: self.prev_end };
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::UNEXPECTED_TOKEN,
                        self.peek().span,
                        format!("expected `:` after the field name: `{}: …`", name.name),
                    )
                    .with_fix("insert", at, ":"),
                );
            }
            _ => return Err(self.expected("`:` and the field's type (`name: STRING`)")),
        }
        let ty = self.type_expr()?;
        let mut optional = optional;
        if self.peek_kind() == TokenKind::Question && !optional {
            // `files: LIST OF STRING?`: the `?` belongs after the name.
            let question = self.bump();
            let span = Span { start: name.span.end, end: question.span.end };
            let fix = format!("?{}", self.text(Span { start: name.span.end, end: ty.span.end }));
            self.diagnostics.push(
                Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    question.span,
                    format!("an optional field has its `?` after its name: `{}?: …`", name.name),
                )
                .with_fix("write", span, fix),
            );
            optional = true;
        }
        Ok(FieldDecl { name, optional, ty, span: self.since(tok.span) })
    }
}

/// Whether a token can start a type (for reporting a missing `=`, `:` or `OF`).
fn starts_type(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Kw(Kw::STRING | Kw::INT | Kw::BOOL | Kw::LIST) | TokenKind::Str(_) | TokenKind::LBrace
    )
}

fn is_word(text: &str) -> bool {
    text.bytes().next().is_some_and(crate::lexer::is_ident_start)
        && text.bytes().all(crate::lexer::is_ident_continue)
}
