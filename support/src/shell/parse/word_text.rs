//! What a word as written gives when it runs: which of its parts are text
//! and which expand, the program a path that expands still names, whether
//! the shell may split it, and what is known of it before it runs.

use brush_parser::word::{WordPiece, WordPieceWithSource};

use super::pieces_of;

/// A part of a word as the shell expands it.
#[derive(Clone, Copy)]
enum Part<'a> {
    /// Text, its quotes and escapes removed.
    Text(&'a str),
    /// An expansion that stays one word: inside double quotes, or a tilde.
    Quoted,
    /// An expansion the shell splits at blanks, or a glob it matches
    /// against file names: outside double quotes.
    Unquoted,
}

/// Calls `each` with the parts of `pieces` in order, until it says stop.
fn parts<'a>(pieces: &'a [WordPieceWithSource], each: &mut impl FnMut(Part<'a>) -> bool) -> bool {
    let escaped = |text: &'a str| text.strip_prefix('\\').unwrap_or(text);
    for piece in pieces {
        let part = match &piece.piece {
            WordPiece::Text(text) if globs(text) => {
                // The names it gives start with its text before the first glob character.
                let known = &text[..text.find(['*', '?', '[']).unwrap_or(0)];
                if !known.is_empty() && !each(Part::Text(known)) {
                    return false;
                }
                Part::Unquoted
            }
            WordPiece::Text(text) | WordPiece::SingleQuotedText(text) => Part::Text(text),
            WordPiece::EscapeSequence(text) => Part::Text(escaped(text)),
            WordPiece::DoubleQuotedSequence(inner) => {
                // Inside double quotes a glob character is text.
                for piece in inner {
                    let part = match &piece.piece {
                        WordPiece::Text(text) | WordPiece::SingleQuotedText(text) => Part::Text(text),
                        WordPiece::EscapeSequence(text) => Part::Text(escaped(text)),
                        _ => Part::Quoted,
                    };
                    if !each(part) {
                        return false;
                    }
                }
                continue;
            }
            // What bash and dash make of `$'…'` and `$"…"` differ: one word, not known.
            WordPiece::TildeExpansion(_)
            | WordPiece::AnsiCQuotedText(_)
            | WordPiece::GettextDoubleQuotedSequence(_) => Part::Quoted,
            _ => Part::Unquoted,
        };
        if !each(part) {
            return false;
        }
    }
    true
}

/// The program a word that expands still names, as a path's last part
/// names it (`/usr/bin/tool` is `tool`): `"$HOME/bin/tool"` and
/// `~/bin/tool` name `tool`. `None` when the name itself is not known
/// before running: an expansion after the last `/` (`"$DIR/$TOOL"`), no `/`
/// after the last one (`$CMD`, `${X:-rm}`), or an unquoted expansion or
/// glob anywhere, whose result the shell splits into words or matches
/// against files (`$X/rm` runs `sudo` when `X` is `"sudo "`).
pub fn named_by_path(written: &str) -> Option<String> {
    let pieces = pieces_of(written)?;
    let mut tail = String::new();
    let one_word = !braces(&pieces)
        && parts(&pieces, &mut |part| match part {
            Part::Text(text) => {
                tail.push_str(text);
                true
            }
            // One word: what follows it still names.
            Part::Quoted => {
                tail.clear();
                true
            }
            Part::Unquoted => false,
        });
    let (_, name) = tail.rsplit_once('/').filter(|_| one_word)?;
    (!name.is_empty()).then(|| name.to_string())
}

/// Whether the shell may make more than one word of a word (written as
/// `written`): an expansion outside double quotes is split at blanks and
/// matched against files; `"$f"` stays one word.
pub fn may_split(written: &str) -> bool {
    let Some(pieces) = pieces_of(written) else { return true };
    braces(&pieces) || !parts(&pieces, &mut |part| !matches!(part, Part::Unquoted))
}

/// What is known of a word that expands before it runs, from one reading
/// of it ([`Word::expansion`](super::Word::expansion)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// Whether what the shell makes of it has words only running tells: a
    /// parameter, substitution or arithmetic outside double quotes (split
    /// at blanks: `$N` may be `. rm`), or braces (`{-rf,/}` is `-rf /`). A
    /// glob is not counted: each word it gives is a file's name matching it.
    pub hidden_words: bool,
    /// Whether what the shell makes of it is known only when it runs, as
    /// one word or several: a parameter, substitution or arithmetic, quoted
    /// or not, braces, or bash's `$'…'` and `$"…"` (`"$F"` is `-r` when `F`
    /// is), and a tilde (a home directory: `HOME` may be any text, and
    /// `rm -rf ~` is no text a pattern such as `rm -rf /*` sees). A glob
    /// (names of files that match it) is not counted.
    pub unknown_text: bool,
    /// Whether the shell matches it against the names of files (an unquoted
    /// `*`, `?` or `[…]`): it gives any number of words, each a name, which
    /// may read as an option (a file named `-rf`).
    pub glob: bool,
    /// Whether a tilde is all of it that is not known (`~/x`, `~root`): the
    /// program it names is the same whatever the home directory, so an allow
    /// pattern matches it as written, as it does a glob.
    pub home_only: bool,
    /// What it starts with whatever it expands to
    /// ([`Word::known_start`](super::Word::known_start)).
    pub known_start: String,
}

/// The [`Expansion`] of a word written as `written`: all unknown if the
/// shell's reader cannot read it.
pub(super) fn expansion(written: &str) -> Expansion {
    let Some(pieces) = pieces_of(written) else {
        let known_start = String::new();
        return Expansion {
            hidden_words: true,
            unknown_text: true,
            glob: true,
            home_only: false,
            known_start,
        };
    };
    let braces = braces(&pieces);
    Expansion {
        hidden_words: braces || pieces.iter().any(|piece| !stays_one_word(&piece.piece)),
        unknown_text: braces || pieces.iter().any(|piece| unknown(&piece.piece)),
        glob: pieces.iter().any(|piece| matches!(&piece.piece, WordPiece::Text(text) if globs(text))),
        home_only: !braces
            && pieces.iter().any(|piece| matches!(piece.piece, WordPiece::TildeExpansion(_)))
            && pieces
                .iter()
                .all(|piece| matches!(piece.piece, WordPiece::TildeExpansion(_)) || !unknown(&piece.piece)),
        known_start: start_of(&pieces, braces),
    }
}

/// Whether a piece gives one word, whatever it gives (a glob does:
/// each of its words is a name).
fn stays_one_word(piece: &WordPiece) -> bool {
    matches!(
        piece,
        WordPiece::Text(_)
            | WordPiece::SingleQuotedText(_)
            | WordPiece::EscapeSequence(_)
            | WordPiece::DoubleQuotedSequence(_)
            | WordPiece::TildeExpansion(_)
            | WordPiece::AnsiCQuotedText(_)
            | WordPiece::GettextDoubleQuotedSequence(_)
    )
}

/// Whether what a piece gives is known only when it runs (a glob is not
/// counted).
fn unknown(piece: &WordPiece) -> bool {
    let text = |piece: &WordPiece| {
        matches!(piece, WordPiece::Text(_) | WordPiece::SingleQuotedText(_) | WordPiece::EscapeSequence(_))
    };
    match piece {
        WordPiece::DoubleQuotedSequence(inner) => inner.iter().any(|piece| !text(&piece.piece)),
        piece => !text(piece),
    }
}

/// The text a word written as `written` starts with before anything in it
/// expands ([`Word::known_start`](super::Word::known_start)).
pub(super) fn known_start(written: &str) -> String {
    pieces_of(written).map_or_else(String::new, |pieces| start_of(&pieces, braces(&pieces)))
}

/// The text `pieces` start with before anything in them expands; `braces`:
/// whether bash may expand braces in them.
fn start_of(pieces: &[WordPieceWithSource], braces: bool) -> String {
    let mut start = String::new();
    parts(pieces, &mut |part| match part {
        Part::Text(text) => {
            start.push_str(text);
            true
        }
        Part::Quoted | Part::Unquoted => false,
    });
    // bash may expand braces from the first `{` on (`-{u,i}`).
    if braces && let Some(open) = start.find('{') {
        start.truncate(open);
    }
    start
}

/// Whether unquoted `text` is a pattern the shell matches against file
/// names: a `*`, a `?`, or a `[` with a `]` after it (`[` alone, as in
/// `[ -d out ]`, is the program `[`).
fn globs(text: &str) -> bool {
    text.contains(['*', '?']) || text.find('[').is_some_and(|open| text[open + 1..].contains(']'))
}

/// Whether bash, when it is `sh`, may expand braces in the word (`{rm,x}`
/// runs `rm x`, where dash runs a program named `{rm,x}`): an unquoted `{`,
/// later an unquoted `,` or `..`, later an unquoted `}` (nested braces
/// included; a quoted part is a letter). It may say so of a word bash
/// leaves alone, never the other way.
pub(super) fn braces(pieces: &[WordPieceWithSource]) -> bool {
    // 0: no `{` yet; 1: a `{`; 2: then a `,` or `..` (a `}` now ends it).
    let mut state = 0;
    for piece in pieces {
        let WordPiece::Text(text) = &piece.piece else { continue };
        let mut dot = false;
        for byte in text.bytes() {
            state = match (state, byte) {
                (0, b'{') => 1,
                (1, b',') => 2,
                (1, b'.') if dot => 2,
                (2, b'}') => return true,
                (state, _) => state,
            };
            dot = byte == b'.';
        }
    }
    false
}

/// Appends the text of `pieces` once quotes and escapes are removed;
/// false if anything in it expands (or globs, outside double quotes).
pub(super) fn literal_text(pieces: &[WordPieceWithSource], out: &mut String) -> bool {
    parts(pieces, &mut |part| match part {
        Part::Text(text) => {
            out.push_str(text);
            true
        }
        Part::Quoted | Part::Unquoted => false,
    })
}
