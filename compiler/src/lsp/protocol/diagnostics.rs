//! The compiler's diagnostics as LSP diagnostics: severity, code (with a
//! link-free description: `tissc explain CODE` has the long text), labels as
//! related information, notes and suggestions appended to the message.

use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    PublishDiagnosticsParams, Uri,
};

use crate::diagnostics::Severity;
use crate::lsp::documents::Analysis;

pub(crate) fn publish(uri: &Uri, version: i32, analysis: &Analysis) -> PublishDiagnosticsParams {
    let diagnostics = analysis.frontend.diagnostics.iter().map(|d| convert(uri, analysis, d)).collect();
    PublishDiagnosticsParams { uri: uri.clone(), diagnostics, version: Some(version) }
}

pub(crate) fn convert(uri: &Uri, analysis: &Analysis, d: &crate::diagnostics::Diagnostic) -> Diagnostic {
    let text = analysis.text();
    let mut message = d.message.clone();
    for note in &d.notes {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    for s in &d.suggestions {
        message.push_str(&format!("\nhelp: {}: `{}`", s.message, s.replacement));
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .map(|label| DiagnosticRelatedInformation {
            location: Location { uri: uri.clone(), range: analysis.lines.range(text, label.span) },
            message: label.message.clone(),
        })
        .collect();
    Diagnostic {
        range: analysis.lines.range(text, d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        source: Some("tissc".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    }
}
