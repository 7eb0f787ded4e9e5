//! Durations as people write them (`30sec`, `1.5s`, `1e3s`, `2m30s`, `1d`, `"30 s"`),
//! read exactly, and the TissLang literal that means the same (book: reference/lexical.md: an
//! integer followed directly by `ms`, `s`, `m` or `h`). Suggestions for a
//! malformed duration come from here, so a fix never changes the meaning:
//! where no literal is exact (`1.0001s`), there is none.

pub(crate) use tisslang::duration::literal;

/// What is wrong with how a duration is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flaw {
    /// A fraction or an exponent: `1.5s`, `1e3s`.
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
/// perhaps a fraction and an exponent (`1e3`), a unit any spelling of a
/// unit of time in any case. `None` if the text is not written like a
/// duration at all (no unit, or letters that are no unit: `30x`, `5`).
pub(crate) fn read(text: &str) -> Option<Written<'_>> {
    let mut rest = text.trim();
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let (num, after) = number(rest)?;
        let after = after.trim_start();
        let unit_len = after.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(after.len());
        let (spelled, after) = after.split_at(unit_len);
        let unit = unit(spelled)?;
        parts.push((num, spelled, unit));
        rest = after.trim_start();
    }
    let &[(Number { int, .. }, spelled, first), ..] = parts.as_slice() else { return None };
    let millis = parts.iter().try_fold(0u64, |sum, (num, _, unit)| {
        sum.checked_add(exact(num, unit.millis)?).ok_or(Inexact::TooLarge)
    });
    let flaw = if parts.iter().any(|p| p.0.frac.is_some() || p.0.exp.is_some()) {
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

/// The literal a timeout written `text` means exactly, a number without a
/// unit being seconds (`TIMEOUT=10.0` is `10s`, `=1e3` is `1000s`); `None`
/// where no literal is exact (`1.0001`) or `text` is no duration.
pub(crate) fn timeout_literal(text: &str) -> Option<String> {
    let in_seconds = is_number(text).then(|| format!("{text}s"));
    let written = read(in_seconds.as_deref().unwrap_or(text))?;
    written.millis.ok()?;
    written.fix()
}

/// Whether `text` is a number alone, without a unit: `10`, `1.5`, `1e3`.
pub(crate) fn is_number(text: &str) -> bool {
    number(text).is_some_and(|(_, rest)| rest.is_empty())
}

/// A number as written: digits, then perhaps `.digits` and `e digits`.
struct Number<'a> {
    int: &'a str,
    frac: Option<&'a str>,
    exp: Option<&'a str>,
}

/// The number at the start of `text` and what follows it.
fn number(text: &str) -> Option<(Number<'_>, &str)> {
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let (int, after) = text.split_at(digits_len(text));
    let (frac, after) = match after.strip_prefix('.') {
        Some(f) if f.starts_with(|c: char| c.is_ascii_digit()) => {
            let (frac, after) = f.split_at(digits_len(f));
            (Some(frac), after)
        }
        _ => (None, after),
    };
    let (exp, after) = match after.strip_prefix(['e', 'E']) {
        Some(e) if e.starts_with(|c: char| c.is_ascii_digit()) => {
            let (exp, after) = e.split_at(digits_len(e));
            (Some(exp), after)
        }
        _ => (None, after),
    };
    Some((Number { int, frac, exp }, after))
}

/// The length of the run of digits and `_` at the start of `text`.
fn digits_len(text: &str) -> usize {
    text.find(|c: char| !(c.is_ascii_digit() || c == '_')).unwrap_or(text.len())
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

/// `num` units of `unit_ms` milliseconds, if a whole number of them.
fn exact(num: &Number, unit_ms: u64) -> Result<u64, Inexact> {
    let frac = num.frac.map(|f| f.replace('_', "")).unwrap_or_default();
    let frac = frac.trim_end_matches('0');
    let exp = match num.exp.map(|e| e.replace('_', "").parse::<u32>()) {
        None => 0,
        Some(Ok(exp)) => exp,
        Some(Err(_)) => return Err(Inexact::TooLarge),
    };
    // `int.frac e exp` is the digits `int frac` shifted left by `exp - frac.len()`.
    let digits = format!("{}{frac}", num.int.replace('_', ""));
    let digits: u128 = digits.parse().map_err(|_| Inexact::TooLarge)?;
    let ms = digits.checked_mul(u128::from(unit_ms)).ok_or(Inexact::TooLarge)?;
    let ms = match i64::from(exp) - frac.len() as i64 {
        shift if shift >= 0 => {
            let scale = 10u128.checked_pow(shift as u32).ok_or(Inexact::TooLarge)?;
            if ms == 0 { 0 } else { ms.checked_mul(scale).ok_or(Inexact::TooLarge)? }
        }
        // A unit holds at most ten factors of 2 or of 5 (a week is
        // 2^10 * 3^3 * 5^5 * 7 ms), so a fraction of more than ten digits
        // never comes out whole; past 38 the power below would overflow.
        shift if shift < -38 => return Err(Inexact::NotWhole),
        shift => {
            let scale = 10u128.pow(shift.unsigned_abs() as u32);
            if !ms.is_multiple_of(scale) {
                return Err(Inexact::NotWhole);
            }
            ms / scale
        }
    };
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
            ("1e3s", "1000s"),
            ("1.5e1m", "15m"),
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
        assert_eq!(read("1e99999999999s").unwrap().millis, Err(Inexact::TooLarge));
        assert_eq!(read("1.5e-3s"), None);
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
