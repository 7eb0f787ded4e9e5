//! Tokens and the keyword table (book: reference/lexical.md).

use crate::syntax::span::Span;

macro_rules! keywords {
    ($($kw:ident),* $(,)?) => {
        /// A reserved word. Keywords are UPPERCASE and case-sensitive.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub enum Kw { $($kw),* }

        impl Kw {
            /// Every reserved word, in the order of the book's reference/lexical.md.
            pub const ALL: &'static [Kw] = &[$(Kw::$kw),*];

            pub fn as_str(self) -> &'static str {
                match self { $(Kw::$kw => stringify!($kw)),* }
            }

            pub fn from_word(word: &str) -> Option<Kw> {
                // Every keyword starts with an uppercase letter; most names do not.
                if !word.as_bytes().first().is_some_and(u8::is_ascii_uppercase) {
                    return None;
                }
                match word {
                    $(stringify!($kw) => Some(Kw::$kw),)*
                    _ => None,
                }
            }
        }
    };
}

keywords! {
    TASK, SETUP, STEP, DEFINE_TASK, CALL, READ, AS, WRITE, APPEND, FROM, MKDIR, DELETE,
    RECURSIVE, RUN, IN, TIMEOUT, ENV, LOG, ASSERT, MESSAGE, VAR, IF, THEN, ELSE, TRY, CATCH,
    PROMPT_AGENT, WITH, INTO, PAUSE, REQUEST_REVIEW, CHOOSE, OPTION, ESTIMATE_COST,
    SET_BUDGET, COST, LAST_RUN, FILE, EXISTS, IS_EMPTY, CONTAINS, STARTS_WITH, ENDS_WITH,
    MATCHES, AND, OR, NOT, TRUE, FALSE,
    // TissLang 1.1: typed model answers (book: reference/types.md).
    TYPE, LIST, OF, STRING, INT, BOOL,
    // Field and dimension names.
    STDOUT, STDERR, EXIT_CODE, DURATION, TIMED_OUT, COMMAND, API_CALLS, TOKEN_COUNT,
    EXECUTION_TIME, RUN_COUNT, INSTRUCTIONS, KIND, APPROVED, COMMENT, LINE,
}

impl Kw {
    /// Keywords that begin a statement inside a block.
    pub const STATEMENT_STARTS: &'static [Kw] = &[
        Kw::STEP,
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
        Kw::SET_BUDGET,
    ];

    /// Keywords that begin a top-level item.
    pub const ITEM_STARTS: &'static [Kw] =
        &[Kw::TASK, Kw::SETUP, Kw::STEP, Kw::DEFINE_TASK, Kw::SET_BUDGET, Kw::TYPE];

    pub fn starts_statement(self) -> bool {
        Kw::STATEMENT_STARTS.contains(&self)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    Kw(Kw),
    /// An identifier; its text is the source at the token's span.
    Ident,
    /// A string literal: the index of its contents among the lexer's strings (`Lexed::strings`).
    Str(u32),
    /// A heredoc: the index of its contents (`Lexed::heredocs`). Its span runs from `<<` to the end of the terminator.
    Heredoc(u32),
    Int(i64),
    /// A duration literal, in milliseconds.
    Duration(u64),
    /// A pragma line: index into `Lexed::pragmas`.
    Pragma(u32),
    LBrace,
    RBrace,
    LParen,
    RParen,
    Comma,
    Dot,
    /// `=`
    Assign,
    /// `|`, between the literals of an enum type.
    Pipe,
    /// `?`, after an optional field's name.
    Question,
    /// `:`, between a field's name and its type.
    Colon,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Eof,
}

impl TokenKind {
    /// How the token is named in "expected ..., found ..." messages.
    pub fn describe(self) -> &'static str {
        match self {
            TokenKind::Kw(kw) => kw.as_str(),
            TokenKind::Ident => "an identifier",
            TokenKind::Str(_) => "a string",
            TokenKind::Heredoc(_) => "a heredoc",
            TokenKind::Int(_) => "an integer",
            TokenKind::Duration(_) => "a duration",
            TokenKind::Pragma(_) => "a pragma",
            TokenKind::LBrace => "`{`",
            TokenKind::RBrace => "`}`",
            TokenKind::LParen => "`(`",
            TokenKind::RParen => "`)`",
            TokenKind::Comma => "`,`",
            TokenKind::Dot => "`.`",
            TokenKind::Assign => "`=`",
            TokenKind::Pipe => "`|`",
            TokenKind::Question => "`?`",
            TokenKind::Colon => "`:`",
            TokenKind::EqEq => "`==`",
            TokenKind::NotEq => "`!=`",
            TokenKind::Lt => "`<`",
            TokenKind::Le => "`<=`",
            TokenKind::Gt => "`>`",
            TokenKind::Ge => "`>=`",
            TokenKind::Eof => "the end of the file",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_table_round_trips() {
        for &kw in Kw::ALL {
            assert_eq!(Kw::from_word(kw.as_str()), Some(kw));
        }
        assert_eq!(Kw::from_word("run"), None);
        assert_eq!(Kw::from_word("PARALLEL"), None);
    }
}
