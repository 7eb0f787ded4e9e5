//! The dialect table: what plans written in earlier TissLang (the upstream
//! project's docs, its parser tests, its integration guides) and in
//! neighbouring languages say, and the TissLang that means the same. Each
//! form is recognised where the parser (or, for characters no token starts
//! with, the lexer) fails on it, reported as ONE error whose replacement is
//! exact, and parsed on as what it means, so later errors still show.
//!
//! | written | replacement | where |
//! |---|---|---|
//! | `// note`, `-- note` | `# note` | lexer |
//! | `'text'` | `"text"` | lexer |
//! | `$x`, `${x}` outside a string | `x` | lexer |
//! | `RUN ["ls", "-l"]` | `RUN "ls -l"` | lexer |
//! | `&&`, `\|\|` | `AND`, `OR` | lexer |
//! | `#tiss! ...`, `#Tiss_Version` | `#TISS! ...`, `#TISS_VERSION` | lexer |
//! | `PROMPT_AGENT "q" -> a`, `... AS a` | `... INTO a` | [`Parser::optional_into`] |
//! | `RUN "c" -> out` | `RUN "c"` + `VAR out = LAST_RUN.STDOUT` | [`Parser::run_arrow`] |
//! | `ASSERT FILE_EXISTS "p"` ([`FILE_TESTS`]) | `ASSERT FILE "p" EXISTS` | [`Parser::file_test_word`] |
//! | `ASSERT x = y` | `ASSERT x == y` | cond parser |
//! | `answer == yes`, `answer CONTAINS done` (unbound word) | `"yes"`, `"done"` | checker |
//! | `IF c THEN … ELIF … ELSE … ENDIF` | the braced `IF c { … } ELSE IF … { … } ELSE { … }` | [`Parser::braceless_if`] |
//! | `STEP "s"` … `ENDSTEP` | `STEP "s" { … }` | [`Parser::braceless_step`] |
//! | `} ELIF c {` ([`ELSE_IF_WORDS`]) | `} ELSE IF c {` | [`Parser::else_if_word`] |
//! | a stray `ENDSTEP`/`ENDIF`/`END` after `}` | (deleted) | [`Parser::stray_closer`] |
//! | `EXPECT c`, `PRINT "m"`, … ([`STATEMENT_WORDS`]) | `ASSERT c`, `LOG "m"`, … | [`Parser::dialect_statement`] |
//! | `THINK "…"` and other unknown words | none: the statements, nearest first | [`Parser::dialect_statement`] |
//! | `x INCLUDES "y"`, `HAS`, … ([`OPERATOR_WORDS`](super::foreign::OPERATOR_WORDS)) | `x CONTAINS "y"`, … | [`Parser::operator_word`] |
//! | `FOR x IN [...] {`, `WHILE c {`, … ([`LOOP_WORDS`](super::foreign::LOOP_WORDS)) | none: one `STEP` per item, or a `DEFINE_TASK` called per item | [`Parser::foreign_loop`] |
//! | `STEP build {`, `CALL build` (a bare name) | `STEP "build" {`, `CALL "build"` | [`Parser::name_string`] |
//! | `True`, `true`, `false` | `TRUE`, `FALSE` | expression parser |
//! | `TIMEOUT=30`, `TIMEOUT=1.5`, `TIMEOUT 30` | `TIMEOUT 30s`, `TIMEOUT 1500ms` (seconds, as upstream) | [`Parser::timeout_assigned`], the duration parser |
//! | `LOG "v: {x}"` with `x` bound | `${x}` (warning W0009, a maybe) | checker |
//!
//! Replacements are `machine`-applicable (`tissc fix` applies them) when the
//! form has one meaning; see `Applicability`.

use super::{PResult, Parser, Reported};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{
    Block, Cond, CondKind, DurationLit, Else, Expr, FileCond, FileTest, Ident, IfStmt, Path, PathRoot, Stmt,
    StmtKind,
};
use crate::syntax::span::Span;
use crate::syntax::token::{Kw, Token, TokenKind};
use crate::written_duration::timeout_literal;

/// Statement words of other dialects, with the statement each means.
pub(crate) const STATEMENT_WORDS: &[(&str, Kw)] = &[
    ("EXPECT", Kw::ASSERT),
    ("VERIFY", Kw::ASSERT),
    ("PRINT", Kw::LOG),
    ("ECHO", Kw::LOG),
    ("SAY", Kw::LOG),
    ("EXEC", Kw::RUN),
    ("SHELL", Kw::RUN),
    ("EXECUTE", Kw::RUN),
    ("LET", Kw::VAR),
    ("SET", Kw::VAR),
];

/// Words that end an `IF` written without braces.
pub(crate) const IF_CLOSERS: &[&str] = &["ENDIF", "END_IF", "FI", "END"];
/// Words that end a `STEP` written without braces.
pub(crate) const STEP_CLOSERS: &[&str] = &["ENDSTEP", "END_STEP", "END"];
/// `ELSE IF` as other languages spell it.
pub(crate) const ELSE_IF_WORDS: &[&str] = &["ELIF", "ELSEIF", "ELSIF", "ELSE_IF"];

/// File tests written as one word: (word, negated, test keyword).
pub(crate) const FILE_TESTS: &[(&str, bool, Kw)] = &[
    ("FILE_EXISTS", false, Kw::EXISTS),
    ("FILE_NOT_EXISTS", true, Kw::EXISTS),
    ("FILE_NOT_EXIST", true, Kw::EXISTS),
    ("FILE_IS_EMPTY", false, Kw::IS_EMPTY),
    ("FILE_CONTAINS", false, Kw::CONTAINS),
    ("FILE_NOT_CONTAINS", true, Kw::CONTAINS),
];

/// Which block a braceless form opens.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Construct {
    If,
    Step,
}

impl Construct {
    fn closers(self) -> &'static [&'static str] {
        match self {
            Construct::If => IF_CLOSERS,
            Construct::Step => STEP_CLOSERS,
        }
    }
}

fn upper_eq(word: &str, candidates: &[&str]) -> bool {
    candidates.iter().any(|c| c.eq_ignore_ascii_case(word))
}

/// Whether `word` at the start of a line begins or ends something in some
/// dialect, so recovery after an error stops there.
pub(crate) fn starts_something(word: &str) -> bool {
    upper_eq(word, IF_CLOSERS)
        || upper_eq(word, STEP_CLOSERS)
        || upper_eq(word, ELSE_IF_WORDS)
        || STATEMENT_WORDS.iter().any(|(w, _)| w.eq_ignore_ascii_case(word))
}

/// The statements, nearest to `word` first (then in the order of the language reference).
pub(crate) fn statements_nearest(word: &str) -> Vec<&'static str> {
    let upper = word.to_ascii_uppercase();
    let mut all: Vec<(usize, usize, &'static str)> = Kw::STATEMENT_STARTS
        .iter()
        .enumerate()
        .map(|(i, kw)| {
            (tiss_support::suggest::edit_distance(&upper, kw.as_str(), usize::MAX - 1), i, kw.as_str())
        })
        .collect();
    all.sort();
    all.into_iter().map(|(_, _, name)| name).collect()
}

/// `text` with each `(span, replacement)` of `edits` (non-overlapping, in
/// `text` coordinates starting at `base`) applied.
fn rewrite(text: &str, base: u32, edits: &mut [(Span, String)]) -> String {
    edits.sort_by_key(|(span, _)| span.start);
    let mut out = String::with_capacity(text.len() + 16);
    let mut at = 0usize;
    for (span, replacement) in edits.iter() {
        let (start, end) = ((span.start - base) as usize, (span.end - base) as usize);
        out.push_str(&text[at..start]);
        out.push_str(replacement);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

impl<'a> Parser<'a> {
    /// The first word of the current token, when it is an identifier.
    pub(super) fn ident_word(&self) -> Option<&'a str> {
        let tok = self.peek();
        (tok.kind == TokenKind::Ident).then(|| self.text(tok.span))
    }

    /// Whether a later line starts with a word that closes `construct`.
    /// The lines that do are found once per file, so a file of many
    /// braceless blocks is not scanned once for each.
    pub(super) fn closer_ahead(&mut self, construct: Construct) -> bool {
        let src = self.src;
        let closers = self.closer_lines.get_or_insert_with(|| {
            let mut at = 0usize;
            let mut found = Vec::new();
            for line in src.split_inclusive('\n') {
                let trimmed = line.trim_start();
                let len =
                    trimmed.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(trimmed.len());
                let word = &trimmed[..len];
                let closes = [Construct::If, Construct::Step].map(|c| upper_eq(word, c.closers()));
                if closes.contains(&true) {
                    found.push((u32::try_from(at).unwrap_or(u32::MAX), closes));
                }
                at += line.len();
            }
            found
        });
        let index = usize::from(construct == Construct::Step);
        // Only lines after the current one: a line starts after `prev_end`.
        let from = closers.partition_point(|(start, _)| *start <= self.prev_end);
        closers[from..].iter().any(|(_, closes)| closes[index])
    }

    /// A statement-position word that is no statement: one of
    /// [`STATEMENT_WORDS`] (reported, then parsed as the statement it
    /// means), a stray closer, or an unknown word (reported with the
    /// statements, nearest first). `None` if the current token is none of these.
    pub(super) fn dialect_statement(&mut self) -> Option<PResult<()>> {
        let tok = self.peek();
        let word = self.ident_word()?;
        if let Some(result) = self.foreign_loop() {
            return Some(result);
        }
        if let Some(&(_, kw)) = STATEMENT_WORDS.iter().find(|(w, _)| w.eq_ignore_ascii_case(word)) {
            // `SET x = 1` is a binding only with a name and `=` after it.
            if kw == Kw::VAR && self.peek_nth_kind(1) != TokenKind::Ident {
                return None;
            }
            self.diagnostics.push(
                Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    tok.span,
                    format!("`{word}` is not a TissLang statement; it is written `{}`", kw.as_str()),
                )
                .with_fix("write", tok.span, kw.as_str()),
            );
            self.bump();
            return Some(self.statement_after(kw, tok.span));
        }
        if let Some(result) = self.stray_closer() {
            return Some(result);
        }
        // An unknown word followed by what a statement takes (a string, a
        // name, a block): a statement of some other language.
        let takes =
            matches!(self.peek_nth_kind(1), TokenKind::Str(_) | TokenKind::LBrace | TokenKind::Heredoc(_));
        // A misspelt keyword is the keyword's error, not this one.
        if !takes
            || super::typo_of(word, super::ALL_STARTS).is_some()
            || !word.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        {
            return None;
        }
        let nearest = statements_nearest(word);
        self.bump();
        Some(Err(self.error(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                tok.span,
                format!(
                    "`{word}` is not a TissLang statement; the nearest are `{}`, `{}` and `{}`",
                    nearest[0], nearest[1], nearest[2]
                ),
            )
            .with_note(format!("the statements are {}", nearest.join(", "))),
        )))
    }

    /// `ENDSTEP`, `ENDIF` or `END` where a braced block has ended already:
    /// reported with its deletion (its whole line when it stands alone).
    pub(super) fn stray_closer(&mut self) -> Option<PResult<()>> {
        let word = self.ident_word()?;
        if !(upper_eq(word, IF_CLOSERS) || upper_eq(word, STEP_CLOSERS)) {
            return None;
        }
        let tok = self.bump();
        let line_start = self.src[..tok.span.start as usize].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.src[tok.span.end as usize..]
            .find('\n')
            .map_or(self.src.len(), |i| tok.span.end as usize + i);
        let alone = self.src[line_start..tok.span.start as usize].trim().is_empty()
            && self.src[tok.span.end as usize..line_end].trim().is_empty();
        let deleted =
            if alone { Span::new(line_start, (line_end + 1).min(self.src.len())) } else { tok.span };
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                tok.span,
                format!("`{word}` is not needed: a TissLang block ends at its `}}`"),
            )
            .with_fix("delete it", deleted, ""),
        );
        Some(Ok(()))
    }

    /// `FILE_EXISTS "p"` and the other [`FILE_TESTS`] (parentheses allowed),
    /// at the start of a condition: reported with the TissLang test and
    /// parsed as it. `None` if the current word is none of them.
    pub(super) fn file_test_word(&mut self) -> Option<PResult<Cond>> {
        let tok = self.peek();
        let word = self.ident_word()?;
        let &(_, negated, test) = FILE_TESTS.iter().find(|(w, _, _)| w.eq_ignore_ascii_case(word))?;
        if !matches!(self.peek_nth_kind(1), TokenKind::Str(_) | TokenKind::LParen) {
            return None;
        }
        self.bump();
        Some(self.file_test_rest(tok.span, negated, test))
    }

    fn file_test_rest(&mut self, start: Span, negated: bool, test: Kw) -> PResult<Cond> {
        let paren = self.peek_kind() == TokenKind::LParen;
        if paren {
            self.bump();
        }
        let path = self.string("the file's path, a string")?;
        let path_text = self.text(path.span).to_string();
        let (test, test_text) = match test {
            Kw::CONTAINS => {
                if paren && self.peek_kind() == TokenKind::Comma {
                    self.bump();
                }
                let needle = self.expr("what the file must contain")?;
                let text = format!("CONTAINS {}", self.text(needle.span()));
                (FileTest::Contains { needle }, text)
            }
            Kw::IS_EMPTY => (FileTest::IsEmpty, "IS_EMPTY".to_string()),
            _ => (FileTest::Exists, "EXISTS".to_string()),
        };
        if paren {
            self.expect(TokenKind::RParen, "`)`")?;
        }
        let span = self.since(start);
        let not = if negated { "NOT " } else { "" };
        let fix = format!("{not}FILE {path_text} {test_text}");
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                span,
                format!("`{}` is not TissLang; a file test is written `{fix}`", self.text(start)),
            )
            .with_fix("write", span, fix),
        );
        let file = Cond::new(
            CondKind::File { file: Box::new(FileCond { path, test }), span: Span::default() },
            span,
        );
        Ok(if negated {
            Cond::new(CondKind::Not { operand: Box::new(file), span: Span::default() }, span)
        } else {
            file
        })
    }

    /// The body of a block written without braces, up to (not including)
    /// its closer, an `ELSE` or an `ELIF`.
    fn braceless_body(&mut self, construct: Construct) -> PResult<Block> {
        let start = self.peek().span;
        if self.depth >= super::MAX_DEPTH {
            return Err(self.error(Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                start,
                format!("blocks are nested more than {} deep", super::MAX_DEPTH),
            )));
        }
        self.depth += 1;
        let mark = self.stmts.len();
        self.braceless_depth += 1;
        loop {
            let stop = match self.peek_kind() {
                TokenKind::Eof | TokenKind::RBrace => true,
                TokenKind::Kw(Kw::ELSE) => construct == Construct::If,
                TokenKind::Ident => {
                    let word = self.text(self.peek().span);
                    upper_eq(word, construct.closers())
                        || (construct == Construct::If && upper_eq(word, ELSE_IF_WORDS))
                }
                _ => false,
            };
            if stop {
                break;
            }
            let from = self.pos;
            if self.statement().is_err() {
                self.recover_statement(from);
            }
        }
        self.braceless_depth -= 1;
        self.depth -= 1;
        let commands = self.stmts.split_off(mark).into_boxed_slice();
        Ok(Block { commands, span: self.since(start) })
    }

    /// Consumes the closer of `construct` (`END IF` as two words too),
    /// recording its replacement `}`.
    fn braceless_closer(&mut self, construct: Construct, edits: &mut Vec<(Span, String)>) -> PResult<()> {
        let tok = self.peek();
        let closes = self.ident_word().is_some_and(|w| upper_eq(w, construct.closers()));
        if !closes {
            let what = match construct {
                Construct::If => "`ENDIF`",
                Construct::Step => "`ENDSTEP`",
            };
            return Err(self.expected(what));
        }
        self.bump();
        let mut span = tok.span;
        let word = self.text(tok.span);
        let second = if construct == Construct::If { Kw::IF } else { Kw::STEP };
        if word.eq_ignore_ascii_case("END") && self.at_kw(second) && !self.starts_line() {
            span = span.to(self.bump().span);
        }
        edits.push((span, "}".to_string()));
        Ok(())
    }

    /// Where `{` would stand after a head ending at the last consumed token:
    /// the `THEN` given (replaced), or just after the head.
    fn open_brace(&self, then: Option<Span>) -> (Span, String) {
        match then {
            Some(then) => (then, "{".to_string()),
            None => (Span { start: self.prev_end, end: self.prev_end }, " {".to_string()),
        }
    }

    /// A `STEP "name"` (consumed, from `start`) without `{`, whose block
    /// ends at `ENDSTEP`: one error with the braced rewrite.
    pub(super) fn braceless_step(&mut self, start: Span) -> PResult<Block> {
        let mut edits = vec![self.open_brace(None)];
        let body = self.braceless_body(Construct::Step)?;
        self.braceless_closer(Construct::Step, &mut edits)?;
        self.braceless_report("STEP", self.since(start), &mut edits);
        Ok(body)
    }

    /// An `IF cond [THEN]` (consumed, from `start`; the `THEN` at `then`)
    /// without `{`, with `ELIF`/`ELSE IF`/`ELSE` arms and an `ENDIF`: one
    /// error with the braced rewrite of the whole construct.
    pub(super) fn braceless_if(
        &mut self,
        start: Span,
        condition: Cond,
        then: Option<Span>,
    ) -> PResult<IfStmt> {
        let mut edits = vec![self.open_brace(then)];
        // The arms in order, each a condition and its block, then the ELSE block.
        let mut arms = vec![(start, condition, self.braceless_body(Construct::If)?)];
        let mut otherwise = None;
        loop {
            let tok = self.peek();
            if self.ident_word().is_some_and(|w| upper_eq(w, ELSE_IF_WORDS)) {
                self.bump();
                edits.push((tok.span, "} ELSE IF".to_string()));
            } else if self.at_kw(Kw::ELSE) {
                self.bump();
                if self.at_kw(Kw::IF) && !self.starts_line() {
                    self.bump();
                    edits.push((tok.span, "} ELSE".to_string()));
                } else {
                    edits.push((tok.span, "} ELSE {".to_string()));
                    otherwise = Some(self.braceless_body(Construct::If)?);
                    break;
                }
            } else {
                break;
            }
            let condition = self.cond()?;
            let then = self.peek().span;
            let then = self.eat_kw_or_typo(Kw::THEN).then_some(then);
            edits.push(self.open_brace(then));
            arms.push((tok.span, condition, self.braceless_body(Construct::If)?));
        }
        self.braceless_closer(Construct::If, &mut edits)?;
        let span = self.since(start);
        self.braceless_report("IF", span, &mut edits);
        let mut else_branch = otherwise.map(|block| Else::Block { block });
        while arms.len() > 1 {
            let (arm_start, condition, then_block) = arms.pop().ok_or(Reported)?;
            let stmt = IfStmt { condition, then_block, else_branch };
            else_branch =
                Some(Else::If { stmt: Box::new(stmt), span: Span { start: arm_start.start, end: span.end } });
        }
        let (_, condition, then_block) = arms.pop().ok_or(Reported)?;
        Ok(IfStmt { condition, then_block, else_branch })
    }

    /// `ELIF` and the like after an `IF`'s block: consumed and reported,
    /// standing for `ELSE IF` (the token is returned).
    pub(super) fn else_if_word(&mut self) -> Option<Token> {
        let word = self.ident_word().filter(|w| upper_eq(w, ELSE_IF_WORDS))?;
        let tok = self.bump();
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                tok.span,
                format!("`{word}` is written `ELSE IF` in TissLang"),
            )
            .with_fix("write", tok.span, "ELSE IF"),
        );
        Some(tok)
    }

    /// `TIMEOUT=30` (the `=` current): the duration after `=`, a number
    /// without unit meaning seconds as in earlier TissLang, reported once
    /// with `TIMEOUT 30s`.
    pub(super) fn timeout_assigned(&mut self) -> PResult<DurationLit> {
        let eq = self.bump();
        let tok = self.peek();
        // A number after `=` is in seconds, as upstream; the lexer reported
        // any that is no literal, and lexed it as the duration it means.
        let (millis, written) = match tok.kind {
            TokenKind::Int(n) if n >= 0 => {
                (u64::try_from(n).unwrap_or(0).saturating_mul(1000), timeout_literal(self.text(tok.span)))
            }
            TokenKind::Duration(millis) => (millis, timeout_literal(self.text(tok.span))),
            TokenKind::Str(i) => {
                let lit = self.take_string(i);
                let read = lit.as_literal().and_then(crate::written_duration::read);
                match read.as_ref().and_then(|w| Some((w.millis.ok()?, w.fix()?))) {
                    Some((millis, fix)) => (millis, Some(fix)),
                    None => return Err(self.expected("a duration such as `30s`")),
                }
            }
            _ => return Err(self.expected("a duration such as `30s`")),
        };
        self.bump();
        let span = eq.span.to(tok.span);
        let d = Diagnostic::error(
            codes::UNEXPECTED_TOKEN,
            span,
            format!(
                "`TIMEOUT{}` is not TissLang: the timeout follows `TIMEOUT` as a duration",
                self.text(span)
            ),
        );
        // Where no literal means exactly this time, a human picks one.
        self.diagnostics.push(match written {
            Some(written) => d.with_fix("write", span, format!(" {written}")),
            None => {
                d.with_note("write `TIMEOUT` and a duration such as `30s`, in a unit that holds it whole")
            }
        });
        Ok(DurationLit { millis, span: tok.span })
    }

    /// `RUN "cmd" -> out` (the `->` current): RUN binds nothing, its result
    /// is `LAST_RUN`; reported with the binding of its output on a line of
    /// its own, which is returned (`VAR out = LAST_RUN.STDOUT`).
    pub(super) fn run_arrow(&mut self) -> PResult<Stmt> {
        let from = self.prev_end;
        let arrow = self.bump();
        let name = self.binding_name("a variable name after `->`")?;
        let line_start = self.src[..from as usize].rfind('\n').map_or(0, |i| i + 1);
        let indent: String = self.src[line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        let span = Span { start: from, end: name.span.end };
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                span,
                "`RUN` binds no variable: its result is `LAST_RUN`; bind its output with `VAR`",
            )
            .with_fix("write", span, format!("\n{indent}VAR {} = LAST_RUN.STDOUT", name.name)),
        );
        let stdout = Ident { name: "STDOUT".into(), span: arrow.span };
        let path = Path {
            root: PathRoot::LastRun { span: arrow.span },
            fields: smallvec::smallvec![stdout],
            span: arrow.span,
        };
        let value = Expr::of_path(path);
        Ok(Stmt { kind: StmtKind::Var { name, value }, span })
    }

    fn braceless_report(&mut self, what: &str, span: Span, edits: &mut [(Span, String)]) {
        let fix = rewrite(self.text(span), span.start, edits);
        self.diagnostics.push(
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                span,
                format!(
                    "`{what}` without braces: a TissLang block is written `{{ ... }}`, not closed by a word"
                ),
            )
            .with_fix("write the block in braces", span, fix),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_statements_come_first() {
        assert_eq!(statements_nearest("RUNN")[0], "RUN");
        assert_eq!(statements_nearest("LOGG")[0], "LOG");
        assert_eq!(statements_nearest("THINK").len(), Kw::STATEMENT_STARTS.len());
    }

    #[test]
    fn rewrite_applies_edits_in_order() {
        let mut edits = vec![(Span::new(12, 17), "}".to_string()), (Span::new(5, 9), "{".to_string())];
        assert_eq!(rewrite("IF c THEN x ENDIF", 0, &mut edits), "IF c { x }");
    }
}
