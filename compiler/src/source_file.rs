//! A source file: its name, its text, and byte offset → line/column mapping.

use crate::syntax::span::Span;

/// A 1-based line and column; the column counts Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// One plan's source text. The text has had its BOM removed but nothing else:
/// spans index into exactly this string.
pub struct SourceFile {
    pub name: String,
    pub text: String,
    /// Byte offsets of line starts; `u32` like a [`Span`]'s offsets (half
    /// the memory of `usize`: 0.2 MiB on a 50,000-line plan).
    line_starts: Vec<u32>,
    /// The line of the last lookup: lookups mostly walk forward through the
    /// file, so the lines just after it are searched first.
    last_line: std::cell::Cell<usize>,
    /// The last column computed, as (line index, byte offset, column): a
    /// later offset on the same line counts on from it, so a plan written on
    /// one long line is not rescanned from the line's start at every lookup.
    last_column: std::cell::Cell<(usize, usize, usize)>,
    /// The text given back to the OS ([`SourceFile::release`]): zeros now.
    released: std::ops::Range<usize>,
}

/// The fewest pages [`SourceFile::release`] gives back at once. Each call
/// is a system call and a TLB flush: one per page crossed was a third of
/// the `madvise` calls of a compile (350 of 508 on the 54,000-line steps
/// plan) for 64 KiB more resident at most.
const RELEASE_PAGES: usize = 16;

impl SourceFile {
    pub fn new(name: impl Into<String>, text: String) -> SourceFile {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| (i + 1) as u32));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
            last_line: std::cell::Cell::new(0),
            last_column: std::cell::Cell::new((0, 0, 1)),
            released: 0..0,
        }
    }

    /// Line and column (both 1-based, column in chars) of a byte offset.
    /// Offsets past the end map to the end; offsets inside a character map to it.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.text.len());
        let line_index = self.line_index(offset);
        let line_start = self.line_starts[line_index] as usize;
        let mut end = offset;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        // Columns count chars from the line's start; on a long line, from
        // the last position asked, forward or back (a statement's span
        // after its parts': counted from the line's start each time, one
        // line of 200,000 statements took seconds).
        let (last_line, last_end, last_column) = self.last_column.get();
        let column = if last_line == line_index && last_end <= end {
            last_column + self.chars(last_end, end)
        } else if last_line == line_index && end - line_start > last_end - end {
            last_column - self.chars(end, last_end)
        } else {
            1 + self.chars(line_start, end)
        };
        self.last_column.set((line_index, end, column));
        LineCol { line: line_index + 1, column }
    }

    /// The chars of the text between two char boundaries.
    fn chars(&self, from: usize, to: usize) -> usize {
        let bytes = &self.text.as_bytes()[from..to];
        // An ASCII stretch is one char per byte.
        if bytes.is_ascii() { bytes.len() } else { self.text[from..to].chars().count() }
    }

    /// The 0-based line of a byte offset (at most the text's length).
    pub(crate) fn line_index(&self, offset: usize) -> usize {
        let starts = &self.line_starts;
        // Offsets are at most the text's length, which spans hold in a u32.
        let offset = offset as u32;
        let hint = self.last_line.get().min(starts.len() - 1);
        // `starts[0]` is 0, so at least one start is at or before `offset`.
        let index = if starts[hint] <= offset {
            // Forward from the last line, a line at a time: lookups come in
            // source order, nearly always on the same line or a few after
            // (a binary search, even of a short window, mispredicts).
            let mut index = hint;
            let near = starts.len().min(hint + 8);
            while index + 1 < near && starts[index + 1] <= offset {
                index += 1;
            }
            if index + 1 < near || near == starts.len() {
                index
            } else {
                starts.partition_point(|&start| start <= offset) - 1
            }
        } else {
            starts.partition_point(|&start| start <= offset) - 1
        };
        self.last_line.set(index);
        index
    }

    /// Start and end positions of a span.
    pub fn span_line_cols(&self, span: Span) -> (LineCol, LineCol) {
        (self.line_col(span.start as usize), self.line_col(span.end as usize))
    }

    /// The text of a 1-based line, without its line end.
    pub fn line_text(&self, line: usize) -> &str {
        let Some(&start) = self.line_starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let start = start as usize;
        let end = self.line_starts.get(line).map_or(self.text.len(), |&end| end as usize);
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// The bytes of a 0-based line, its line end included.
    pub(crate) fn line_range(&self, line: usize) -> std::ops::Range<usize> {
        let at = |i: usize| self.line_starts.get(i).map_or(self.text.len(), |&s| s as usize);
        at(line)..at(line + 1)
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    pub fn slice(&self, span: Span) -> &str {
        debug_assert!(
            span.end as usize <= self.released.start || span.start as usize >= self.released.end,
            "{span:?} lies in the released text {:?}",
            self.released
        );
        self.text.get(span.range()).unwrap_or("")
    }

    /// Gives the memory of the text from `floor` up to the start of the line
    /// holding `before` back to the OS, in whole pages: what lowering has
    /// consumed (`lower::lower_owned`), which is otherwise resident beside
    /// the module's copy of it. The released bytes read as zeros after, so
    /// nothing may look at them again ([`Self::slice`] checks in debug
    /// builds); line lookups after `before` never do, as they count from
    /// their line's start. Each end of the released range is a character
    /// boundary, so the text stays valid UTF-8. Calls move forward only, and
    /// give back nothing until [`RELEASE_PAGES`] pages are pending.
    pub(crate) fn release(&mut self, floor: usize, before: usize) {
        #[cfg(target_os = "linux")]
        {
            let before = before.min(self.text.len());
            let line_start = self.line_starts[self.line_index(before)] as usize;
            // SAFETY: sysconf only reads a constant of the system.
            let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
            if page == 0 {
                return;
            }
            // The text is reached through `&mut self`, so no slice of it is
            // alive, and releasing a page is as writing zeros over it.
            let start_ptr = self.text.as_mut_ptr();
            let base = start_ptr as usize;
            let mut from = if self.released.is_empty() {
                (base + floor).next_multiple_of(page) - base
            } else {
                self.released.end
            };
            let mut to_offset = ((base + line_start) / page * page).saturating_sub(base);
            while from < to_offset && !self.text.is_char_boundary(from) {
                from += page;
            }
            while from < to_offset && !self.text.is_char_boundary(to_offset) {
                to_offset -= page;
            }
            if from >= to_offset || to_offset - from < RELEASE_PAGES * page {
                return;
            }
            // SAFETY: [from, to_offset) is whole pages inside the text's
            // buffer, which this file owns; MADV_DONTNEED on private
            // anonymous memory leaves them mapped, reading as zeros, which
            // keeps the text UTF-8 (both ends are character boundaries).
            let done =
                unsafe { libc::madvise(start_ptr.add(from).cast(), to_offset - from, libc::MADV_DONTNEED) };
            if done == 0 {
                let start = if self.released.is_empty() { from } else { self.released.start };
                self.released = start..to_offset;
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (floor, before);
    }
}

/// Turns file bytes into source text: a leading UTF-8 BOM is skipped; invalid
/// UTF-8 gives an `E0001` diagnostic at the first bad byte, and the text is
/// decoded lossily so the rest of the file can still be checked and shown.
/// Valid bytes become the text in place, without a copy.
pub fn decode(mut bytes: Vec<u8>) -> (String, Vec<crate::diagnostics::Diagnostic>) {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    let error = match String::from_utf8(bytes) {
        Ok(text) => return (text, Vec::new()),
        Err(error) => error,
    };
    let e = error.utf8_error();
    let bytes = error.as_bytes();
    let at = e.valid_up_to();
    let len = e.error_len().unwrap_or(bytes.len() - at);
    let text = String::from_utf8_lossy(bytes).into_owned();
    // The lossy text is identical up to `at`; the bad bytes became one U+FFFD (3 bytes).
    let diag = crate::diagnostics::Diagnostic::error(
        crate::diagnostics::codes::INVALID_UTF8,
        Span::new(at, at + 3),
        format!("invalid UTF-8: {} byte(s) starting with 0x{:02X} cannot be decoded", len, bytes[at]),
    )
    .with_note("TissLang source must be UTF-8; re-encode the file (e.g. with `iconv -t UTF-8`)");
    (text, vec![diag])
}

#[cfg(test)]
mod tests {

    #[test]
    fn columns_are_the_same_asked_in_any_order_on_a_long_line() {
        let text = format!("x\n{}\n", "é LOG \"ü\" ".repeat(50));
        let file = SourceFile::new("p.tiss", text.clone());
        let naive = |offset: usize| {
            let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            text[start..offset].chars().count() + 1
        };
        let offsets: Vec<usize> = (0..text.len()).filter(|&o| text.is_char_boundary(o)).collect();
        // Forward, back by a little, back to the line's start, and far forward.
        let order = offsets
            .iter()
            .copied()
            .rev()
            .chain(offsets.iter().copied())
            .chain(offsets.iter().step_by(7).copied());
        for offset in
            order.chain([offsets[offsets.len() / 2], offsets[3], offsets[offsets.len() - 1], offsets[5]])
        {
            assert_eq!(file.line_col(offset).column, naive(offset), "at {offset}");
        }
    }

    use super::*;

    #[test]
    fn line_lookups_in_any_order_match_a_scan() {
        let text: String = (0..200).map(|i| format!("{}\n", "x".repeat(i % 7))).collect();
        let f = SourceFile::new("t", text.clone());
        let naive = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
        let mut offsets: Vec<usize> = (0..=text.len() + 3).collect();
        offsets.extend((0..=text.len()).rev().step_by(37));
        offsets.extend([0, text.len(), 5, 600, 1, 599, 600]);
        for offset in offsets {
            assert_eq!(f.line_col(offset).line, naive(offset), "offset {offset}");
        }
    }

    #[test]
    fn columns_in_any_order_match_a_count_of_chars() {
        let text = "ab é x\n€€ y z\n\nlast é line".to_string();
        let f = SourceFile::new("t", text.clone());
        let naive = |offset: usize| {
            let mut end = offset.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let start = text[..end].rfind('\n').map_or(0, |i| i + 1);
            text[start..end].chars().count() + 1
        };
        let mut offsets: Vec<usize> = (0..=text.len() + 2).collect();
        offsets.extend((0..=text.len()).rev());
        offsets.extend([3, 4, 2, 9, 30, 8, 0]);
        for offset in offsets {
            assert_eq!(f.line_col(offset).column, naive(offset), "offset {offset}");
        }
    }

    #[test]
    fn decoding_skips_a_bom_and_reports_bad_bytes() {
        let (text, diagnostics) = decode(b"\xEF\xBB\xBFTASK \"t\"\n".to_vec());
        assert_eq!((text.as_str(), diagnostics.len()), ("TASK \"t\"\n", 0));
        let (text, diagnostics) = decode(b"\xEF\xBB\xBFab\xFFc".to_vec());
        assert_eq!(text, "ab\u{FFFD}c");
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].span, Span::new(2, 5));
        assert!(diagnostics[0].message.contains("0xFF"), "{}", diagnostics[0].message);
    }

    #[test]
    fn columns_count_chars_not_bytes() {
        let f = SourceFile::new("t", "ab\nçé x\r\nz".to_string());
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        // 'x' is after two 2-byte chars and a space.
        assert_eq!(f.line_col(8), LineCol { line: 2, column: 4 });
        assert_eq!(f.line_text(2), "çé x");
        assert_eq!(f.line_col(11), LineCol { line: 3, column: 1 });
        assert_eq!(f.line_col(999), LineCol { line: 3, column: 2 });
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn released_text_reads_as_zeros_stays_utf8_and_later_lines_are_untouched() {
        // Multibyte characters everywhere, so page boundaries fall inside them.
        let line = "é ü → LOG \"ω\" 😀\n";
        let text = line.repeat(12000);
        let mut f = SourceFile::new("t", text.clone());
        let mut before = 0;
        // Small steps give nothing back until RELEASE_PAGES are pending.
        for step in [1, 5000, 5000, 20000, 3, 40000, 100000, 30000] {
            before = (before + step).min(text.len());
            while !text.is_char_boundary(before) {
                before -= 1;
            }
            f.release(line.len(), before);
            assert!(
                std::str::from_utf8(f.text.as_bytes()).is_ok(),
                "still UTF-8 after releasing to {before}"
            );
            let line_start = text[..before].rfind('\n').map_or(0, |i| i + 1);
            assert_eq!(
                &f.text[line_start..],
                &text[line_start..],
                "the text from {before}'s line on is kept"
            );
            assert_eq!(&f.text[..line.len()], &text[..line.len()], "the text before the floor is kept");
            assert!(
                f.released.end <= line_start && (f.released.is_empty() || f.released.start >= line.len())
            );
            assert!(f.text.as_bytes()[f.released.clone()].iter().all(|&b| b == 0), "given back");
            if before < RELEASE_PAGES * 4096 {
                assert!(f.released.is_empty(), "less than RELEASE_PAGES pages are kept: {:?}", f.released);
            }
        }
        assert!(f.released.len() > text.len() / 2, "most of it was given back: {:?}", f.released);
        let fresh = SourceFile::new("t", text.clone());
        for offset in (before..text.len()).filter(|&o| text.is_char_boundary(o)).step_by(7) {
            assert_eq!(f.line_col(offset), fresh.line_col(offset), "offset {offset}");
        }
        // Never backwards: an earlier offset releases nothing more.
        let released = f.released.clone();
        f.release(line.len(), 10);
        assert_eq!(f.released, released);
    }
}
