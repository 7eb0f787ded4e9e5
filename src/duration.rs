//! A duration written as a TissLang literal (book: reference/lexical.md: an integer followed
//! directly by `ms`, `s`, `m` or `h`), in the largest unit that is exact:
//! `1500ms`, `150s`, `2m`, `24h`; zero is `0s`. The one way the compiler's
//! fixes, the providers' settings, the VM's values and messages, and the
//! listings write a duration, so each prints what a plan may contain.

/// The literal units, largest first, with their length in milliseconds.
const UNITS: [(&str, u64); 4] = [("h", 3_600_000), ("m", 60_000), ("s", 1_000), ("ms", 1)];

/// `ms` as a literal in the largest unit that is exact.
pub fn literal(ms: u64) -> String {
    if ms == 0 {
        return "0s".to_string();
    }
    let (unit, size) = UNITS.into_iter().find(|&(_, size)| ms.is_multiple_of(size)).unwrap_or(("ms", 1));
    format!("{}{unit}", ms / size)
}

#[cfg(test)]
mod tests {
    use super::literal;

    #[test]
    fn literals_take_the_largest_exact_unit() {
        assert_eq!(literal(0), "0s");
        assert_eq!(literal(1), "1ms");
        assert_eq!(literal(1500), "1500ms");
        assert_eq!(literal(30_000), "30s");
        assert_eq!(literal(150_000), "150s");
        assert_eq!(literal(120_000), "2m");
        assert_eq!(literal(7_200_000), "2h");
        assert_eq!(literal(86_400_000), "24h");
        assert_eq!(literal(u64::MAX), format!("{}ms", u64::MAX));
    }
}
