//! "Did you mean" by edit distance.

/// Edit distance between two strings counted in chars, where an insertion, a
/// deletion, a substitution or a swap of two neighbours each cost 1 (optimal
/// string alignment), giving up (returning `limit + 1`) once it must exceed `limit`.
pub fn edit_distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    // Three rows: two back (for swaps), one back, and the current one.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 0..a.len() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for j in 0..b.len() {
            let cost = usize::from(a[i] != b[j]);
            let mut d = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
            row_min = row_min.min(d);
        }
        if row_min > limit {
            return limit + 1;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()].min(limit + 1)
}

/// The candidate closest to `word`: an exact case-insensitive match first, then
/// the smallest edit distance within a limit that grows with the word's length
/// (1 for short words, up to a third of the length). Ties go to the earliest
/// candidate, so the answer is deterministic.
pub fn closest<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let limit = (word.chars().count() / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == word {
            continue;
        }
        if candidate.eq_ignore_ascii_case(word) {
            return Some(candidate);
        }
        let d = edit_distance(word, candidate, limit);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting", 10), 3);
        assert_eq!(edit_distance("", "abc", 10), 3);
        assert_eq!(edit_distance("same", "same", 0), 0);
        assert_eq!(edit_distance("abcdef", "uvwxyz", 2), 3);
        assert_eq!(edit_distance("coutn", "count", 3), 1);
        assert_eq!(edit_distance("lnit", "lint", 3), 1);
    }

    #[test]
    fn closest_prefers_case_then_distance() {
        let names = ["STDOUT", "STDERR", "EXIT_CODE"];
        assert_eq!(closest("STDOUTT", names), Some("STDOUT"));
        assert_eq!(closest("stderr", names), Some("STDERR"));
        assert_eq!(closest("EXITCODE", names), Some("EXIT_CODE"));
        assert_eq!(closest("banana", names), None);
    }
}
