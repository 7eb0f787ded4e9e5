//! The JUnit XML report: one testsuite for the plan, one testcase per
//! top-level step.

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
            match (step.status, &self.status) {
                ("failed", RunStatus::Failed(f)) => {
                    children.push(format!(
                        "<failure type=\"{}\" message=\"{}\">{}</failure>",
                        f.kind.name(),
                        xml(&f.message),
                        xml(&failure_summary(f))
                    ));
                    // The failing command's output, as SPEC §5 places it.
                    if let Some(run) = &f.command {
                        let out = format!("$ {}\n{}", run.command, run.stdout);
                        children.push(format!("<system-out>{}</system-out>", xml(&out)));
                        children.push(format!("<system-err>{}</system-err>", xml(&run.stderr)));
                    }
                }
                ("passed", _) => {}
                _ => children.push("<skipped/>".to_string()),
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
