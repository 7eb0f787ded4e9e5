//! `--color` for the human output of every subcommand (book: cli/tissvm.md): chosen
//! once per process, then a style for stdout and one for stderr, each
//! coloured only as that stream allows (`auto`: a terminal without NO_COLOR).

use std::io::IsTerminal;
use std::sync::OnceLock;

use crate::report::style::Style;
use tiss_support::cli::{self, ColorArg};

static CHOICE: OnceLock<ColorArg> = OnceLock::new();

/// Records `--color`, before anything is printed.
pub fn choose(color: ColorArg) {
    let _ = CHOICE.set(color);
}

/// The style of human output on stdout.
pub fn stdout() -> Style {
    style(std::io::stdout().is_terminal())
}

/// The style of human output on stderr.
pub fn stderr() -> Style {
    style(std::io::stderr().is_terminal())
}

fn style(stream_is_terminal: bool) -> Style {
    let choice = CHOICE.get().copied().unwrap_or(ColorArg::Auto);
    Style::new(cli::colors(choice, stream_is_terminal))
}
