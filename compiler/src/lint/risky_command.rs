//! W0004: a command on the risky list (book: guide/errors.md): a network fetch,
//! privilege, a recursive delete, a disk-level tool, `chmod 777`, a pipe
//! into a shell, a tool that runs commands it makes (`sed 's/x/y/e'`). The words are read by `command_risk`, as `tissvm inspect`
//! reads them for its risk level. An interpolated value is one quoted word
//! (book: reference/statements.md), so only the literal text of a command is read.

use crate::command_risk::{self, CommandRisk};
use crate::diagnostics::Diagnostic;
use crate::diagnostics::codes;
use crate::syntax::ast::{StmtKind, StrPart};
use crate::syntax::span::Span;

use super::Lint;
use crate::syntax::visit;

pub(super) fn check(cx: &mut Lint<'_>) {
    let mut found = Vec::new();
    let mut text = String::new();
    visit::statements(cx.plan, &mut |stmt, in_estimate| {
        let StmtKind::Run { command, .. } = &stmt.kind else { return };
        if in_estimate {
            return;
        }
        text.clear();
        for part in &command.parts {
            match part {
                StrPart::Text { text: t } => text.push_str(t.as_str()),
                StrPart::Interp { .. } => text.push(' '),
            }
        }
        let risk = command_risk::scan(&text);
        let reasons = reasons(&risk);
        if !reasons.is_empty() {
            found.push((stmt.span, command.span, reasons, risk.world_writable));
        }
    });
    for (stmt, command, reasons, world_writable) in found {
        let mut warning = Diagnostic::warning(
            codes::RISKY_COMMAND,
            stmt,
            format!("risky command: it {}", reasons.join(", and ")),
        )
        .with_note(
            "review it with `tissvm inspect`; a policy file can deny it or make it wait for approval \
             (`[commands] approve = [...]`)",
        );
        if world_writable && let Some(mode) = chmod_mode(cx.text(command), command) {
            let replacement = cx.rewrite(stmt, mode, "755");
            warning = warning.with_suggestion("let only the owner write", stmt, replacement);
        }
        cx.warn(warning);
    }
}

/// What makes the command risky, in words.
fn reasons(risk: &CommandRisk) -> Vec<String> {
    let mut out = Vec::new();
    if risk.privilege {
        out.push("runs with elevated privileges".to_string());
    }
    if let Some(tool) = risk.network {
        out.push(format!("uses the network tool `{tool}`"));
    }
    if let Some(tool) = risk.disk {
        out.push(format!("uses the disk-level tool `{tool}`"));
    }
    if risk.recursive_rm {
        out.push("deletes recursively (`rm -r`)".to_string());
    }
    if risk.world_writable {
        out.push("makes files writable by every user (`chmod 777`)".to_string());
    }
    if let Some(shell) = risk.pipe_to_shell {
        out.push(format!("pipes into a shell (`| {shell}`), which runs whatever it is sent"));
    }
    if let Some(tool) = &risk.makes_commands {
        out.push(tisslang::module::made_command_text(tool));
    }
    if let Some(why) = &risk.unreadable {
        out.push(format!("cannot be read as shell syntax ({why}), so what it runs is not known"));
    }
    out
}

/// The span of the `777` after `chmod` in the command's source text.
fn chmod_mode(source: &str, command: Span) -> Option<Span> {
    let chmod = source.find("chmod ")?;
    let rest = &source[chmod..];
    let at = rest.find(" 777").or_else(|| rest.find(" 0777"))? + 1;
    let len = if rest[at..].starts_with('0') { 4 } else { 3 };
    let start = command.start as usize + chmod + at;
    Some(Span::new(start, start + len))
}
