//! Durations as people write them (`30sec`, `1.5s`, `2m30s`, `1d`, `"30 s"`),
//! read exactly, and the TissLang literal that means the same (SPEC §1: an
//! integer followed directly by `ms`, `s`, `m` or `h`). Suggestions for a
//! malformed duration come from here, so a fix never changes the meaning:
//! where no literal is exact (`1.0001s`), there is none.

pub(crate) use tisslang::duration::literal;

/// What is wrong with how a duration is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flaw {
    /// A fraction: `1.5s`.
    Fraction,
    /// More than one unit: `2m30s`.
    Compound,
    /// A unit TissLang does not have: `1d`, `2w`.
    Unsupported { name: &'static str },
    /// A TissLang unit spelled another way: `30sec`, `30S`.
    Spelling { unit: &'static str, name: &'static str },
}

/// Why a duration has no exact literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inexact {
    /// Not a whole number of milliseconds: `1.0001s`, `0.5ms`.
    NotWhole,
    /// More milliseconds than 64 bits hold.
    TooLarge,
}

/// A text read as a duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Written<'a> {
    pub(crate) millis: Result<u64, Inexact>,
    /// `None`: the text is a well-formed literal.
    pub(crate) flaw: Option<Flaw>,
    /// The number and the unit as written, for a fix that keeps them.
    digits: &'a str,
    unit: &'a str,
}

impl Written<'_> {
    /// The literal to write instead, exactly the same duration: the digits
    /// as written when only the unit's spelling is wrong (`30sec` → `30s`),
    /// else the largest exact unit (`2m30s` → `150s`, `1.5s` → `1500ms`).
    pub(crate) fn fix(&self) -> Option<String> {
        match (self.flaw, self.millis) {
            (Some(Flaw::Spelling { unit, .. }), Ok(_)) => Some(format!("{}{unit}", self.digits)),
            (None, Ok(_)) => Some(format!("{}{}", self.digits, self.unit)),
            (_, Ok(ms)) => Some(literal(ms)),
            (_, Err(_)) => None,
        }
    }
}

/// Reads `text` as a duration: one or more `number unit` parts (blanks
/// allowed around them), a number being digits with `_` separators and
/// perhaps a fraction, a unit any spelling of a unit of time in any case.
/// `None` if the text is not written like a duration at all (no unit, or
/// letters that are no unit: `30x`, `5`).
pub(crate) fn read(text: &str) -> Option<Written<'_>> {
    let mut rest = text.trim();
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let int_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '_')).unwrap_or(rest.len());
        if !rest.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let (int, after) = rest.split_at(int_len);
        let (frac, after) = match after.strip_prefix('.') {
            Some(f) if f.starts_with(|c: char| c.is_ascii_digit()) => {
                let len = f.find(|c: char| !(c.is_ascii_digit() || c == '_')).unwrap_or(f.len());
                (Some(&f[..len]), &f[len..])
            }
            _ => (None, after),
        };
        let after = after.trim_start();
        let unit_len = after.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(after.len());
        let (spelled, after) = after.split_at(unit_len);
        let unit = unit(spelled)?;
        parts.push((int, frac, spelled, unit));
        rest = after.trim_start();
    }
    let &[(int, _, spelled, first), ..] = parts.as_slice() else { return None };
    let millis = parts.iter().try_fold(0u64, |sum, &(int, frac, _, unit)| {
        sum.checked_add(exact(int, frac, unit.millis)?).ok_or(Inexact::TooLarge)
    });
    let flaw = if parts.iter().any(|p| p.1.is_some()) {
        Some(Flaw::Fraction)
    } else if parts.len() > 1 {
        Some(Flaw::Compound)
    } else if let Some(literal) = first.literal {
        (spelled != literal).then_some(Flaw::Spelling { unit: literal, name: first.name })
    } else {
        Some(Flaw::Unsupported { name: first.name })
    };
    Some(Written { millis, flaw, digits: int, unit: spelled })
}

/// A unit of time as it may be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unit {
    millis: u64,
    /// Its TissLang literal unit, if it has one.
    literal: Option<&'static str>,
    /// What it is called in messages ("seconds", "days").
    name: &'static str,
}

/// The unit spelled `spelled` (any case): `sec`, `S`, `minutes`, `d`.
fn unit(spelled: &str) -> Option<Unit> {
    let lower = spelled.to_ascii_lowercase();
    let (millis, literal, name) = match lower.as_str() {
        "ms" | "msec" | "msecs" | "millis" | "millisecond" | "milliseconds" => {
            (1, Some("ms"), "milliseconds")
        }
        "s" | "sec" | "secs" | "second" | "seconds" => (1_000, Some("s"), "seconds"),
        "m" | "min" | "mins" | "minute" | "minutes" => (60_000, Some("m"), "minutes"),
        "h" | "hr" | "hrs" | "hour" | "hours" => (3_600_000, Some("h"), "hours"),
        "d" | "day" | "days" => (86_400_000, None, "days"),
        "w" | "wk" | "wks" | "week" | "weeks" => (604_800_000, None, "weeks"),
        _ => return None,
    };
    Some(Unit { millis, literal, name })
}

/// `int.frac` units of `unit_ms` milliseconds, if a whole number of them.
fn exact(int: &str, frac: Option<&str>, unit_ms: u64) -> Result<u64, Inexact> {
    let int: u128 = int.replace('_', "").parse().map_err(|_| Inexact::TooLarge)?;
    let mut ms = int.checked_mul(u128::from(unit_ms)).ok_or(Inexact::TooLarge)?;
    let frac = frac.map(|f| f.replace('_', "")).unwrap_or_default();
    let frac = frac.trim_end_matches('0');
    if !frac.is_empty() {
        // A unit holds at most ten factors of 2 or of 5 (a week is
        // 2^10 * 3^3 * 5^5 * 7 ms), so a fraction of more than ten digits
        // never comes out whole; past 18 the product below could overflow.
        if frac.len() > 18 {
            return Err(Inexact::NotWhole);
        }
        let scale = 10u128.pow(frac.len() as u32);
        let part: u128 = frac.parse::<u128>().map_err(|_| Inexact::NotWhole)? * u128::from(unit_ms);
        if !part.is_multiple_of(scale) {
            return Err(Inexact::NotWhole);
        }
        ms += part / scale;
    }
    u64::try_from(ms).map_err(|_| Inexact::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(text: &str) -> Option<String> {
        read(text)?.fix()
    }

    #[test]
    fn every_fix_means_the_same() {
        for (text, want) in [
            ("1.5s", "1500ms"),
            ("30S", "30s"),
            ("2m30s", "150s"),
            ("30sec", "30s"),
            ("1d", "24h"),
            ("0.5m", "30s"),
            ("1.5h", "90m"),
            ("2h30m", "150m"),
            ("1.0s", "1s"),
            ("1_000MS", "1_000ms"),
            ("120sec", "120s"),
            ("1w", "168h"),
            ("30 seconds", "30s"),
            ("2m 30s", "150s"),
            ("30s", "30s"),
            ("1.25s", "1250ms"),
        ] {
            assert_eq!(fix(text).as_deref(), Some(want), "{text}");
        }
    }

    #[test]
    fn no_fix_where_none_is_exact() {
        for text in ["1.0001s", "0.5ms", "1.5", "30x", "5", "", "s", "1.5.5s", "99999999999999999999h"] {
            assert_eq!(fix(text), None, "{text}");
        }
        assert_eq!(read("1.0001s").unwrap().millis, Err(Inexact::NotWhole));
        assert_eq!(read("99999999999999999999h").unwrap().millis, Err(Inexact::TooLarge));
        assert_eq!(read("0.1234567890123456789012s").unwrap().millis, Err(Inexact::NotWhole));
    }

    #[test]
    fn flaws() {
        assert_eq!(read("30s").unwrap().flaw, None);
        assert_eq!(read("1.5s").unwrap().flaw, Some(Flaw::Fraction));
        assert_eq!(read("2m30s").unwrap().flaw, Some(Flaw::Compound));
        assert_eq!(read("1d").unwrap().flaw, Some(Flaw::Unsupported { name: "days" }));
        assert_eq!(read("30sec").unwrap().flaw, Some(Flaw::Spelling { unit: "s", name: "seconds" }));
    }
}
