//! Every diagnostic code, defined once. `tissc explain CODE` prints the long
//! explanation kept in `explain/<CODE>.md`; a test checks that every code has one.

use std::fmt;

/// A stable diagnostic code such as `E0101`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code(pub &'static str);

impl Code {
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

macro_rules! codes {
    ($($name:ident = $code:literal, $title:literal;)*) => {
        $(pub const $name: Code = Code($code);)*
        /// Every code with its one-line title, in code order.
        pub const ALL: &[(Code, &str)] = &[$(($name, $title)),*];
    };
}

codes! {
    // Lexical structure (book: reference/lexical.md).
    INVALID_UTF8 = "E0001", "source is not valid UTF-8";
    UNTERMINATED_STRING = "E0002", "string literal is not closed on its line";
    INVALID_ESCAPE = "E0003", "unknown escape sequence in a string";
    UNTERMINATED_HEREDOC = "E0004", "heredoc has no terminator line";
    INTEGER_OVERFLOW = "E0005", "integer literal does not fit in 64 bits";
    UNEXPECTED_CHARACTER = "E0006", "character that cannot start a token";
    OLD_INTERPOLATION = "E0007", "`{{name}}` is not interpolation; write `${name}`";
    INVALID_NUMBER = "E0008", "malformed number or duration literal";
    INVALID_INTERPOLATION = "E0009", "malformed `${...}` interpolation";
    MALFORMED_PRAGMA = "E0010", "malformed or misplaced pragma";
    VERSION_NOT_SATISFIED = "E0011", "`#TISS_VERSION` is not satisfied by this compiler";
    INVALID_HEREDOC_TAG = "E0012", "heredoc tag must be an uppercase word";
    VERSION_TOO_OLD_FOR_CONSTRUCT = "E0013", "a TissLang 1.1 construct under a `#TISS_VERSION` that admits 1.0";
    // Structure and syntax (book: reference/structure.md, reference/statements.md,
    // reference/expressions.md; reserved words: reference/lexical.md).
    UNEXPECTED_TOKEN = "E0100", "unexpected token";
    MISSPELLED_KEYWORD = "E0101", "misspelled or wrongly cased keyword";
    MISSING_TASK = "E0102", "the plan has no `TASK`";
    DUPLICATE_TASK = "E0103", "more than one `TASK`";
    TASK_NOT_FIRST = "E0104", "`TASK` must come before every other item";
    STATEMENT_AT_TOP_LEVEL = "E0105", "statement outside a block";
    SETUP_AFTER_STEP = "E0106", "`SETUP` after a `STEP`";
    DUPLICATE_SETUP = "E0107", "more than one `SETUP`";
    DEFINE_NOT_TOP_LEVEL = "E0108", "`DEFINE_TASK` inside a block";
    RESERVED_PARALLEL = "E0109", "`PARALLEL` is reserved for a later TissLang";
    CHOOSE_OPTION_COUNT = "E0110", "`CHOOSE` needs two options and at most 1,000";
    RESERVED_WORD_AS_NAME = "E0111", "a reserved word used as a name";
    TYPE_NOT_TOP_LEVEL = "E0112", "`TYPE` inside a block";
    CHOOSE_DUPLICATE_OPTION = "E0113", "two `CHOOSE` options with the same label";
    // Names, types and flow (checks after parsing).
    UNDEFINED_VARIABLE = "E0200", "undefined variable";
    UNDEFINED_TASK = "E0201", "`CALL` of a task that is not defined";
    UNKNOWN_FIELD = "E0202", "unknown field";
    POSSIBLY_UNBOUND = "E0203", "variable not bound on every path";
    LAST_RUN_WITHOUT_RUN = "E0204", "`LAST_RUN` used where no `RUN` happened on some path";
    TYPE_MISMATCH = "E0205", "the two sides of a comparison have different types";
    CONFLICTING_TYPES = "E0206", "variable bound with two different types";
    AMBIGUOUS_COST = "E0207", "bare `COST` compared with something that is not a duration";
    BUDGET_VALUE_TYPE = "E0208", "budget value of the wrong type";
    INVALID_REGEX = "E0209", "invalid regular expression";
    PATH_ESCAPES_WORKSPACE = "E0210", "path is absolute or leaves the workspace";
    CALL_CYCLE = "E0211", "tasks call each other in a cycle";
    DUPLICATE_DEFINE = "E0212", "`DEFINE_TASK` name defined twice";
    NOT_A_BOOLEAN = "E0213", "condition is not a boolean";
    NOT_ORDERED = "E0214", "ordering comparison of values that have no order";
    RECORD_AS_VALUE = "E0215", "a record used where a single value is needed";
    FIELD_OF_NON_RECORD = "E0216", "field access on a value that is not a record";
    FILE_PATH_NAMES_DIRECTORY = "E0217", "a file path ends in `/`";
    UNKNOWN_TYPE = "E0218", "a type name that no `TYPE` defines";
    DUPLICATE_TYPE = "E0219", "`TYPE` name defined twice";
    RECURSIVE_TYPE = "E0220", "a `TYPE` that contains itself, or nests too deeply";
    NAME_TWICE_IN_TYPE = "E0221", "a field or enum literal given twice in one type";
    NOT_IN_ENUM = "E0222", "an enum compared with a literal outside it";
    OPTIONAL_NOT_ESTABLISHED = "E0223", "an optional field read where `EXISTS` is not established";
    ANSWER_INTO_RUN = "E0224", "a record, or a list of records or lists, inserted into a `RUN`";
    EXISTS_OF_REQUIRED = "E0225", "`EXISTS` of something that is not an optional field";
    // Tools (book: guide/tissc.md).
    FORMATTER_FAULT = "E0900", "`tissc fmt` failed its own checks (a bug in the formatter)";
    // Lint warnings (`tissc lint`; book: guide/errors.md), in the order of their codes.
    UNUSED_VARIABLE = "W0001", "variable bound and never used";
    UNCHECKED_RUN = "W0002", "`RUN` result not checked before the next `RUN` or the end of its step";
    RUN_WITHOUT_TIMEOUT = "W0003", "`RUN` without `TIMEOUT`";
    RISKY_COMMAND = "W0004", "command on the risky list";
    PROMPT_WITHOUT_BUDGET = "W0005", "`PROMPT_AGENT` in a plan with no `TOKEN_COUNT` or `API_CALLS` budget";
    CONSTANT_CONDITION = "W0006", "condition that is always true or always false";
    DUPLICATE_NAME = "W0007", "step or task name used twice";
    TAINTED_RUN = "W0008", "model or file data flows into a `RUN`";
    // Dialect warnings (W0001-W0008 are `tissc lint`'s).
    BRACES_NOT_INTERPOLATION = "W0009", "`{name}` in a string is literal text, not interpolation";
}

/// Looks a code up by its text (`"E0101"`), case-insensitively.
pub fn lookup(text: &str) -> Option<(Code, &'static str)> {
    ALL.iter().copied().find(|(c, _)| c.0.eq_ignore_ascii_case(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_sorted() {
        for pair in ALL.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} then {}", pair[0].0, pair[1].0);
        }
    }
}
