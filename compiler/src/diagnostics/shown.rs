//! The source as a human diagnostic shows it: a line longer than
//! [`SHOWN_LINE`] bytes is shown as a window of it around the place the
//! diagnostic points at, so that rendering is linear in the plan whatever
//! its lines. Shown whole, every diagnostic on a 60 KB line printed it and a
//! caret line as long: 20,000 warnings in one string literal made
//! `tissc check` write 1.2 GB for over a minute.

use std::ops::Range;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::{Error, Files};
use tisslang::codec::decode_budget::thousands;

use crate::source_file::SourceFile;

/// The longest line shown whole, in bytes; a longer one is shown from a
/// little before the place pointed at.
pub const SHOWN_LINE: usize = 160;

/// How much of a long line is shown before the place pointed at.
const BEFORE: usize = 60;

/// The file the diagnostics of one report are shown against: its lines
/// and columns are [`SourceFile`]'s (columns counted on from the last one
/// asked, so a long line is not rescanned per diagnostic).
pub struct Lines<'a> {
    file: &'a SourceFile,
}

impl<'a> Lines<'a> {
    pub fn new(file: &'a SourceFile) -> Lines<'a> {
        Lines { file }
    }

    fn index(&self, byte: usize) -> usize {
        self.file.line_index(byte.min(self.file.text.len()))
    }

    fn whole(&self, line: usize) -> Range<usize> {
        self.file.line_range(line)
    }

    fn floor(&self, mut at: usize) -> usize {
        let text = &self.file.text;
        at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// The 1-based column of `byte`, in chars.
    fn column(&self, byte: usize) -> usize {
        self.file.line_col(byte).column
    }

    /// `diagnostic` (ranges into the text) with the view that shows it: each
    /// long line its labels start or end on is windowed around the first
    /// such place, the labels cut to the windows, and a note says which
    /// columns are shown.
    pub fn show(&'a self, mut diagnostic: cs::Diagnostic<()>) -> (View<'a>, cs::Diagnostic<()>) {
        self.split_tall(&mut diagnostic);
        let mut windows: Vec<(usize, Range<usize>)> = Vec::new();
        let points: Vec<usize> =
            diagnostic.labels.iter().flat_map(|l| [l.range.start, l.range.end]).collect();
        for at in points {
            let line = self.index(at);
            let whole = self.whole(line);
            if whole.len() > SHOWN_LINE && !windows.iter().any(|(l, _)| *l == line) {
                let start = self.floor(at.saturating_sub(BEFORE).max(whole.start));
                let end = self.floor((start + SHOWN_LINE).min(whole.end)).max(self.floor(at));
                windows.push((line, start..end));
            }
        }
        let cut = |at: usize| match windows.iter().find(|(line, _)| *line == self.index(at)) {
            Some((_, window)) => at.clamp(window.start, window.end),
            None => at,
        };
        for label in &mut diagnostic.labels {
            let start = cut(label.range.start);
            label.range = start..cut(label.range.end).max(start);
        }
        for (line, window) in &windows {
            let from = self.column(window.start);
            let to = self.column(window.end).saturating_sub(1).max(from);
            diagnostic.notes.push(format!(
                "note: line {} is {} bytes long; columns {} to {} are shown",
                line + 1,
                thousands(self.whole(*line).len() as u64),
                thousands(from as u64),
                thousands(to as u64)
            ));
        }
        (View { lines: self, windows }, diagnostic)
    }
}

impl Lines<'_> {
    /// Splits each label over more than [`TALL`] lines into its first line
    /// and, marked "to here", its last: codespan keeps a record for every
    /// line a label covers (a label over a 500,000-line heredoc took 180
    /// MB), and shows only those two and a few around them anyway.
    fn split_tall(&self, diagnostic: &mut cs::Diagnostic<()>) {
        let mut ends = Vec::new();
        for label in &mut diagnostic.labels {
            let (first, last) = (self.index(label.range.start), self.index(label.range.end));
            if last - first > TALL {
                let first_end = self.file.text[..self.whole(first).end].trim_end_matches(['\n', '\r']).len();
                ends.push(
                    cs::Label::secondary((), self.whole(last).start..label.range.end).with_message("to here"),
                );
                label.range = label.range.start..first_end.max(label.range.start);
            }
        }
        diagnostic.labels.extend(ends);
    }
}

/// The most lines a label is shown over whole (see [`Lines::split_tall`]).
const TALL: usize = 16;

/// The file one diagnostic is rendered against.
pub struct View<'a> {
    lines: &'a Lines<'a>,
    windows: Vec<(usize, Range<usize>)>,
}

impl<'a> Files<'a> for View<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.lines.file.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.lines.file.text)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, Error> {
        Ok(self.lines.index(byte_index))
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        let lines = self.lines.file.line_count();
        if line_index >= lines {
            return Err(Error::LineTooLarge { given: line_index, max: lines - 1 });
        }
        let whole = self.lines.whole(line_index);
        if whole.len() <= SHOWN_LINE {
            return Ok(whole);
        }
        // A long line no label starts or ends on (context around a label
        // over many lines): its start.
        Ok(match self.windows.iter().find(|(line, _)| *line == line_index) {
            Some((_, window)) => window.clone(),
            None => whole.start..self.lines.floor(whole.start + SHOWN_LINE),
        })
    }

    fn column_number(&'a self, (): (), _line: usize, byte_index: usize) -> Result<usize, Error> {
        Ok(self.lines.column(byte_index))
    }
}
