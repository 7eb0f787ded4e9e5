//! A module's string table: every string the plan uses, stored once, as one
//! text with a span per string.
//!
//! One text rather than a `String` per entry: building, encoding, decoding
//! and dropping a table of thousands of strings is a handful of allocations,
//! not thousands. And a string may lie inside another one (an ASSERT's
//! observed `LAST_RUN.STDOUT` inside its condition as written): the compiler
//! adds it with [`StringTable::push_within`] and its text is not stored twice.
//!
//! Encoded (serde) as a pair: a sequence of `u32` entries, then the text.
//! Per string one entry `len << 1` — the next `len` bytes of the text — or
//! two entries `len << 1 | 1, back` — the `len` bytes starting `back` bytes
//! before the end of the text laid out so far. Decoding checks every span
//! against the text and its character boundaries, and that the text has no
//! byte no string uses.

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

#[derive(Clone, Default, PartialEq, Eq)]
pub struct StringTable {
    text: String,
    /// Per string: start and end in `text`, always on character boundaries.
    /// A string that lies inside earlier text starts before the end of the
    /// text laid out so far; every other one starts right at it.
    spans: Vec<(u32, u32)>,
}

impl StringTable {
    pub fn new() -> StringTable {
        StringTable::default()
    }

    pub fn with_capacity(strings: usize, bytes: usize) -> StringTable {
        StringTable { text: String::with_capacity(bytes), spans: Vec::with_capacity(strings) }
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Room for `additional` more strings (their spans; not their text).
    pub fn reserve(&mut self, additional: usize) {
        self.spans.reserve_exact(additional);
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Bytes of text stored (shared text counted once).
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    pub fn get(&self, index: u32) -> Option<&str> {
        let &(start, end) = self.spans.get(index as usize)?;
        self.text.get(start as usize..end as usize)
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.spans.iter().map(|&(start, end)| self.text.get(start as usize..end as usize).unwrap_or(""))
    }

    /// Adds `s` (no deduplication: the caller interns) and returns its index.
    pub fn push(&mut self, s: &str) -> u32 {
        let start = self.text.len() as u32;
        self.text.push_str(s);
        self.spans.push((start, self.text.len() as u32));
        self.spans.len() as u32 - 1
    }

    /// Adds `s`, which is the text of string `outer` from byte `start` on,
    /// without storing it again. `None` (nothing added) when it is not.
    pub fn push_within(&mut self, outer: u32, start: usize, s: &str) -> Option<u32> {
        let &(outer_start, outer_end) = self.spans.get(outer as usize)?;
        let from = outer_start as usize + start;
        let to = from.checked_add(s.len())?;
        if to > outer_end as usize || self.text.get(from..to) != Some(s) {
            return None;
        }
        self.spans.push((from as u32, to as u32));
        Some(self.spans.len() as u32 - 1)
    }

    pub fn clear(&mut self) {
        *self = StringTable::default();
    }
}

impl<S: AsRef<str>> FromIterator<S> for StringTable {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> StringTable {
        let mut table = StringTable::new();
        for s in iter {
            table.push(s.as_ref());
        }
        table
    }
}

impl fmt::Debug for StringTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Per span its length, and for a string inside earlier text how far back
/// from the end of the text laid out so far it starts.
fn layout_entries(spans: &[(u32, u32)]) -> impl Iterator<Item = (u32, Option<u32>)> + '_ {
    let mut laid_out = 0u32;
    spans.iter().map(move |&(start, end)| {
        if start == laid_out {
            laid_out = end;
            (end - start, None)
        } else {
            (end - start, Some(laid_out - start))
        }
    })
}

/// The entries: what [`StringTable`]'s doc comment describes.
struct Entries<'a>(&'a StringTable);

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let entries = || layout_entries(&self.0.spans);
        let mut seq =
            s.serialize_seq(Some(entries().map(|(_, back)| 1 + usize::from(back.is_some())).sum()))?;
        for (len, back) in entries() {
            match back {
                Some(back) => {
                    seq.serialize_element(&(len << 1 | 1))?;
                    seq.serialize_element(&back)?;
                }
                None => seq.serialize_element(&(len << 1))?,
            }
        }
        seq.end()
    }
}

impl Serialize for StringTable {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut pair = s.serialize_tuple(2)?;
        pair.serialize_element(&Entries(self))?;
        pair.serialize_element(&self.text)?;
        pair.end()
    }
}

impl<'de> Deserialize<'de> for StringTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<StringTable, D::Error> {
        struct Pair;
        impl<'de> Visitor<'de> for Pair {
            type Value = StringTable;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string table")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StringTable, A::Error> {
                let entries: Vec<u32> = seq
                    .next_element_seed(crate::codec::decode_budget::VecSeed::new("string table entries"))?
                    .ok_or_else(|| de::Error::custom("the string table has no entries"))?;
                let text: String =
                    seq.next_element()?.ok_or_else(|| de::Error::custom("the string table has no text"))?;
                layout(entries, text).map_err(de::Error::custom)
            }
        }
        d.deserialize_tuple(2, Pair)
    }
}

/// Rebuilds the spans from the entries, checking each against the text.
fn layout(entries: Vec<u32>, text: String) -> Result<StringTable, String> {
    // A string per entry at most, claimed before the entries are freed.
    crate::codec::decode_budget::claim(entries.len(), size_of::<(u32, u32)>(), "strings")?;
    let mut spans = Vec::with_capacity(entries.len());
    let mut laid_out = 0u32;
    let mut entries = entries.into_iter();
    while let Some(entry) = entries.next() {
        let len = entry >> 1;
        let index = spans.len();
        let span = if entry & 1 == 0 {
            let end = laid_out.checked_add(len).filter(|&end| end as usize <= text.len());
            let end = end.ok_or_else(|| format!("string {index} runs past the end of the string text"))?;
            let span = (laid_out, end);
            laid_out = end;
            span
        } else {
            let back = entries.next().ok_or_else(|| format!("string {index} has no offset"))?;
            let start = laid_out.checked_sub(back);
            let span = start.and_then(|s| Some((s, s.checked_add(len)?))).filter(|&(_, end)| end <= laid_out);
            span.ok_or_else(|| format!("string {index} is not inside the text before it"))?
        };
        if !text.is_char_boundary(span.0 as usize) || !text.is_char_boundary(span.1 as usize) {
            return Err(format!("string {index} splits a character"));
        }
        spans.push(span);
    }
    if laid_out as usize != text.len() {
        return Err(format!("{} bytes of string text belong to no string", text.len() - laid_out as usize));
    }
    Ok(StringTable { text, spans })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(table: &StringTable) -> Result<StringTable, String> {
        let config = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(table, config).map_err(|e| e.to_string())?;
        let (back, used) = bincode::serde::decode_from_slice(&bytes, config).map_err(|e| e.to_string())?;
        assert_eq!(used, bytes.len());
        let again = bincode::serde::encode_to_vec(&back, config).map_err(|e| e.to_string())?;
        assert_eq!(again, bytes, "the same table gives the same bytes");
        Ok(back)
    }

    #[test]
    fn strings_inside_others_share_their_text() {
        let mut t = StringTable::new();
        let cond = t.push("LAST_RUN.STDOUT CONTAINS \"ok\"");
        let path = t.push_within(cond, 0, "LAST_RUN.STDOUT").unwrap();
        let ok = t.push_within(cond, 26, "ok").unwrap();
        let other = t.push("héllo");
        assert_eq!(t.get(path), Some("LAST_RUN.STDOUT"));
        assert_eq!(t.get(ok), Some("ok"));
        assert_eq!(t.get(other), Some("héllo"));
        assert_eq!(t.get(9), None);
        assert_eq!(t.len(), 4);
        assert_eq!(t.text_len(), 29 + 6);
        assert_eq!(t.push_within(cond, 26, "ok\" and more"), None, "past the end of its outer string");
        assert_eq!(t.push_within(cond, 1, "LAST"), None, "not the text there");
        assert_eq!(t.push_within(other, 1, "\u{e9}"), Some(4), "a whole character");
        assert_eq!(t.push_within(7, 0, "a"), None);
        assert_eq!(round_trip(&t), Ok(t.clone()));
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            ["LAST_RUN.STDOUT CONTAINS \"ok\"", "LAST_RUN.STDOUT", "ok", "héllo", "é"]
        );
    }

    #[test]
    fn bad_layouts_are_refused() {
        let decode = |entries: Vec<u32>, text: &str| layout(entries, text.to_string());
        assert!(decode(vec![10], "abc").unwrap_err().contains("past the end"));
        assert!(decode(vec![2], "abc").unwrap_err().contains("belong to no string"));
        assert!(decode(vec![3], "abc").unwrap_err().contains("no offset"));
        assert!(decode(vec![2, 3, 2], "a").unwrap_err().contains("not inside"));
        assert!(decode(vec![2, 5, 0], "a").unwrap_err().contains("not inside"));
        assert!(decode(vec![2, 2], "é").unwrap_err().contains("splits a character"));
        assert!(decode(vec![4, 3, 2], "é").unwrap_err().contains("splits a character"));
        assert_eq!(decode(vec![2, 3, 1, 0], "a").unwrap().iter().collect::<Vec<_>>(), ["a", "a", ""]);
    }
}
