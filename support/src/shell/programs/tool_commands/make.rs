//! make's words that are a makefile's text: a variable given on its
//! command line is read as a line of a makefile is (`--eval TEXT`, which is
//! one, passes no list by `PASSES_NO_LIST`).

use super::super::{code_variables, tool_values};
use crate::shell::parse::Word;

/// Whether `args`, make's words, define a variable whose definition runs
/// code the line itself holds: `NAME!=LINE` runs LINE as make starts, and
/// a `$` in a definition is expanded (GNU make 4.3 ran `make
/// 'X=$(shell rm v)'` with a makefile that never names `X`), where
/// `$(shell LINE)` runs LINE, `$(file >F,TEXT)` writes F and `$(eval TEXT)`
/// adds rules whose recipes a shell runs. A word the shell expands, outside
/// an option's value, may become such a definition (`make x"$D"` with
/// `D=':=$(shell …)'`), so it passes no list too. So does a value whose
/// words are not plain (`code_variables::plain_words`): a recipe is a
/// shell's line, and a value in it is part of that line (`make
/// 'CFLAGS=-O2; rm v' x.o` ran `rm v` through make's built-in rule, with no
/// makefile; `CFLAGS=*` gives the compiler the files' names). A plain value
/// (`CFLAGS=-O2 -g`, `PREFIX=/usr`) is the build's, as the makefile that
/// uses it is, and one that names a program a built-in rule runs (`CC=…`,
/// whatever its value) is read as that program
/// (`code_variables::build_programs`); a goal
/// (`make '$(x)'`) is not expanded.
pub(super) fn defines_code(args: &[Word]) -> bool {
    let mut options = true;
    let mut at = 0;
    while let Some(word) = args.get(at) {
        at += 1;
        let text = word.text();
        if options && text == "--" {
            options = false;
            continue;
        }
        if options && text.len() > 1 && text.starts_with('-') {
            if tool_values::value_follows("make", args, text) {
                at += 1;
            }
            continue;
        }
        let runs = match word {
            Word::Expands(_) => true,
            Word::Literal(text) => text.split_once('=').is_some_and(|(name, value)| {
                let program = code_variables::names_a_build_program(name.trim_end_matches([':', '+', '?']));
                name.ends_with('!') || text.contains('$') || (!program && !code_variables::plain_words(value))
            }),
        };
        if runs {
            return true;
        }
    }
    false
}
