//! GitHub Actions workflow commands and step summaries (book: cookbook/ci.md,
//! `--output-format github`), shared by `tissc` and `tissvm`.
//!
//! An annotation is one line on stdout, `::error file=F,line=L,...::MESSAGE`,
//! escaped as the runner unescapes it: in the message `%`, CR and LF become
//! `%25`, `%0D` and `%0A`; in a property value `:` and `,` become `%3A` and
//! `%2C` besides. GitHub shows at most [`PER_LEVEL`] annotations of each level
//! per step and [`PER_JOB`] per job; an [`Annotator`] prints up to those caps
//! and counts the rest, which the Markdown summary then names
//! ([`Annotator::not_annotated`]), so none is lost.

use std::io::{self, Write};

/// The annotations of one level GitHub shows per step.
pub const PER_LEVEL: usize = 10;
/// The annotations GitHub shows per job.
pub const PER_JOB: usize = 50;

/// The variable naming the file a step's Markdown summary is appended to.
pub const STEP_SUMMARY: &str = "GITHUB_STEP_SUMMARY";

/// An annotation's level: the workflow command it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    const ALL: [Level; 3] = [Level::Error, Level::Warning, Level::Notice];

    /// The workflow command's name.
    pub fn command(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One annotation: where, what kind, a title and the message. Positions are
/// 1-based; the end is inclusive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    pub level: Level,
    pub file: String,
    pub line: usize,
    pub column: Option<usize>,
    pub end_line: Option<usize>,
    pub end_column: Option<usize>,
    pub title: String,
    pub message: String,
}

/// A message escaped for a workflow command's data.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value escaped.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

impl Annotation {
    /// The workflow command line, without its newline.
    pub fn command(&self) -> String {
        let mut properties = vec![format!("file={}", escape_property(&self.file))];
        if self.line > 0 {
            properties.push(format!("line={}", self.line));
        }
        // GitHub takes columns only for an annotation on one line.
        let one_line = self.end_line.is_none_or(|end| end == self.line);
        let columns = |column: Option<usize>| column.filter(|_| one_line);
        let numbers = [
            ("col", columns(self.column)),
            ("endLine", self.end_line),
            ("endColumn", columns(self.end_column)),
        ];
        for (name, value) in numbers {
            if let Some(value) = value.filter(|_| self.line > 0) {
                properties.push(format!("{name}={value}"));
            }
        }
        if !self.title.is_empty() {
            properties.push(format!("title={}", escape_property(&self.title)));
        }
        format!("::{} {}::{}", self.level.command(), properties.join(","), escape_data(&self.message))
    }
}

/// Prints annotations up to GitHub's caps and counts, per level, those it
/// printed and those past the caps.
#[derive(Debug, Default)]
pub struct Annotator {
    shown: [usize; 3],
    dropped: [usize; 3],
}

impl Annotator {
    /// Writes `annotation` as a workflow command if the caps allow, else
    /// counts it as not annotated.
    pub fn annotate(&mut self, out: &mut dyn Write, annotation: &Annotation) -> io::Result<()> {
        let level = annotation.level.index();
        let total: usize = self.shown.iter().sum();
        if self.shown[level] >= PER_LEVEL || total >= PER_JOB {
            self.dropped[level] += 1;
            return Ok(());
        }
        self.shown[level] += 1;
        writeln!(out, "{}", annotation.command())
    }

    /// The annotations of `level` printed.
    pub fn shown(&self, level: Level) -> usize {
        self.shown[level.index()]
    }

    /// The annotations of `level` past the caps.
    pub fn dropped(&self, level: Level) -> usize {
        self.dropped[level.index()]
    }

    /// A Markdown line per level with annotations past the caps:
    /// `3 more errors not annotated (GitHub shows 10 per step)`.
    pub fn not_annotated(&self) -> String {
        let mut out = String::new();
        for level in Level::ALL {
            let n = self.dropped(level);
            if n > 0 {
                let plural = if n == 1 { "" } else { "s" };
                out.push_str(&format!(
                    "- {n} more {}{plural} not annotated (GitHub shows {PER_LEVEL} per level per step, \
                     {PER_JOB} per job)\n",
                    level.command()
                ));
            }
        }
        out
    }
}

/// Text made safe for a Markdown table cell: `|` escaped, line breaks as `<br>`.
pub fn table_cell(text: &str) -> String {
    text.replace('|', "\\|").replace("\r\n", "<br>").replace(['\n', '\r'], "<br>")
}

/// Appends `markdown` to the file `GITHUB_STEP_SUMMARY` names, if it names
/// one; the error names the file.
pub fn append_step_summary(markdown: &str) -> Result<(), String> {
    let Some(path) = std::env::var_os(STEP_SUMMARY).filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(markdown.as_bytes()).map(|()| f));
    match &mut file {
        Ok(_) => Ok(()),
        Err(e) => Err(format!(
            "cannot append the step summary to `{}` ({STEP_SUMMARY}): {}",
            std::path::Path::new(&path).display(),
            crate::io_message::io_message(e)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(file: &str, message: &str) -> Annotation {
        Annotation {
            level: Level::Error,
            file: file.into(),
            line: 3,
            column: Some(5),
            end_line: Some(3),
            end_column: Some(9),
            title: "E0101: a, b".into(),
            message: message.into(),
        }
    }

    #[test]
    fn data_and_properties_are_escaped_as_the_runner_unescapes_them() {
        let line = error("dir:a,b.tiss", "100% sure\r\nnext: a, b").command();
        assert_eq!(
            line,
            "::error file=dir%3Aa%2Cb.tiss,line=3,col=5,endLine=3,endColumn=9,title=E0101%3A a%2C b::\
             100%25 sure%0D%0Anext: a, b"
        );
    }

    #[test]
    fn the_caps_print_ten_per_level_and_fifty_in_all_and_count_the_rest() {
        let mut annotator = Annotator::default();
        let mut out = Vec::new();
        for _ in 0..12 {
            annotator.annotate(&mut out, &error("a", "m")).unwrap();
        }
        assert_eq!((annotator.shown(Level::Error), annotator.dropped(Level::Error)), (10, 2));
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 10);
        assert!(annotator.not_annotated().starts_with("- 2 more errors not annotated"));
        let mut all = Annotator { shown: [10, 10, 30], dropped: [0; 3] };
        let notice = Annotation { level: Level::Notice, ..error("a", "m") };
        all.annotate(&mut Vec::new(), &notice).unwrap();
        assert_eq!(all.dropped(Level::Notice), 1);
    }

    #[test]
    fn an_annotation_over_several_lines_has_no_columns() {
        let several = Annotation { end_line: Some(5), ..error("a.tiss", "m") };
        assert_eq!(several.command(), "::error file=a.tiss,line=3,endLine=5,title=E0101%3A a%2C b::m");
    }

    #[test]
    fn table_cells_keep_their_row() {
        assert_eq!(table_cell("a|b\nc"), "a\\|b<br>c");
    }
}
