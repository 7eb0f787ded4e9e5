//! A command line parsed as `sh` parses it, by a real shell parser
//! (`brush-parser`, POSIX `sh` mode), and read into the simple commands it
//! runs: those joined by `;`, `&&`, `||`, `|` and `&`, inside subshells,
//! braces, `if`/`for`/`while`/`case` and function bodies, and inside every
//! command substitution (`$(…)`, backquotes, in a word, an assignment, a
//! redirection's target, a parameter's default or an unquoted here-document).
//!
//! Each word is its text after quote removal when nothing in it expands
//! ([`Word::Literal`]), or as written when something does ([`Word::Expands`]:
//! a parameter, a substitution, arithmetic, a tilde, an unquoted glob
//! character or braces bash would expand); only what running the command
//! would tell is left unknown.

use brush_parser::ast::{
    self, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoRedirect,
};
use brush_parser::word::{self, WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};
use std::cell::Cell;

use super::scan::{Piece, Quote, Scanner};

pub mod evaluated;
mod word_text;

pub use word_text::{Expansion, may_split, named_by_path};
use word_text::{braces, expansion, known_start, literal_text};

/// How deep command substitutions inside command substitutions are read;
/// deeper ones make the reading fail rather than the stack overflow.
const MAX_DEPTH: usize = 32;

/// How deeply a line may nest (parentheses, braces, backquotes and the
/// compound commands `if`, `case`, `while`, `until`, `for`), counted before
/// it is parsed: the parser recurses once per level, and a line nested
/// thousands deep would overflow the stack. Quotes are not looked at, so a
/// quoted parenthesis counts too; real commands nest a few levels.
const MAX_NESTING: i64 = 64;

/// The longest line read: a command's text is small; this bounds the
/// parser's time and memory whatever a plan holds.
const MAX_LINE: usize = 64 * 1024;

/// The most parentheses a text handed to the parser may open and not
/// close. brush-parser 0.4's word parser backtracks through every reading
/// of each unclosed `(`, `$(` or `@(` (a subshell, a substitution,
/// arithmetic, an extended glob): its time triples with each, so a 60-byte
/// command took minutes (`$(<< ⏎⏎@(` and twelve `$(`). Real commands
/// leave one or two open, inside quotes; with six, no line of a random
/// search of 400 took over 0.12 s (release build).
const MAX_UNCLOSED: usize = 6;

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// Nothing in it expands: its text once quotes and escapes are removed.
    Literal(String),
    /// Something in it expands when it runs: its text as written.
    Expands(String),
}

impl Word {
    /// The literal text, if the word has one.
    pub fn literal(&self) -> Option<&str> {
        match self {
            Word::Literal(text) => Some(text),
            Word::Expands(_) => None,
        }
    }

    /// The text to show and to match: the literal text, else as written.
    pub fn text(&self) -> &str {
        match self {
            Word::Literal(text) | Word::Expands(text) => text,
        }
    }

    /// Whether the shell may make more than one word of it ([`may_split`]):
    /// as an option's value, `-e $X` may also give `--entrypoint=sh`.
    pub fn splits(&self) -> bool {
        matches!(self, Word::Expands(text) if may_split(text))
    }

    /// What is known of it before it runs, from one reading of it
    /// ([`Expansion`]); `None` for a literal, which is known whole.
    pub fn expansion(&self) -> Option<Expansion> {
        match self {
            Word::Literal(_) => None,
            Word::Expands(written) => Some(expansion(written)),
        }
    }

    /// What the word starts with whatever it expands to: the text before
    /// its first expansion, glob character or brace, quotes and escapes
    /// removed (`-u` of `-u"$X"`, `./` of `./*`, nothing of `$X`); a
    /// literal's whole text.
    pub fn known_start(&self) -> String {
        match self {
            Word::Literal(text) => text.clone(),
            Word::Expands(written) => known_start(written),
        }
    }
}

/// One simple command: its words (assignments before it and redirections
/// left out) and whether a single `|` feeds it the output of the one before.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Simple {
    pub words: Vec<Word>,
    pub piped: bool,
    /// It is no command's words but a place where bash evaluates a
    /// variable's value as code ([`evaluated`]): its one word, as written.
    pub evaluates: bool,
    /// The assignments before its words, as written (`CC='gcc -m32'`): the
    /// environment of what it runs.
    pub assigns: Vec<String>,
}

/// The simple commands `line` runs, in the order they appear, or why it
/// cannot be read (a syntax error: the shell would refuse it too).
pub fn simple_commands(line: &str) -> Result<Vec<Simple>, String> {
    if let Some(words) = plain_words(line) {
        return Ok(if words.is_empty() { Vec::new() } else { vec![Simple { words, ..Simple::default() }] });
    }
    if line.len() > MAX_LINE {
        return Err(format!("the command is longer than {} KiB", MAX_LINE / 1024));
    }
    if nesting(line) > MAX_NESTING {
        return Err(format!("the command nests more than {MAX_NESTING} levels deep"));
    }
    let mut reader = Reader { found: Vec::new(), options: options(), words: word_options() };
    contained(|| reader.line(line, 0))?;
    Ok(reader.found)
}

thread_local! {
    /// Set while this thread parses: a panic then is the parser's, contained.
    static PARSING: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside the shell parser, whose panics are
/// contained (the binaries' panic hook says nothing of them).
pub fn parsing() -> bool {
    PARSING.with(Cell::get)
}

/// The pieces of one word as written, read again (its line was read
/// already); `None` if the word parser refuses it, or panics.
fn pieces_of(written: &str) -> Option<Vec<WordPieceWithSource>> {
    let mut pieces = None;
    contained(|| {
        pieces = bounded(written).ok().and_then(|written| word::parse(written, &word_options()).ok());
        Ok(())
    })
    .ok()?;
    pieces
}

/// Runs the parser, a panic of its (it has had bugs that panic on hostile
/// input) becoming a refusal: whatever a plan's RUN holds, reading it ends
/// in commands or an error.
fn contained(parse: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    PARSING.with(|p| p.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse));
    PARSING.with(|p| p.set(false));
    result.unwrap_or_else(|_| Err("the shell parser cannot read it".to_string()))
}

/// Words the shell gives a meaning of their own at the start of a command.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in", "!",
    "{", "}",
];

/// The words of a line that is nothing but plain words and plain parameter
/// expansions (`$name`, `${name}`: no quote, escape, substitution, glob,
/// operator, assignment, comment or reserved word), which the shell only
/// splits at blanks: most commands, read without the parser (`tissc
/// compile` reads every RUN's command for its risk). A word with an
/// expansion expands.
fn plain_words(line: &str) -> Option<Vec<Word>> {
    let bytes = line.as_bytes();
    let plain = |b: u8| b.is_ascii_alphanumeric() || b" \t_./:,+@%^-".contains(&b);
    let name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'$' if bytes.get(at + 1) == Some(&b'{') => {
                let len = bytes[at + 2..].iter().take_while(|&&b| name(b)).count();
                if len == 0 || bytes.get(at + 2 + len) != Some(&b'}') {
                    return None;
                }
                at += len + 3;
            }
            b'$' => {
                let len = bytes[at + 1..].iter().take_while(|&&b| name(b)).count();
                if len == 0 || bytes[at + 1].is_ascii_digit() {
                    return None;
                }
                at += len + 1;
            }
            b if plain(b) => at += 1,
            _ => return None,
        }
    }
    let word =
        |w: &str| if w.contains('$') { Word::Expands(w.to_string()) } else { Word::Literal(w.to_string()) };
    let words: Vec<Word> = line.split([' ', '\t']).filter(|w| !w.is_empty()).map(word).collect();
    match words.first() {
        Some(first) if RESERVED.contains(&first.text()) => None,
        _ => Some(words),
    }
}

/// The deepest nesting of `line`, counted without parsing it (see
/// [`MAX_NESTING`]).
fn nesting(line: &str) -> i64 {
    let (mut depth, mut deepest) = (0i64, 0i64);
    // Inside backquotes is a level; a substitution in them is read as a
    // line of its own, so pairs side by side do not add up.
    let mut backquotes = 0i64;
    for word in line.split(|c: char| c.is_whitespace() || ";&|".contains(c)) {
        match word {
            "if" | "case" | "while" | "until" | "for" => depth += 1,
            "fi" | "esac" | "done" => depth -= 1,
            _ => {}
        }
        for c in word.chars() {
            match c {
                '(' | '{' => depth += 1,
                ')' | '}' => depth -= 1,
                '`' => backquotes += 1,
                _ => {}
            }
            deepest = deepest.max(depth + backquotes % 2);
        }
        deepest = deepest.max(depth + backquotes % 2);
    }
    deepest
}

/// The text if the parser may read it: at most [`MAX_UNCLOSED`]
/// parentheses opened and not closed, counted whatever quotes them (in a
/// here-document a quote is a character).
fn bounded(text: &str) -> Result<&str, String> {
    let mut open = 0usize;
    for byte in text.bytes() {
        match byte {
            b'(' => open += 1,
            b')' => open = open.saturating_sub(1),
            _ => {}
        }
    }
    if open > MAX_UNCLOSED {
        return Err(format!(
            "it opens {open} parentheses it does not close, more than {MAX_UNCLOSED}: the shell parser's time grows \
             with each"
        ));
    }
    Ok(text)
}

fn options() -> ParserOptions {
    ParserOptions { sh_mode: true, posix_mode: true, enable_extended_globbing: false, ..Default::default() }
}

/// Words are read as bash reads them, which knows more expansions than
/// `sh` (`${!x}`, `${x@P}`, `${a[i]}`, `${s:1}`, `${x/a/b}`, which the
/// parser in `sh` mode takes for text): where `sh` is bash they expand.
fn word_options() -> ParserOptions {
    ParserOptions { sh_mode: false, posix_mode: false, enable_extended_globbing: false, ..Default::default() }
}

struct Reader {
    found: Vec<Simple>,
    options: ParserOptions,
    /// For the words ([`word_options`]).
    words: ParserOptions,
}

impl Reader {
    fn line(&mut self, line: &str, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("command substitutions nested more than {MAX_DEPTH} deep"));
        }
        // brush-parser 0.4 loops without end, allocating, when the input
        // ends on the line of a here-document operator whose word it takes
        // as empty (`$(<< <#`, `\<<<''(#`: a gigabyte in two seconds). Two
        // newlines end that line (one may be taken by a trailing `\`, which
        // then escapes nothing). Here, not only on the whole line: a
        // substitution's or `sh -c`'s line is parsed again.
        let ended;
        let line = if line.contains("<<") {
            ended = format!("{line}\n\n");
            &ended
        } else {
            line
        };
        let mut parser = Parser::new(std::io::BufReader::new(bounded(line)?.as_bytes()), &self.options);
        let program = parser.parse_program().map_err(|e| format!("not valid shell syntax: {e}"))?;
        for list in &program.complete_commands {
            self.list(list, depth)?;
        }
        self.double_parentheses(line, depth)
    }

    /// bash's `((…))`, which `sh` reads as a subshell in a subshell (as the
    /// parser here does: `((x))` runs `x`): its arithmetic too, found in the
    /// text where the `((` is not quoted.
    fn double_parentheses(&mut self, line: &str, depth: usize) -> Result<(), String> {
        // Most lines (`$(cmd)`, `(cd a; make)`) have neither; only these
        // two can make `((`.
        if !line.contains("((") && !line.contains("(\\\n") {
            return Ok(());
        }
        // The line as the shell joins it (`(\⏎(x))` is `((x))`), and its
        // unquoted `(`s by byte offset.
        let mut joined = String::with_capacity(line.len());
        let mut open_at = Vec::with_capacity(line.len() + 1);
        for piece in Scanner::new(line, Quote::None) {
            let (text, open): (&[char], bool) = match piece {
                Piece::Escaped('\n') => (&[], false),
                Piece::Plain(c) => (&[c], c == '('),
                Piece::Quoted(c, _) | Piece::Escaped(c) => (&[c], false),
                Piece::TrailingBackslash => (&['\\'], false),
                Piece::Opens(Quote::Single) | Piece::Closes(Quote::Single) => (&['\''], false),
                Piece::Opens(_) | Piece::Closes(_) => (&['"'], false),
            };
            for &c in text {
                joined.push(c);
                open_at.extend(std::iter::repeat_n(false, c.len_utf8()));
            }
            if open {
                let last = open_at.len() - 1;
                open_at[last] = true;
            }
        }
        open_at.push(false);
        let line = joined.as_str();
        if !line.contains("((") {
            return Ok(());
        }
        let bytes = line.as_bytes();
        let mut at = 0;
        while at + 1 < bytes.len() {
            let start = at;
            at += 1;
            if !(open_at[start] && open_at[start + 1]) || (start > 0 && bytes[start - 1] == b'$') {
                continue;
            }
            at = start + 2;
            let mut open = 2;
            let end = bytes[at..].iter().position(|&b| {
                open += match b {
                    b'(' => 1,
                    b')' => -1,
                    _ => 0,
                };
                open == 0
            });
            // `)` closes what `(` opened: the expression ends before `))`.
            if let Some(end) = end.filter(|&end| end > 0) {
                let expr = &line[at..at + end - 1];
                self.arithmetic(expr, &format!("(({expr}))"), depth)?;
            }
        }
        Ok(())
    }

    fn list(&mut self, list: &CompoundList, depth: usize) -> Result<(), String> {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first, depth)?;
            for next in &and_or.additional {
                let (ast::AndOr::And(pipeline) | ast::AndOr::Or(pipeline)) = next;
                self.pipeline(pipeline, depth)?;
            }
        }
        Ok(())
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline, depth: usize) -> Result<(), String> {
        for (i, command) in pipeline.seq.iter().enumerate() {
            self.command(command, i > 0, depth)?;
        }
        Ok(())
    }

    fn command(&mut self, command: &Command, piped: bool, depth: usize) -> Result<(), String> {
        match command {
            Command::Simple(simple) => self.simple(simple, piped, depth),
            Command::Compound(compound, redirects) => {
                self.compound(compound, depth)?;
                self.redirects(redirects.iter().flat_map(|r| &r.0), depth)
            }
            Command::Function(function) => {
                self.compound(&function.body.0, depth)?;
                self.redirects(function.body.1.iter().flat_map(|r| &r.0), depth)
            }
            // `[[ … ]]` is bash's, not `sh`'s: the shell would refuse it.
            Command::ExtendedTest(..) => Err("`[[ … ]]` is not `sh` syntax".to_string()),
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, depth: usize) -> Result<(), String> {
        match compound {
            CompoundCommand::BraceGroup(group) => self.list(&group.list, depth),
            CompoundCommand::Subshell(subshell) => self.list(&subshell.list, depth),
            CompoundCommand::ForClause(clause) => {
                for value in clause.values.iter().flatten() {
                    self.word(value, depth)?;
                }
                self.list(&clause.body.list, depth)
            }
            CompoundCommand::CaseClause(clause) => {
                self.word(&clause.value, depth)?;
                for item in &clause.cases {
                    for pattern in &item.patterns {
                        self.word(pattern, depth)?;
                    }
                    if let Some(list) = &item.cmd {
                        self.list(list, depth)?;
                    }
                }
                Ok(())
            }
            CompoundCommand::IfClause(clause) => {
                self.list(&clause.condition, depth)?;
                self.list(&clause.then, depth)?;
                for other in clause.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.list(condition, depth)?;
                    }
                    self.list(&other.body, depth)?;
                }
                Ok(())
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                self.list(&clause.0, depth)?;
                self.list(&clause.1.list, depth)
            }
            // Found in the line's text (`Reader::double_parentheses`).
            CompoundCommand::Arithmetic(_) => Ok(()),
            CompoundCommand::ArithmeticForClause(_) | CompoundCommand::Coprocess(_) => {
                Err("not `sh` syntax".to_string())
            }
        }
    }

    fn simple(&mut self, simple: &ast::SimpleCommand, piped: bool, depth: usize) -> Result<(), String> {
        let mut words = Vec::new();
        let prefix = simple.prefix.iter().flat_map(|p| &p.0).map(|item| (item, true));
        let items = prefix.chain(simple.suffix.iter().flat_map(|s| &s.0).map(|item| (item, false)));
        let mut redirects = Vec::new();
        let mut assigns = Vec::new();
        for (item, before) in items {
            match item {
                CommandPrefixOrSuffixItem::Word(word) => words.push(self.word(word, depth)?),
                // After the name (`alias r=rm`, `export A=1`) it is an argument.
                CommandPrefixOrSuffixItem::AssignmentWord(_, word) if !before => {
                    words.push(self.word(word, depth)?)
                }
                CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                    // `A=$(cmd) prog`: the value runs, the assignment is no word.
                    assigns.push(word.value.clone());
                    let value = word.value.split_once('=').map_or("", |(_, v)| v);
                    self.substitutions_in(value, depth)?;
                    if evaluated::name_evaluates(&word.value) {
                        self.evaluated(&word.value);
                    }
                }
                CommandPrefixOrSuffixItem::IoRedirect(redirect) => redirects.push(redirect),
                CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                    self.list(&subshell.list, depth)?
                }
            }
        }
        if let Some(name) = &simple.word_or_name {
            words.insert(0, self.word(name, depth)?);
        }
        if !words.is_empty() {
            self.found.push(Simple { words, piped, evaluates: false, assigns });
        }
        self.redirects(redirects.into_iter(), depth)
    }

    fn redirects<'a>(
        &mut self,
        redirects: impl Iterator<Item = &'a IoRedirect>,
        depth: usize,
    ) -> Result<(), String> {
        for redirect in redirects {
            match redirect {
                IoRedirect::File(_, _, target) => match target {
                    ast::IoFileRedirectTarget::Filename(word)
                    | ast::IoFileRedirectTarget::Duplicate(word) => {
                        self.word(word, depth)?;
                    }
                    ast::IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                        self.list(&subshell.list, depth)?
                    }
                    ast::IoFileRedirectTarget::Fd(_) => {}
                },
                IoRedirect::HereDocument(_, doc) if doc.requires_expansion => {
                    // The shell joins a body's lines at a `\` ending one.
                    let body = joined_lines(&doc.doc.value);
                    let pieces = word::parse_heredoc(bounded(&body)?, &self.words)
                        .map_err(|e| format!("not valid shell syntax: {e}"))?;
                    self.pieces(&body, &pieces, depth)?;
                }
                IoRedirect::HereDocument(..) => {}
                IoRedirect::HereString(_, word) | IoRedirect::OutputAndError(word, _) => {
                    self.word(word, depth)?;
                }
            }
        }
        Ok(())
    }

    /// A word: its substitutions read as commands, and its text.
    fn word(&mut self, word: &ast::Word, depth: usize) -> Result<Word, String> {
        let pieces = word::parse(bounded(&word.value)?, &self.words)
            .map_err(|e| format!("not valid shell syntax: {e}"))?;
        let mut literal = String::new();
        let expands = self.pieces(&word.value, &pieces, depth)?
            || braces(&pieces)
            || !literal_text(&pieces, &mut literal);
        Ok(if expands { Word::Expands(word.value.clone()) } else { Word::Literal(literal) })
    }

    /// Reads the commands in `pieces` (of `source`); whether any expands.
    fn pieces(&mut self, source: &str, pieces: &[WordPieceWithSource], depth: usize) -> Result<bool, String> {
        let mut expands = false;
        for piece in pieces {
            match &piece.piece {
                // bash's old arithmetic, `$[x]`, which dash leaves as text.
                WordPiece::Text(text) if text.contains("$[") => {
                    self.evaluated(text);
                    expands = true;
                }
                WordPiece::Text(_) | WordPiece::SingleQuotedText(_) | WordPiece::EscapeSequence(_) => {}
                WordPiece::DoubleQuotedSequence(inner) => expands |= self.pieces(source, inner, depth)?,
                // bash's `$"…"` is its text translated, dash's a `$` then text.
                WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.pieces(source, inner, depth)?;
                    expands = true;
                }
                WordPiece::CommandSubstitution(line) | WordPiece::BackquotedCommandSubstitution(line) => {
                    self.line(line, depth + 1)?;
                    expands = true;
                }
                WordPiece::ParameterExpansion(_) => {
                    // `${x:-$(cmd)}`: the operands are words of their own.
                    let text = source.get(piece.start_index..piece.end_index).unwrap_or("");
                    let inner = text.strip_prefix("${").and_then(|t| t.strip_suffix('}'));
                    if let Some(inner) = inner {
                        self.substitutions_in(inner, depth)?;
                        if evaluated::parameter_evaluates(inner) {
                            self.evaluated(text);
                        }
                    }
                    expands = true;
                }
                WordPiece::ArithmeticExpression(expr) => {
                    let text = source.get(piece.start_index..piece.end_index).unwrap_or(&expr.value);
                    self.arithmetic(&expr.value, text, depth)?;
                    expands = true;
                }
                WordPiece::AnsiCQuotedText(_) | WordPiece::TildeExpansion(_) => expands = true,
            }
        }
        Ok(expands)
    }

    /// The arithmetic `expr` (written as `written`): its substitutions, read
    /// with a single quote a character, and, where bash would evaluate a
    /// value as code ([`evaluated`]), a command only running tells.
    fn arithmetic(&mut self, expr: &str, written: &str, depth: usize) -> Result<(), String> {
        self.substitutions_in(&evaluated::arithmetic_as_quoted(expr), depth)?;
        if evaluated::arithmetic_evaluates(expr) {
            self.evaluated(written);
        }
        Ok(())
    }

    /// A command whose program only running tells: what bash runs when it
    /// evaluates the value in `written` ([`evaluated`]).
    fn evaluated(&mut self, written: &str) {
        self.found.push(Simple {
            words: vec![Word::Expands(written.to_string())],
            piped: false,
            evaluates: true,
            assigns: Vec::new(),
        });
    }

    /// The commands of the substitutions in a text read as one word, and
    /// the places in it where bash evaluates a value (`${y:-${a[x]}}`).
    fn substitutions_in(&mut self, text: &str, depth: usize) -> Result<(), String> {
        if !text.contains(['$', '`']) {
            return Ok(());
        }
        let pieces =
            word::parse(bounded(text)?, &self.words).map_err(|e| format!("not valid shell syntax: {e}"))?;
        self.pieces(text, &pieces, depth).map(drop)
    }
}

/// An unquoted here-document's body with each `\` that ends a line removed
/// with its newline (`$\⏎(cmd)` is `$(cmd)`); an escaped `\` stays.
fn joined_lines(body: &str) -> String {
    let mut joined = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('\n') => {}
                Some(next) => {
                    joined.push(c);
                    joined.push(next);
                }
                None => joined.push(c),
            },
            _ => joined.push(c),
        }
    }
    joined
}

#[cfg(test)]
mod tests;
