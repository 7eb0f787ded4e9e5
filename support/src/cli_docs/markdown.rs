//! The command-line reference of the book (`docs/src/cli/tissc.md`,
//! `docs/src/cli/tissvm.md`), rendered from a binary's clap definition as
//! CommonMark (with GitHub's tables, which mdBook reads): a section per
//! command and visible subcommand, recursively, with its description, usage
//! and a table of its arguments, then the binary's exit statuses.
//!
//! Deterministic: the same definition gives the same bytes. Every heading is
//! a command's full name (`## tissc check`), so its anchor (`#tissc-check`)
//! changes only when the command does; each argument has an anchor of its
//! own (`#tissc-check--output-format`, `#tissc-check-file`).

use std::fmt::Write as _;

/// What a page says besides the clap definition.
pub struct Page<'a> {
    /// The command that writes the page, as a reader would run it.
    pub generated_by: &'a str,
    /// The exit statuses, each with what it means, in order.
    pub exit_statuses: &'a [(u8, &'a str)],
    /// What the table leaves out, said after it.
    pub exit_note: Option<&'a str>,
}

/// The reference page of `command` (a binary's whole definition).
pub fn reference(command: clap::Command, page: &Page) -> String {
    let mut command = command;
    command.build();
    let name = command.get_name().to_string();
    let mut out = String::new();
    let _ = writeln!(out, "# {name} command-line reference\n");
    let _ = writeln!(
        out,
        "This page is generated from the command-line definition of `{name}` itself: do not edit it; \
         run `{}` to write it again. Every command takes `-h` (a summary) and `--help` (this detail).\n",
        page.generated_by
    );
    section(&mut out, &command, &name, true);
    out.push_str("## Exit status\n\n| Status | Meaning |\n|---|---|\n");
    for (status, meaning) in page.exit_statuses {
        let _ = writeln!(out, "| {status} | {} |", cell(&text(meaning)));
    }
    if let Some(note) = page.exit_note {
        let _ = writeln!(out, "\n{}", text(note));
    }
    out
}

/// The subcommands a reader can use: neither hidden nor clap's `help`.
fn visible_subcommands(command: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    command.get_subcommands().filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
}

/// The section of `command`, whose full name is `path`, then those of its subcommands.
fn section(out: &mut String, command: &clap::Command, path: &str, top: bool) {
    let _ = writeln!(out, "## {path}\n");
    let about = command.get_long_about().or(command.get_about()).map(|a| a.to_string());
    for paragraph in paragraphs(about.as_deref().unwrap_or("")) {
        let _ = writeln!(out, "{}\n", sentence(paragraph));
    }
    let usage = command.clone().bin_name(path).render_usage().to_string();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage);
    let _ = writeln!(out, "```text\n{}\n```\n", usage.trim_end());
    let arguments: Vec<&clap::Arg> = command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        // Global options are told once, at the top; help and version likewise.
        .filter(|arg| top || !(arg.is_global_set() || is_help_or_version(arg)))
        .collect();
    let positionals: Vec<&clap::Arg> = arguments.iter().copied().filter(|a| a.is_positional()).collect();
    if !positionals.is_empty() {
        table(out, "Arguments", &positionals, path);
    }
    // Options by help heading, in the order their headings first appear.
    let mut headings: Vec<Option<&str>> = Vec::new();
    for arg in arguments.iter().filter(|a| !a.is_positional()) {
        if !headings.contains(&arg.get_help_heading()) {
            headings.push(arg.get_help_heading());
        }
    }
    for heading in headings {
        let options: Vec<&clap::Arg> = arguments
            .iter()
            .copied()
            .filter(|a| !a.is_positional() && a.get_help_heading() == heading)
            .collect();
        table(out, heading.unwrap_or("Options"), &options, path);
    }
    if !top && command.get_arguments().any(|a| a.is_global_set() && !a.is_hide_set()) {
        let root = path.split(' ').next().unwrap_or(path);
        let _ = writeln!(out, "It also takes the [global options](#{}) of `{root}`.\n", anchor(root));
    }
    let after = command.get_after_long_help().or(command.get_after_help()).map(|a| a.to_string());
    for paragraph in paragraphs(after.as_deref().unwrap_or("")) {
        let _ = writeln!(out, "{}\n", text(paragraph));
    }
    let subs: Vec<&clap::Command> = visible_subcommands(command).collect();
    if !subs.is_empty() {
        out.push_str("**Subcommands**\n\n");
        for sub in &subs {
            let sub_path = format!("{path} {}", sub.get_name());
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            let _ = writeln!(out, "- [`{sub_path}`](#{}): {}", anchor(&sub_path), text(about.trim()));
        }
        out.push('\n');
    }
    for sub in subs {
        section(out, sub, &format!("{path} {}", sub.get_name()), false);
    }
}

fn is_help_or_version(arg: &clap::Arg) -> bool {
    matches!(
        arg.get_action(),
        clap::ArgAction::Help
            | clap::ArgAction::HelpShort
            | clap::ArgAction::HelpLong
            | clap::ArgAction::Version
    )
}

/// A table of arguments under a bold label (not a heading: a heading's
/// anchor would be numbered by how many came before it).
fn table(out: &mut String, label: &str, arguments: &[&clap::Arg], path: &str) {
    let _ = writeln!(out, "**{}**\n", text(label));
    out.push_str("| Argument | Default | Description |\n|---|---|---|\n");
    for arg in arguments {
        let id = argument_anchor(path, arg);
        // A flag's default (`false`) says nothing its absence does not.
        let defaults: Vec<String> = if arg.get_action().takes_values() {
            arg.get_default_values().iter().map(|v| code(&v.to_string_lossy())).collect()
        } else {
            Vec::new()
        };
        let _ = writeln!(
            out,
            "| <a id=\"{id}\"></a>{} | {} | {} |",
            cell(&code(&spelling(arg))),
            cell(&defaults.join(" ")),
            cell(&description(arg))
        );
    }
    out.push('\n');
}

/// How an argument is written: `-o, --output <OUT>`, `<FILE>...`, `--strip`.
fn spelling(arg: &clap::Arg) -> String {
    let values: Vec<String> = arg
        .get_value_names()
        .map(|names| names.iter().map(|n| format!("<{n}>")).collect())
        .unwrap_or_else(|| vec![format!("<{}>", arg.get_id().as_str().to_uppercase())]);
    let repeated = matches!(arg.get_action(), clap::ArgAction::Append)
        || arg.get_num_args().is_some_and(|n| n.max_values() > values.len());
    let mut values = values.join(" ");
    if repeated {
        values.push_str("...");
    }
    if arg.is_positional() {
        return if arg.is_last_set() { format!("-- {values}") } else { values };
    }
    let mut flags = Vec::new();
    if let Some(short) = arg.get_short() {
        flags.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        flags.push(format!("--{long}"));
    }
    let mut spelled = flags.join(", ");
    if arg.get_action().takes_values() {
        spelled.push(' ');
        spelled.push_str(&values);
    }
    spelled
}

/// The argument's long help, then its possible values, environment variable,
/// aliases and whether it is required or may be repeated.
fn description(arg: &clap::Arg) -> String {
    let help = arg.get_long_help().or(arg.get_help()).map(|h| h.to_string()).unwrap_or_default();
    let mut parts: Vec<String> = paragraphs(&help).map(sentence).collect();
    let values: Vec<String> = if arg.get_action().takes_values() {
        arg.get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| match v.get_help() {
                Some(help) => format!("{} ({})", code(v.get_name()), text(help.to_string().trim())),
                None => code(v.get_name()),
            })
            .collect()
    } else {
        Vec::new()
    };
    if !values.is_empty() {
        parts.push(format!("Values: {}.", values.join(", ")));
    }
    if let Some(env) = arg.get_env() {
        parts.push(format!("Environment: {}.", code(&env.to_string_lossy())));
    }
    let aliases: Vec<String> = arg
        .get_visible_aliases()
        .unwrap_or_default()
        .iter()
        .map(|a| code(&format!("--{a}")))
        .chain(arg.get_visible_short_aliases().unwrap_or_default().iter().map(|a| code(&format!("-{a}"))))
        .collect();
    if !aliases.is_empty() {
        parts.push(format!("Also written {}.", aliases.join(", ")));
    }
    if arg.is_required_set() && !arg.is_positional() {
        parts.push("Required.".to_string());
    }
    if matches!(arg.get_action(), clap::ArgAction::Append | clap::ArgAction::Count) && !arg.is_positional() {
        parts.push("May be given more than once.".to_string());
    }
    parts.join("<br><br>")
}

/// The anchor of an argument: its command's, then `--LONG` (or `--S` for a
/// short-only option) for an option and `-NAME` for a positional argument
/// (`tissc-check--output-format`, `tissc-check-file`), so none can be taken
/// for a subcommand's.
fn argument_anchor(path: &str, arg: &clap::Arg) -> String {
    let name = match (arg.get_long(), arg.get_short()) {
        (Some(long), _) => format!("--{long}"),
        (None, Some(short)) => format!("--{short}"),
        // A positional argument by the name its usage shows (`<FILE>`).
        (None, None) => {
            let value = arg.get_value_names().and_then(|v| v.first()).map(|v| v.as_str());
            let name = value.unwrap_or(arg.get_id().as_str());
            format!("-{}", name.replace(|c: char| !c.is_ascii_alphanumeric(), "-"))
        }
    };
    format!("{}{}", anchor(path), name.to_lowercase())
}

/// The anchor mdBook gives a heading that reads `text`: lowercase, blanks
/// as `-`, only letters, digits, `-` and `_` kept.
fn anchor(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The paragraphs of a help text, trimmed, empty ones left out.
fn paragraphs(text: &str) -> impl Iterator<Item = &str> {
    text.split("\n\n").map(str::trim).filter(|p| !p.is_empty())
}

/// `text` as CommonMark inline code: fenced with more backquotes than it holds.
fn code(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Help text as CommonMark: its `code spans` kept as they are, everything
/// else escaped so that it reads as written (no emphasis, links, HTML or
/// block markers made of it); line breaks within a paragraph become blanks.
fn text(help: &str) -> String {
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    // Unbalanced backquotes are text, not the start of a code span.
    let spans = help.matches('`').count() % 2 == 0;
    let mut out = String::with_capacity(help.len());
    let mut in_code = false;
    for (i, c) in help.char_indices() {
        if c == '`' && spans {
            in_code = !in_code;
            out.push(c);
        } else if in_code {
            out.push(c);
        } else if matches!(c, '\\' | '*' | '_' | '[' | ']' | '<' | '>' | '&')
            || (i == 0 && matches!(c, '#' | '+' | '-' | '=' | '~'))
        {
            out.push('\\');
            out.push(c);
        } else {
            out.push(c);
        }
    }
    // `1. ` or `1) ` at the start of a paragraph would begin a list.
    if let Some(end) = out.find(|c: char| !c.is_ascii_digit())
        && end > 0
        && out[end..].starts_with(['.', ')'])
    {
        out.insert(end, '\\');
    }
    out
}

/// A paragraph of help as [`text`], ended as a sentence: clap drops the
/// period of a one-paragraph help, which reads as a fragment before more.
fn sentence(help: &str) -> String {
    let mut out = text(help);
    if !out.ends_with(['.', ':', '!', '?', '…']) {
        out.push('.');
    }
    out
}

/// Inline CommonMark as a table cell: GitHub's tables split on every `|`
/// that is not escaped, in code spans too.
fn cell(inline: &str) -> String {
    inline.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_markup_outside_code_spans() {
        assert_eq!(text("a <b> *c* `x <y> *z*` [d](e)"), r"a \<b\> \*c\* `x <y> *z*` \[d\](e)");
        assert_eq!(text("odd ` quote"), "odd ` quote");
        assert_eq!(text("# not a heading"), r"\# not a heading");
        assert_eq!(text("1. not a list"), r"1\. not a list");
        assert_eq!(text("two\nlines"), "two lines");
    }

    #[test]
    fn cells_escape_every_pipe() {
        assert_eq!(cell(&text("a|b `c|d`")), r"a\|b `c\|d`");
    }

    #[test]
    fn code_spans_hold_backquotes() {
        assert_eq!(code("a"), "`a`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a"), "`` `a ``");
    }

    #[test]
    fn anchors_are_as_mdbook_makes_them() {
        assert_eq!(anchor("tissc check"), "tissc-check");
        assert_eq!(anchor("Exit status"), "exit-status");
    }
}
