//! One line of help per reserved word (book: reference/lexical.md, and for each
//! its page of the language reference), for hover and completion: the form it
//! is written in and what it does.

use crate::syntax::token::Kw;

/// `(form, effect)` of a keyword.
pub(crate) fn help(kw: Kw) -> (&'static str, &'static str) {
    match kw {
        Kw::TASK => ("TASK string", "Names the plan; exactly once, before every other item."),
        Kw::SETUP => ("SETUP [string] block", "Runs first, before every STEP; at most one."),
        Kw::STEP => ("STEP string block", "A named step; top-level steps run in source order, steps nest."),
        Kw::DEFINE_TASK => {
            ("DEFINE_TASK string block", "A reusable block, run only by CALL; top level only.")
        }
        Kw::CALL => ("CALL string", "Run the named DEFINE_TASK. Calls form no cycle."),
        Kw::READ => {
            ("READ string AS ident", "Read a UTF-8 text file of the workspace into a string variable.")
        }
        Kw::AS => (
            "READ string AS ident / CATCH AS ident / INTO ident AS type",
            "Names the variable READ or CATCH binds; after PROMPT_AGENT's INTO, the answer's type.",
        ),
        Kw::WRITE => (
            "WRITE string heredoc | WRITE string FROM expr",
            "Write the file atomically, creating parent directories.",
        ),
        Kw::APPEND => {
            ("APPEND string heredoc | APPEND string FROM expr", "Append to the file, creating it if absent.")
        }
        Kw::FROM => ("WRITE string FROM expr", "Writes the value of an expression instead of a heredoc."),
        Kw::MKDIR => ("MKDIR string", "Create the directory and its parents (no error if it exists)."),
        Kw::DELETE => (
            "DELETE string [RECURSIVE]",
            "Delete a file or an empty directory; a missing path is a command_error.",
        ),
        Kw::RECURSIVE => ("DELETE string RECURSIVE", "Lets DELETE remove a non-empty directory."),
        Kw::RUN => (
            "RUN string [IN string] [TIMEOUT duration]",
            "Run the command with /bin/sh -c in the workspace; the result is in LAST_RUN. A non-zero exit does not halt: assert on it.",
        ),
        Kw::IN => ("RUN string IN string", "Runs the command in a subdirectory of the workspace."),
        Kw::TIMEOUT => (
            "RUN string TIMEOUT duration",
            "Kills the command's process group after the duration (TIMED_OUT, exit code 124).",
        ),
        Kw::ENV => ("ENV IDENT = expr", "Set an environment variable for later RUNs."),
        Kw::LOG => ("LOG string", "Write a message to the run's log and report."),
        Kw::ASSERT => {
            ("ASSERT cond [MESSAGE string]", "If the condition is false, fail with assertion_failed.")
        }
        Kw::MESSAGE => ("ASSERT cond MESSAGE string", "The message of a failed assertion."),
        Kw::VAR => ("VAR ident = expr", "Bind a variable (global to the run, one type)."),
        Kw::IF => ("IF cond [THEN] block [ELSE (if | block)]", "Conditional."),
        Kw::THEN => ("IF cond THEN block", "Optional, after an IF's condition."),
        Kw::ELSE => ("IF cond block ELSE (if | block)", "What runs when the condition is false."),
        Kw::TRY => (
            "TRY block CATCH [AS ident] block",
            "Run the first block; on a catchable failure run the second.",
        ),
        Kw::CATCH => {
            ("TRY block CATCH [AS ident] block", "The handler; AS e binds e.KIND, e.MESSAGE, e.STEP, e.LINE.")
        }
        Kw::PROMPT_AGENT => (
            "PROMPT_AGENT string [WITH ident {, ident}] [INTO ident [AS type]]",
            "Ask the configured language model; store the answer text, or with `AS type` the answer as data of that type (without INTO it is only logged).",
        ),
        Kw::WITH => {
            ("PROMPT_AGENT string WITH ident {, ident}", "Variables whose values go with the prompt.")
        }
        Kw::INTO => {
            ("… INTO ident", "Names the variable PROMPT_AGENT, REQUEST_REVIEW or ESTIMATE_COST binds.")
        }
        Kw::PAUSE => ("PAUSE string", "Stop for a human to continue."),
        Kw::REQUEST_REVIEW => (
            "REQUEST_REVIEW string [INTO ident]",
            "Ask a human to approve; rejected without INTO fails with review_rejected, with INTO binds r.APPROVED, r.COMMENT.",
        ),
        Kw::CHOOSE => {
            ("CHOOSE [string] { OPTION string block ... }", "A human picks one option; its block runs.")
        }
        Kw::OPTION => ("OPTION string block", "One choice of a CHOOSE."),
        Kw::ESTIMATE_COST => (
            "ESTIMATE_COST [INTO ident] block",
            "Do not run the block: compute its static cost bound, log it, and bind it (upper bounds, and _MIN lower bounds).",
        ),
        Kw::SET_BUDGET => (
            "SET_BUDGET DIM = integer | duration",
            "A hard limit on a cost dimension for the rest of the run.",
        ),
        Kw::COST => (
            "COST.DIM",
            "What the run has spent so far: API_CALLS, TOKEN_COUNT, EXECUTION_TIME, RUN_COUNT, INSTRUCTIONS.",
        ),
        Kw::LAST_RUN => (
            "LAST_RUN.FIELD",
            "The last RUN's result: STDOUT, STDERR, EXIT_CODE, DURATION, TIMED_OUT, COMMAND.",
        ),
        Kw::FILE => ("FILE string (EXISTS | IS_EMPTY | CONTAINS expr)", "A test on a file of the workspace."),
        Kw::EXISTS => (
            "FILE string EXISTS / expr EXISTS",
            "Whether the file exists; after an optional field of a typed answer, whether the field is present.",
        ),
        Kw::IS_EMPTY => {
            ("expr IS_EMPTY / FILE string IS_EMPTY", "Whether a string, a list or a file is empty.")
        }
        Kw::CONTAINS => ("a [NOT] CONTAINS b", "Whether a string contains another, or a list holds a value."),
        Kw::STARTS_WITH => ("a [NOT] STARTS_WITH b", "Whether a string starts with another."),
        Kw::ENDS_WITH => ("a [NOT] ENDS_WITH b", "Whether a string ends with another."),
        Kw::MATCHES => ("a [NOT] MATCHES \"regex\"", "Whether a string matches a regular expression."),
        Kw::AND => ("cond AND cond", "Both conditions."),
        Kw::OR => ("cond OR cond", "Either condition."),
        Kw::NOT => ("NOT cond", "The condition's negation."),
        Kw::TRUE | Kw::FALSE => ("TRUE | FALSE", "A boolean."),
        Kw::TYPE => (
            "TYPE Name = type",
            "Names the shape of a model's answer (TissLang 1.1); top level, after TASK. Used as `PROMPT_AGENT … INTO x AS Name`.",
        ),
        Kw::LIST => ("LIST OF type", "A list of values of one type (in a TYPE or after `INTO x AS`)."),
        Kw::OF => ("LIST OF type", "The element type of a list."),
        Kw::STRING => ("STRING", "The type of text (in a TYPE or after `INTO x AS`)."),
        Kw::INT => ("INT", "The type of 64-bit integers (in a TYPE or after `INTO x AS`)."),
        Kw::BOOL => ("BOOL", "The type of TRUE and FALSE (in a TYPE or after `INTO x AS`)."),
        Kw::STDOUT => ("LAST_RUN.STDOUT", "The last RUN's standard output (a string)."),
        Kw::STDERR => ("LAST_RUN.STDERR", "The last RUN's standard error (a string)."),
        Kw::EXIT_CODE => ("LAST_RUN.EXIT_CODE", "The last RUN's exit status (an integer; 124 on timeout)."),
        Kw::DURATION => ("LAST_RUN.DURATION", "How long the last RUN took (a duration)."),
        Kw::TIMED_OUT => {
            ("LAST_RUN.TIMED_OUT", "Whether the last RUN was killed by its TIMEOUT (a boolean).")
        }
        Kw::COMMAND => ("LAST_RUN.COMMAND", "The last RUN's command as run (a string)."),
        Kw::API_CALLS => ("COST.API_CALLS", "Language-model calls (a cost dimension)."),
        Kw::TOKEN_COUNT => ("COST.TOKEN_COUNT", "Language-model tokens (a cost dimension)."),
        Kw::EXECUTION_TIME => {
            ("COST.EXECUTION_TIME", "Time spent running commands (a cost dimension, a duration).")
        }
        Kw::RUN_COUNT => ("COST.RUN_COUNT", "RUN commands started (a cost dimension)."),
        Kw::INSTRUCTIONS => ("COST.INSTRUCTIONS", "VM instructions executed (a cost dimension)."),
        Kw::KIND => ("e.KIND", "A caught error's kind (a string)."),
        Kw::APPROVED => ("r.APPROVED", "Whether the reviewer approved (a boolean)."),
        Kw::COMMENT => ("r.COMMENT", "The reviewer's comment (a string)."),
        Kw::LINE => ("e.LINE", "The line a caught error came from (an integer)."),
    }
}

/// Whether a keyword is a field or dimension name (the second list
/// of reserved words, book: reference/lexical.md): completion offers those only after `.`.
pub(crate) fn is_field_name(kw: Kw) -> bool {
    Kw::ALL.iter().position(|&k| k == kw) >= Kw::ALL.iter().position(|&k| k == Kw::STDOUT)
}
