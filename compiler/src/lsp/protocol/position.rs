//! LSP positions ↔ byte offsets. LSP counts a line's characters in UTF-16
//! code units (an astral character such as 😀 is two of them); spans are
//! byte offsets into the UTF-8 text. Lines end at `\n`, as the compiler
//! counts them (a `\r` before it belongs to the line end).

use std::cell::Cell;

use lsp_types::{Position, Range};

use crate::syntax::span::Span;

/// Where each line of one text starts, to convert positions both ways.
pub(crate) struct LineIndex {
    line_starts: Vec<usize>,
    /// The last position asked for (line, offset, character): diagnostics
    /// come in order, so counting on from there keeps thousands of them on
    /// one long line linear, where counting from the line's start was not.
    last: Cell<(usize, usize, u32)>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { line_starts, last: Cell::new((0, 0, 0)) }
    }

    /// The byte offset of a position. A character past the end of its line
    /// means the line's end (as LSP says); a line past the last is `None`.
    pub(crate) fn offset(&self, text: &str, position: Position) -> Option<usize> {
        let start = *self.line_starts.get(position.line as usize)?;
        let line = &text[start..self.line_end(text, position.line as usize)];
        let mut units = 0u32;
        for (i, c) in line.char_indices() {
            if units >= position.character {
                return Some(start + i);
            }
            units += c.len_utf16() as u32;
        }
        Some(start + line.len())
    }

    /// The position of a byte offset (clamped to the text; an offset inside
    /// a character means that character).
    pub(crate) fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let units = |from: usize, to: usize| {
            let text = &text[from..to];
            (if text.is_ascii() { text.len() } else { text.encode_utf16().count() }) as u32
        };
        let (last_line, last_offset, last_character) = self.last.get();
        let character = if last_line == line && last_offset <= offset {
            last_character + units(last_offset, offset)
        } else {
            units(self.line_starts[line], offset)
        };
        self.last.set((line, offset, character));
        Position { line: line as u32, character }
    }

    pub(crate) fn range(&self, text: &str, span: Span) -> Range {
        Range { start: self.position(text, span.start as usize), end: self.position(text, span.end as usize) }
    }

    /// The byte range of an LSP range; `None` if it names a line past the end.
    pub(crate) fn span(&self, text: &str, range: Range) -> Option<std::ops::Range<usize>> {
        let start = self.offset(text, range.start)?;
        let end = self.offset(text, range.end)?;
        Some(start.min(end)..end.max(start))
    }

    /// Where line `line`'s text ends (before `\r\n` or `\n`).
    fn line_end(&self, text: &str, line: usize) -> usize {
        let end = self.line_starts.get(line + 1).map_or(text.len(), |&next| next - 1);
        let start = self.line_starts[line];
        if end > start && text.as_bytes()[end - 1] == b'\r' { end - 1 } else { end }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn utf16_columns_count_astral_characters_twice() {
        // é: 2 bytes, 1 unit; 😀: 4 bytes, 2 units; €: 3 bytes, 1 unit.
        let text = "ab\né😀€x\r\nlast";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(text, x), pos(1, 4));
        assert_eq!(index.offset(text, pos(1, 4)), Some(x));
        assert_eq!(index.offset(text, pos(1, 1)), Some(text.find('😀').unwrap()));
        assert_eq!(index.offset(text, pos(1, 3)), Some(text.find('€').unwrap()));
        // Past the line's end: the end, before `\r\n`.
        assert_eq!(index.offset(text, pos(1, 99)), Some(x + 1));
        assert_eq!(index.offset(text, pos(2, 4)), Some(text.len()));
        assert_eq!(index.offset(text, pos(3, 0)), None);
        // An offset inside 😀 is 😀.
        assert_eq!(index.position(text, text.find('😀').unwrap() + 2), pos(1, 1));
    }

    #[test]
    fn positions_asked_in_any_order_are_counted_alike() {
        let text = format!("a\n{}\nb", "x😀é".repeat(50));
        let index = LineIndex::new(&text);
        let offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let fresh = |o: usize| LineIndex::new(&text).position(&text, o);
        for &o in offsets.iter().chain(offsets.iter().rev()).chain(offsets.iter().step_by(7)) {
            assert_eq!(index.position(&text, o), fresh(o), "offset {o}");
        }
    }

    #[test]
    fn every_char_boundary_round_trips() {
        let text = "TASK \"t\"\n  LOG \"日本😀\" # ü\n\nend";
        let index = LineIndex::new(text);
        for (offset, _) in text.char_indices() {
            if text[offset..].starts_with('\n') {
                continue;
            }
            assert_eq!(index.offset(text, index.position(text, offset)), Some(offset), "offset {offset}");
        }
    }
}
