//! The JUnit XML report: one testsuite for the plan, one testcase per
//! top-level step.

use super::style::Style;
use super::text::failure_summary;
use super::{RunReport, RunStatus};

impl RunReport {
    /// One testsuite for the plan, one testcase per top-level step.
    pub fn to_junit(&self) -> String {
        let failures = self.steps.iter().filter(|s| s.status == "failed").count();
        let skipped = self.steps.iter().filter(|s| s.status != "passed" && s.status != "failed").count();
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str(&format!(
            "<testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{}\">\n",
            xml(&self.task),
            self.steps.len(),
            seconds(self.duration_ms)
        ));
        for step in &self.steps {
            out.push_str(&format!(
                "  <testcase name=\"{}\" classname=\"{}\" time=\"{}\">",
                xml(&step.name),
                xml(&self.task),
                seconds(step.duration_ms)
            ));
            let mut children = Vec::new();
            // The step's LOG messages (book: reference/formats.md) in <system-out>, and for the
            // failing step its command's output in <system-out>/<system-err>.
            let mut system_out: String = step.logs.iter().map(|m| line(m)).collect();
            let mut system_err = String::new();
            match (step.status, &self.status) {
                ("failed", RunStatus::Failed(f)) => {
                    children.push(format!(
                        "<failure type=\"{}\" message=\"{}\">{}</failure>",
                        f.kind.name(),
                        xml(&f.message),
                        xml(&failure_summary(f, Style::PLAIN))
                    ));
                    if let Some(run) = &f.command {
                        system_out.push_str(&format!("$ {}\n{}", run.command, run.stdout));
                        system_err.push_str(&run.stderr);
                    }
                }
                ("passed", _) => {}
                _ => children.push("<skipped/>".to_string()),
            }
            if !system_out.is_empty() {
                children.push(format!("<system-out>{}</system-out>", xml(&system_out)));
            }
            if !system_err.is_empty() {
                children.push(format!("<system-err>{}</system-err>", xml(&system_err)));
            }
            for child in &children {
                out.push_str(&format!("\n    {child}"));
            }
            out.push_str(if children.is_empty() { "</testcase>\n" } else { "\n  </testcase>\n" });
        }
        out.push_str("</testsuite>\n");
        out
    }
}

/// `text` as a line: ending in one newline.
fn line(text: &str) -> String {
    if text.ends_with('\n') { text.to_string() } else { format!("{text}\n") }
}

fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// Escapes text for an XML attribute or element; drops characters XML 1.0 forbids.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}
