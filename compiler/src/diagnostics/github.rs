//! Diagnostics for GitHub Actions (`tissc check|lint --output-format
//! github`): each one a workflow command at its span, through
//! `tiss_support::github` (escaping, GitHub's caps), and the Markdown step
//! summary: the counts, a row per diagnostic, and the annotations past the
//! caps counted.

use std::io::{self, Write};

use tiss_support::github::{Annotation, Annotator, Level, table_cell};

use crate::diagnostics::{Diagnostic, Severity};
use crate::source_file::SourceFile;

/// The annotation of `diagnostic` of `file`: its severity, code and span
/// (1-based lines and columns in characters, the end exclusive, as the
/// JSON diagnostics give them).
pub fn annotation(file: &SourceFile, diagnostic: &Diagnostic) -> Annotation {
    let (start, end) = file.span_line_cols(diagnostic.span);
    Annotation {
        level: match diagnostic.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
        },
        file: file.name.clone(),
        line: start.line,
        column: Some(start.column),
        end_line: Some(end.line),
        end_column: Some(end.column),
        title: diagnostic.code.as_str().to_string(),
        message: diagnostic.message.clone(),
    }
}

/// The annotations of a run of `tissc check` or `lint` over its files, and
/// what its summary says.
#[derive(Default)]
pub struct GithubReport {
    annotator: Annotator,
    rows: String,
    files: usize,
    errors: usize,
    warnings: usize,
}

impl GithubReport {
    /// Annotates the diagnostics of `file` on `out`, up to the caps, and
    /// keeps their rows for the summary.
    pub fn add(
        &mut self,
        out: &mut dyn Write,
        file: &SourceFile,
        diagnostics: &[Diagnostic],
    ) -> io::Result<()> {
        self.files += 1;
        for diagnostic in diagnostics {
            let annotation = annotation(file, diagnostic);
            match diagnostic.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
            self.rows.push_str(&format!(
                "| {} | {}:{} | {} {} | {} |\n",
                table_cell(&format!("`{}`", file.name)),
                annotation.line,
                annotation.column.unwrap_or(1),
                diagnostic.severity.as_str(),
                diagnostic.code.as_str(),
                table_cell(&diagnostic.message)
            ));
            self.annotator.annotate(out, &annotation)?;
        }
        Ok(())
    }

    /// The Markdown summary, headed with what `verb` (`check`, `lint`) found.
    pub fn summary(&self, verb: &str) -> String {
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        let mut out = format!(
            "### tissc {verb}: {}, {} in {}\n\n",
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
            plural(self.files, "file")
        );
        if !self.rows.is_empty() {
            out.push_str("| File | Place | Diagnostic | Message |\n|---|---|---|---|\n");
            out.push_str(&self.rows);
            out.push('\n');
        }
        out.push_str(&self.annotator.not_annotated());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::codes;
    use crate::syntax::span::Span;

    #[test]
    fn a_diagnostic_is_annotated_at_its_span_in_characters() {
        let file = SourceFile::new("dir/a,b.tiss", "TASK \"é\"\nSTEP \"s\" {\n  ASERT 1\n}\n".to_string());
        let start = file.text.find("ASERT").unwrap();
        let diagnostic =
            Diagnostic::error(codes::MISSPELLED_KEYWORD, Span::new(start, start + 5), "100%\nbad");
        let line = annotation(&file, &diagnostic).command();
        assert_eq!(
            line,
            format!(
                "::error file=dir/a%2Cb.tiss,line=3,col=3,endLine=3,endColumn=8,title={}::100%25%0Abad",
                codes::MISSPELLED_KEYWORD
            )
        );
    }

    #[test]
    fn the_summary_counts_and_keeps_each_row_to_its_cells() {
        let file = SourceFile::new("p|q.tiss", "TASK \"t\"\n".to_string());
        let diagnostic = Diagnostic::error(codes::MISSPELLED_KEYWORD, Span::new(0, 4), "a | b\nc");
        let mut report = GithubReport::default();
        let mut out = Vec::new();
        for _ in 0..12 {
            report.add(&mut out, &file, std::slice::from_ref(&diagnostic)).unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 10);
        let summary = report.summary("check");
        assert!(summary.starts_with("### tissc check: 12 errors, 0 warnings in 12 files\n"), "{summary}");
        assert!(summary.contains("| `p\\|q.tiss` | 1:1 | error "), "{summary}");
        assert!(summary.contains("| a \\| b<br>c |"), "{summary}");
        assert!(summary.contains("- 2 more errors not annotated"), "{summary}");
    }
}
