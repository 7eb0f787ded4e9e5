//! Diagnostics as SARIF 2.1.0 (`tissc lint|check --output-format sarif`),
//! the format code-scanning services read (GitHub's `upload-sarif`, GitLab,
//! IDE viewers): one run of the `tissc` driver, a rule per diagnostic code
//! (its title, its `tissc explain` text as help, its default level), and a
//! result per diagnostic with its region and, where the fix is certain
//! (what `tissc fix` applies), the fix as a replacement. Written with
//! `serde_json`: the subset used is small, and `tests/cli/ci_formats.rs` holds
//! the output to the official 2.1.0 schema.

use serde_json::{Value as Json, json};

use crate::diagnostics::codes::{ALL, Code};
use crate::diagnostics::explain::explanation;
use crate::diagnostics::{Applicability, Diagnostic, Severity};
use crate::source_file::SourceFile;
use crate::syntax::span::Span;

/// The schema a SARIF 2.1.0 log names.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The results of a run over its files, then the log.
#[derive(Default)]
pub struct SarifReport {
    results: Vec<Json>,
}

impl SarifReport {
    /// Adds the diagnostics of `file`.
    pub fn add(&mut self, file: &SourceFile, diagnostics: &[Diagnostic]) {
        self.results.extend(diagnostics.iter().map(|d| result(file, d)));
    }

    /// The whole SARIF log.
    pub fn log(self) -> Json {
        let rules: Vec<Json> = ALL.iter().map(|&(code, title)| rule(code, title)).collect();
        json!({
            "$schema": SCHEMA,
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "tissc",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://github.com/tisslang/tisslang",
                    "rules": rules,
                }},
                "columnKind": "unicodeCodePoints",
                "results": self.results,
            }],
        })
    }
}

/// A rule: a diagnostic code, what it means and how grave it is.
fn rule(code: Code, title: &str) -> Json {
    let help = explanation(code).unwrap_or(title);
    // The first paragraph after the explanation's heading says it shortly.
    let full = help.split("\n\n").find(|p| !p.trim_start().starts_with('#')).unwrap_or(title).trim();
    json!({
        "id": code.as_str(),
        "shortDescription": {"text": title},
        "fullDescription": {"text": full},
        "help": {"text": help, "markdown": help},
        "defaultConfiguration": {"level": level(default_severity(code))},
    })
}

/// `E…` codes are errors, `W…` warnings.
fn default_severity(code: Code) -> Severity {
    if code.as_str().starts_with('W') { Severity::Warning } else { Severity::Error }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn result(file: &SourceFile, diagnostic: &Diagnostic) -> Json {
    let index = ALL.iter().position(|(code, _)| *code == diagnostic.code);
    let mut result = json!({
        "ruleId": diagnostic.code.as_str(),
        "level": level(diagnostic.severity),
        "message": {"text": diagnostic.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": artifact(&file.name),
            "region": region(file, diagnostic.span),
        }}],
    });
    if let Some(index) = index {
        result["ruleIndex"] = json!(index);
    }
    let fixes: Vec<Json> = diagnostic
        .suggestions
        .iter()
        .filter(|s| s.applicability == Applicability::Machine)
        .map(|s| {
            json!({
                "description": {"text": s.message},
                "artifactChanges": [{
                    "artifactLocation": artifact(&file.name),
                    "replacements": [{
                        "deletedRegion": region(file, s.span),
                        "insertedContent": {"text": s.replacement},
                    }],
                }],
            })
        })
        .collect();
    if !fixes.is_empty() {
        result["fixes"] = json!(fixes);
    }
    result
}

/// Lines and columns of `span`, 1-based, the end column exclusive (as
/// SARIF's `endColumn` is).
fn region(file: &SourceFile, span: Span) -> Json {
    let (start, end) = file.span_line_cols(span);
    json!({"startLine": start.line, "startColumn": start.column, "endLine": end.line, "endColumn": end.column})
}

/// A file's location: relative paths against `%SRCROOT%` (where the
/// command ran), absolute ones as `file:` URIs; percent-encoded.
fn artifact(path: &str) -> Json {
    match path.strip_prefix('/') {
        Some(rest) => json!({"uri": format!("file:///{}", encode(rest))}),
        None => json!({"uri": encode(path), "uriBaseId": "%SRCROOT%"}),
    }
}

/// `path` as a URI reference: unreserved characters and `/` kept, every
/// other byte percent-encoded.
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Suggestion;
    use crate::diagnostics::codes::MISSPELLED_KEYWORD;

    #[test]
    fn a_result_has_its_rule_region_and_certain_fix() {
        let file =
            SourceFile::new("my plans/a.tiss", "TASK \"t\"\nSTEP \"s\" {\n  asert 1 == 1\n}\n".to_string());
        let start = file.text.find("asert").unwrap();
        let mut diagnostic = Diagnostic::error(MISSPELLED_KEYWORD, Span::new(start, start + 5), "misspelled");
        diagnostic.suggestions.push(Suggestion {
            message: "write ASSERT".into(),
            span: Span::new(start, start + 5),
            replacement: "ASSERT".into(),
            applicability: Applicability::Machine,
        });
        let mut report = SarifReport::default();
        report.add(&file, &[diagnostic]);
        let log = report.log();
        let result = &log["runs"][0]["results"][0];
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][index]["id"], "E0101");
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(
            location["artifactLocation"],
            json!({"uri": "my%20plans/a.tiss", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            location["region"],
            json!({"startLine": 3, "startColumn": 3, "endLine": 3, "endColumn": 8})
        );
        let replacement = &result["fixes"][0]["artifactChanges"][0]["replacements"][0];
        assert_eq!(replacement["insertedContent"]["text"], "ASSERT");
    }

    #[test]
    fn every_code_is_a_rule_with_help_and_a_level() {
        let log = SarifReport::default().log();
        let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), ALL.len());
        for rule in rules {
            assert!(!rule["help"]["text"].as_str().unwrap().is_empty(), "{rule}");
            let expected = if rule["id"].as_str().unwrap().starts_with('W') { "warning" } else { "error" };
            assert_eq!(rule["defaultConfiguration"]["level"], expected);
        }
        assert_eq!(artifact("/abs/x y.tiss"), json!({"uri": "file:///abs/x%20y.tiss"}));
    }
}
