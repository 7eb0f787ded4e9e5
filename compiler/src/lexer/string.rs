//! String literals: escapes, `${path}` interpolation, and the `{{name}}` mistake.

use super::{Lexer, is_ident_continue, is_ident_start};
use smallvec::SmallVec;

use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{Ident, Path, PathRoot, StrLit, StrPart, StrParts, Text};
use crate::syntax::span::Span;
use crate::syntax::token::{Kw, TokenKind};

/// Bytes that end a run of ordinary string characters.
static STRING_SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let special = b"\"\n\r\\${";
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
};

/// The literal text collected so far: a range of the source until an escape
/// needs a decoded copy, so a string without escapes is copied only once,
/// into its [`Text`].
#[derive(Default)]
enum Pending {
    #[default]
    Empty,
    Slice(usize, usize),
    Owned(String),
}

impl Pending {
    /// Appends `src[start..end]`.
    fn push_src(&mut self, src: &str, start: usize, end: usize) {
        match self {
            Pending::Empty => *self = Pending::Slice(start, end),
            Pending::Slice(_, b) if *b == start => *b = end,
            Pending::Slice(a, b) => *self = Pending::Owned([&src[*a..*b], &src[start..end]].concat()),
            Pending::Owned(text) => text.push_str(&src[start..end]),
        }
    }

    fn push_char(&mut self, src: &str, ch: char) {
        match self {
            Pending::Empty => *self = Pending::Owned(ch.to_string()),
            Pending::Slice(a, b) => {
                let mut text = src[*a..*b].to_string();
                text.push(ch);
                *self = Pending::Owned(text);
            }
            Pending::Owned(text) => text.push(ch),
        }
    }

    /// The text collected, if any, leaving `self` empty.
    fn take(&mut self, src: &str) -> Option<Text> {
        match std::mem::take(self) {
            Pending::Empty => None,
            Pending::Slice(a, b) => Some(Text::new(&src[a..b])),
            Pending::Owned(text) => Some(Text::from(text)),
        }
    }
}

impl Lexer<'_> {
    /// Lexes `"..."` starting at the opening quote. Strings stay on one line.
    pub(super) fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        let mut parts = StrParts::default();
        let mut text = Pending::Empty;
        let mut closed = false;
        while let Some(b) = self.peek(0) {
            match b {
                b'"' => {
                    self.pos += 1;
                    closed = true;
                    break;
                }
                b'\n' => break,
                b'\r' if self.peek(1) == Some(b'\n') => break,
                b'\\' => self.escape(&mut text),
                b'$' if self.peek(1) == Some(b'{') => {
                    if let Some(path) = self.interpolation() {
                        if let Some(text) = text.take(self.src) {
                            parts.push(StrPart::Text { text });
                        }
                        parts.push(StrPart::Interp { path: Box::new(path) });
                    }
                }
                b'{' if self.peek(1) == Some(b'{') => self.double_brace(&mut text),
                _ => {
                    // Copy the run of ordinary characters in one go.
                    let run_start = self.pos;
                    let rest = &self.bytes[self.pos..];
                    self.pos +=
                        rest.iter().position(|&c| STRING_SPECIAL[usize::from(c)]).unwrap_or(rest.len());
                    if self.pos == run_start {
                        // A lone `\r`, `$` or `{`: literal text.
                        self.pos += 1;
                    }
                    text.push_src(self.src, run_start, self.pos);
                }
            }
        }
        if !closed {
            self.error(
                Diagnostic::error(
                    codes::UNTERMINATED_STRING,
                    Span::new(start, self.pos),
                    "string literal is not closed before the end of the line",
                )
                .with_suggestion("close the string", Span::new(self.pos, self.pos), "\"")
                .with_note("strings stay on one line; for multi-line text use a heredoc (`<<TEXT`)"),
            );
        }
        if let Some(text) = text.take(self.src) {
            parts.push(StrPart::Text { text });
        }
        let index = self.out.strings.push(StrLit { parts, span: Span::new(start, self.pos) });
        self.push(TokenKind::Str(index), start);
    }

    /// One escape sequence starting at the backslash.
    fn escape(&mut self, text: &mut Pending) {
        let start = self.pos;
        let Some(c) = self.src[start + 1..].chars().next().filter(|c| *c != '\n') else {
            self.pos += 1;
            self.error(Diagnostic::error(
                codes::INVALID_ESCAPE,
                Span::new(start, self.pos),
                "a backslash at the end of a line escapes nothing",
            ));
            return;
        };
        self.pos += 1 + c.len_utf8();
        let simple = match c {
            '\\' => Some('\\'),
            '"' => Some('"'),
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            '$' => Some('$'),
            _ => None,
        };
        if let Some(ch) = simple {
            text.push_char(self.src, ch);
            return;
        }
        if c == 'u' {
            self.unicode_escape(start, text);
            return;
        }
        let span = Span::new(start, self.pos);
        self.error(
            Diagnostic::error(
                codes::INVALID_ESCAPE,
                span,
                format!("unknown escape sequence `\\{}`", c.escape_debug()),
            )
            .with_suggestion("to write a backslash, escape it", span, format!("\\\\{c}"))
            .with_note(r#"valid escapes are \\ \" \n \t \r \$ and \u{HEX}"#),
        );
    }

    /// `\u{HEX}` after the `\u` has been consumed.
    fn unicode_escape(&mut self, start: usize, text: &mut Pending) {
        let rest = &self.src[self.pos..];
        let decoded = rest.strip_prefix('{').and_then(|r| {
            let close = r.find('}')?;
            let hex = &r[..close];
            let valid = (1..=6).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit());
            let ch = u32::from_str_radix(hex, 16).ok().filter(|_| valid).and_then(char::from_u32);
            Some((ch, close + 2))
        });
        match decoded {
            Some((Some(ch), len)) => {
                self.pos += len;
                text.push_char(self.src, ch);
            }
            Some((None, len)) => {
                self.pos += len;
                self.error(
                    Diagnostic::error(
                        codes::INVALID_ESCAPE,
                        Span::new(start, self.pos),
                        "`\\u{...}` must hold 1 to 6 hex digits naming a Unicode scalar value",
                    )
                    .with_note("surrogates (D800-DFFF) and values above 10FFFF are not characters"),
                );
            }
            None => self.error(Diagnostic::error(
                codes::INVALID_ESCAPE,
                Span::new(start, self.pos),
                "`\\u` must be followed by `{HEX}`, as in `\\u{1F600}`",
            )),
        }
    }

    /// `${path}` starting at the `$`. Returns `None` (after reporting) if malformed;
    /// the malformed text is then skipped up to its `}` or the string's end.
    fn interpolation(&mut self) -> Option<Path> {
        let start = self.pos;
        self.pos += 2;
        // `${name}` or `${name.FIELD}` is the common case: no allocation.
        let mut segments: SmallVec<[(Span, &str); 2]> = SmallVec::new();
        loop {
            let seg_start = self.pos;
            if !self.peek(0).is_some_and(is_ident_start) {
                break;
            }
            while self.peek(0).is_some_and(is_ident_continue) {
                self.pos += 1;
            }
            segments.push((Span::new(seg_start, self.pos), &self.src[seg_start..self.pos]));
            if self.peek(0) == Some(b'.') {
                self.pos += 1;
                continue;
            }
            break;
        }
        let well_formed = !segments.is_empty() && self.peek(0) == Some(b'}');
        if !well_formed {
            // Skip to the closing brace if it is on this string's line.
            let line_end = self.line_end(self.pos);
            let rest = &self.src[self.pos..line_end];
            let stop = rest.find(['}', '"']).unwrap_or(rest.len());
            self.pos += stop;
            if self.peek(0) == Some(b'}') {
                self.pos += 1;
            }
            let span = Span::new(start, self.pos);
            self.error(
                Diagnostic::error(
                    codes::INVALID_INTERPOLATION,
                    span,
                    "malformed interpolation: expected `${name}` or `${name.FIELD}`",
                )
                .with_suggestion("for a literal `${`, escape the dollar", Span::new(start, start + 1), "\\$")
                .with_note("inside `${...}` write a variable, `LAST_RUN` or `COST`, then `.FIELD`s"),
            );
            return None;
        }
        self.pos += 1;
        let (root_span, root_text) = segments[0];
        let root = match Kw::from_word(root_text) {
            None => PathRoot::Var { ident: Ident { name: Text::new(root_text), span: root_span } },
            Some(Kw::LAST_RUN) => PathRoot::LastRun { span: root_span },
            Some(Kw::COST) => PathRoot::Cost { span: root_span },
            Some(kw) => {
                let span = Span::new(start, self.pos);
                let mut d = Diagnostic::error(
                    codes::INVALID_INTERPOLATION,
                    span,
                    format!("`{}` is a reserved word, not a value that can be interpolated", kw.as_str()),
                );
                if matches!(
                    kw,
                    Kw::STDOUT | Kw::STDERR | Kw::EXIT_CODE | Kw::DURATION | Kw::TIMED_OUT | Kw::COMMAND
                ) {
                    d = d.with_suggestion(
                        "it is a field of `LAST_RUN`",
                        root_span,
                        format!("LAST_RUN.{}", kw.as_str()),
                    );
                }
                self.error(d);
                return None;
            }
        };
        let fields =
            segments[1..].iter().map(|&(span, name)| Ident { name: Text::new(name), span }).collect();
        Some(Path { root, fields, span: Span::new(start + 2, self.pos - 1) })
    }

    /// `{{` inside a string: `{{name}}` is the old interpolation form and an
    /// error suggesting `${name}`; any other `{{` is literal text.
    fn double_brace(&mut self, text: &mut Pending) {
        let start = self.pos;
        let rest = &self.src[start + 2..self.line_end(start)];
        let inner_len = rest.find("}}");
        if let Some(len) = inner_len {
            let inner = rest[..len].trim();
            let is_path = !inner.is_empty()
                && inner.split('.').all(|seg| {
                    seg.bytes().next().is_some_and(is_ident_start) && seg.bytes().all(is_ident_continue)
                });
            if is_path {
                let end = start + 2 + len + 2;
                let span = Span::new(start, end);
                self.error(
                    Diagnostic::error(
                        codes::OLD_INTERPOLATION,
                        span,
                        format!("`{{{{{inner}}}}}` is not interpolation in TissLang"),
                    )
                    .with_fix("interpolate with", span, format!("${{{inner}}}")),
                );
                text.push_src(self.src, start, end);
                self.pos = end;
                return;
            }
        }
        // The two braces themselves, as literal text.
        text.push_src(self.src, start, start + 2);
        self.pos += 2;
    }
}
