//! Long explanations of the diagnostic codes, for `tissc explain CODE`.
//!
//! Each code in [`crate::diagnostics::codes::ALL`] has one Markdown file, `explain/<CODE>.md`,
//! compiled into the binary. It starts with a `# <CODE>: <title>` heading, says
//! when the error happens and why, and shows a plan fragment that triggers it
//! with the fixed version. The tests below keep the files and the codes in step.

use crate::diagnostics::codes::{self, Code};

macro_rules! explanations {
    ($($code:literal),* $(,)?) => {
        /// Every explanation, by code text, in code order.
        const TABLE: &[(&str, &str)] = &[
            $(($code, include_str!(concat!("explain/", $code, ".md")))),*
        ];
    };
}

explanations! {
    "E0001", "E0002", "E0003", "E0004", "E0005", "E0006", "E0007", "E0008", "E0009", "E0010",
    "E0011", "E0012", "E0013",
    "E0100", "E0101", "E0102", "E0103", "E0104", "E0105", "E0106", "E0107", "E0108", "E0109",
    "E0110", "E0111", "E0112", "E0113",
    "E0200", "E0201", "E0202", "E0203", "E0204", "E0205", "E0206", "E0207", "E0208", "E0209",
    "E0210", "E0211", "E0212", "E0213", "E0214", "E0215", "E0216", "E0217", "E0218", "E0219",
    "E0220", "E0221", "E0222", "E0223", "E0224", "E0225",
    "E0900",
    "W0001", "W0002", "W0003", "W0004", "W0005", "W0006", "W0007", "W0008",
    "W0009",
}

/// The long explanation of `code` (Markdown), if it has one.
pub fn explanation(code: Code) -> Option<&'static str> {
    TABLE.iter().find(|(c, _)| *c == code.as_str()).map(|(_, text)| *text)
}

/// Looks up a code as a user typed it: `E0101`, `e0101`, or just `0101`.
/// Returns the code, its one-line title and its long explanation.
pub fn lookup(text: &str) -> Option<(Code, &'static str, &'static str)> {
    let text = text.trim();
    let (code, title) = if text.starts_with(|c: char| c.is_ascii_digit()) {
        codes::lookup(&format!("E{text}"))?
    } else {
        codes::lookup(text)?
    };
    Some((code, title, explanation(code)?))
}

/// What `tissc explain` says of a code it does not know: whether it looked
/// like an error or a warning code, and the known codes nearest to it
/// (same letter, nearest number; else nearest in spelling), with titles.
pub fn unknown_code_text(text: &str) -> String {
    const SHOWN: usize = 3;
    let text = text.trim();
    let upper = text.to_ascii_uppercase();
    let (kind, letter) = match upper.chars().next() {
        Some('W') => ("warning code", Some('W')),
        Some('E') => ("error code", Some('E')),
        Some(c) if c.is_ascii_digit() => ("error code", Some('E')),
        _ => ("diagnostic code", None),
    };
    let number = upper.trim_start_matches(['E', 'W']).parse::<u32>().ok();
    let mut nearest: Vec<&(Code, &str)> = codes::ALL.iter().collect();
    match (letter, number) {
        (Some(letter), Some(n)) => {
            nearest.retain(|(code, _)| code.as_str().starts_with(letter));
            nearest.sort_by_key(|(code, _)| {
                code.as_str()[1..].parse::<u32>().map_or(u32::MAX, |c| c.abs_diff(n))
            });
        }
        _ => nearest.sort_by_key(|(code, _)| {
            tiss_support::suggest::edit_distance(&upper, code.as_str(), upper.len() + 5)
        }),
    }
    let mut out = if text.is_empty() {
        "no code given: name one, e.g. `tissc explain E0101`".to_string()
    } else {
        format!("`{text}` is not a TissLang {kind}; the nearest known:")
    };
    if !text.is_empty() {
        for (code, title) in nearest.iter().take(SHOWN) {
            out.push_str(&format!("\n  {code}  {title}"));
        }
    }
    out.push_str("\nRun `tissc explain --list` to see every code.");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_an_explanation() {
        for (code, title) in codes::ALL {
            let text = explanation(*code).unwrap_or_else(|| panic!("{code} has no explanation"));
            let heading = format!("# {code}: ");
            assert!(text.starts_with(&heading), "{code}: must start with `{heading}`");
            assert!(!title.is_empty());
            assert!(text.contains("```tiss"), "{code}: needs an example plan fragment");
        }
    }

    #[test]
    fn every_explanation_is_of_a_known_code() {
        for (code, _) in TABLE {
            assert!(codes::lookup(code).is_some(), "explain/{code}.md is not a code in codes.rs");
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/diagnostics/explain");
        for entry in std::fs::read_dir(dir).expect("explain dir") {
            let name = entry.expect("dir entry").file_name().to_string_lossy().into_owned();
            let code = name.strip_suffix(".md").unwrap_or_else(|| panic!("stray file {name}"));
            assert!(codes::lookup(code).is_some(), "{name} is not a code in codes.rs");
            assert!(TABLE.iter().any(|(c, _)| *c == code), "{name} is missing from TABLE");
        }
    }

    #[test]
    fn lookup_accepts_case_and_bare_digits() {
        assert_eq!(lookup("E0101").map(|l| l.0), Some(codes::MISSPELLED_KEYWORD));
        assert_eq!(lookup("e0101").map(|l| l.0), Some(codes::MISSPELLED_KEYWORD));
        assert_eq!(lookup("0101").map(|l| l.0), Some(codes::MISSPELLED_KEYWORD));
        assert_eq!(lookup("E9999"), None);
        assert_eq!(lookup(""), None);
    }

    #[test]
    fn an_unknown_code_is_named_by_its_kind_with_the_nearest_known() {
        let w = unknown_code_text("W0099");
        assert!(
            w.starts_with("`W0099` is not a TissLang warning code; the nearest known:\n  W0009  "),
            "{w}"
        );
        assert!(w.contains("\n  W0008  ") && w.contains("\n  W0007  ") && !w.contains('E'), "{w}");
        let e = unknown_code_text("e0103x");
        assert!(e.starts_with("`e0103x` is not a TissLang error code"), "{e}");
        let other = unknown_code_text("X0101");
        assert!(other.starts_with("`X0101` is not a TissLang diagnostic code"), "{other}");
        assert!(other.contains("E0101") || other.contains("W0001"), "{other}");
        assert!(unknown_code_text("").starts_with("no code given"));
    }
}
