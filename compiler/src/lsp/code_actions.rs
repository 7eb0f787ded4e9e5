//! Quick fixes: every suggestion of a diagnostic (lint's included) that
//! touches the requested range, as a `quickfix` code action whose edit is
//! exactly the suggestion's (its span in UTF-16 positions, its
//! replacement). A `machine` suggestion, which has one meaning (what
//! `tissc fix` applies unasked), is the preferred action; a `maybe` one is
//! offered but not preferred, so an editor's "fix all" leaves it alone.

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse, TextEdit,
    WorkspaceEdit,
};

use super::Failure;
use super::documents::Documents;
use super::protocol::diagnostics;
use crate::diagnostics::Applicability;

pub(crate) fn code_actions(
    docs: &Documents,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>, Failure> {
    let uri = &params.text_document.uri;
    let analysis = &docs.get(uri)?.analysis;
    let wanted = params.context.only.as_ref().is_none_or(|only| {
        only.iter().any(|kind| CodeActionKind::QUICKFIX.as_str().starts_with(kind.as_str()))
    });
    if !wanted {
        return Ok(Some(Vec::new()));
    }
    let text = analysis.text();
    // A range past the end of the text is read as reaching the end.
    let asked = analysis.lines.span(text, params.range).unwrap_or(text.len()..text.len());
    let mut actions = Vec::new();
    for diagnostic in &analysis.frontend.diagnostics {
        let span = diagnostic.span.start as usize..diagnostic.span.end as usize;
        // Touching counts: a cursor at either end of the diagnostic is on it.
        if span.start > asked.end || asked.start > span.end {
            continue;
        }
        for suggestion in &diagnostic.suggestions {
            let edit = TextEdit {
                range: analysis.lines.range(text, suggestion.span),
                new_text: suggestion.replacement.clone(),
            };
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: title(&suggestion.message, &suggestion.replacement),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostics::convert(uri, analysis, diagnostic)]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(suggestion.applicability == Applicability::Machine),
                ..CodeAction::default()
            }));
        }
    }
    Ok(Some(actions))
}

/// The action's name in the editor's menu: the suggestion, and the text it
/// writes when that is short enough to read there.
fn title(message: &str, replacement: &str) -> String {
    const SHOWN: usize = 40;
    let shown = replacement.lines().next().unwrap_or("");
    if replacement.is_empty() {
        format!("{message} (delete)")
    } else if shown.chars().count() <= SHOWN && shown.len() == replacement.len() {
        format!("{message}: `{replacement}`")
    } else {
        message.to_string()
    }
}
