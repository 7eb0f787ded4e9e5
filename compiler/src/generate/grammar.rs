//! The grammar of TissLang that `tissc grammar` prints: `tiss.gbnf`, kept as
//! llama.cpp's GBNF (the form servers take), and the same rules in W3C EBNF
//! (the notation of the XML specification, which GBNF is a dialect of) for
//! readers and other tools, translated here so that there is one grammar.
//! `tissc generate` sends a stricter form of it, [`plan_gbnf`].
//! `compiler/tests/generate/grammar.rs` holds the GBNF to the parser, and
//! `plan_grammar.rs` the plan grammar to the compiler, with llama.cpp's own
//! recogniser.

/// The grammar, as llama.cpp's GBNF.
pub const GBNF: &str = include_str!("tiss.gbnf");

/// The rules `tissc generate`'s grammar has in place of [`GBNF`]'s of the
/// same names, and a few of its own (`plan.gbnf` says why).
const PLAN_RULES: &str = include_str!("plan.gbnf");

/// The grammar `tissc generate` sends: [`GBNF`] without the rules
/// `plan.gbnf` defines, then `plan.gbnf`. Written as an edit of the
/// language's rules so that a statement the language gains reaches it too.
pub fn plan_gbnf() -> String {
    let replaced: Vec<&str> = PLAN_RULES.lines().filter_map(rule_name).collect();
    let mut out = String::with_capacity(GBNF.len() + PLAN_RULES.len());
    // Every rule of tiss.gbnf is one line; a line that starts none (a comment,
    // a blank) ends the rule before it.
    for line in GBNF.lines() {
        if !rule_name(line).is_some_and(|name| replaced.contains(&name)) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str(PLAN_RULES);
    out
}

/// The rule a line of GBNF defines, if it starts one.
fn rule_name(line: &str) -> Option<&str> {
    line.split_once(" ::= ").map(|(name, _)| name).filter(|n| !n.is_empty() && !n.starts_with([' ', '#']))
}

/// [`GBNF`] in W3C EBNF: comments become `/* */`, escapes inside literals
/// and classes become `#xN` (W3C strings have no escapes), and a counted
/// repetition `X{m,n}` is written out (`X X? X?`).
pub fn ebnf() -> String {
    let mut out = String::with_capacity(GBNF.len() + GBNF.len() / 4);
    for line in GBNF.lines() {
        out.push_str(&ebnf_line(line));
        out.push('\n');
    }
    out
}

fn ebnf_line(line: &str) -> String {
    // The parts of the line so far, so that a repetition count can repeat the last.
    let mut parts: Vec<String> = Vec::new();
    // Where each open parenthesis's part is, to repeat a group.
    let mut open: Vec<usize> = Vec::new();
    let mut last_group: Option<usize> = None;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '#' => {
                let comment: String = chars[i + 1..].iter().collect();
                parts.push(format!("/*{comment} */"));
                break;
            }
            '"' => {
                let (text, end) = literal(&chars, i);
                parts.push(text);
                i = end;
                continue;
            }
            '[' => {
                let (text, end) = class(&chars, i);
                parts.push(text);
                i = end;
                continue;
            }
            '(' => {
                open.push(parts.len());
                parts.push("(".into());
            }
            ')' => {
                last_group = open.pop();
                parts.push(")".into());
            }
            '{' => {
                let end = chars[i..].iter().position(|&c| c == '}').map_or(chars.len(), |p| i + p);
                let count: String = chars[i + 1..end].iter().collect();
                let start = match parts.last().map(String::as_str) {
                    Some(")") => last_group.unwrap_or(parts.len() - 1),
                    _ => parts.len().saturating_sub(1),
                };
                let atom = parts[start..].concat();
                parts.truncate(start);
                parts.push(repeated(&atom, &count));
                i = end + 1;
                continue;
            }
            _ => parts.push(c.to_string()),
        }
        i += 1;
    }
    parts.concat()
}

/// `X{m,n}`, `X{m,}`, `X{m}` written with `?` and `*`.
fn repeated(atom: &str, count: &str) -> String {
    let (min, max) = match count.split_once(',') {
        Some((m, n)) => (m.trim().parse().unwrap_or(0), n.trim().parse::<usize>().ok()),
        None => {
            let m = count.trim().parse().unwrap_or(0);
            (m, Some(m))
        }
    };
    let mut words = vec![atom.to_string(); min];
    match max {
        Some(max) => words.extend(std::iter::repeat_n(format!("{atom}?"), max.saturating_sub(min))),
        None => words.push(format!("{atom}*")),
    }
    words.join(" ")
}

/// A GBNF escape at `chars[i]` (the backslash): the character and the index after it.
fn unescape(chars: &[char], i: usize) -> (char, usize) {
    let hex = |len: usize| {
        let digits: String = chars.get(i + 2..i + 2 + len).unwrap_or_default().iter().collect();
        u32::from_str_radix(&digits, 16).ok().and_then(char::from_u32)
    };
    match chars.get(i + 1) {
        Some('n') => ('\n', i + 2),
        Some('t') => ('\t', i + 2),
        Some('r') => ('\r', i + 2),
        Some('x') => (hex(2).unwrap_or('\u{FFFD}'), i + 4),
        Some('u') => (hex(4).unwrap_or('\u{FFFD}'), i + 6),
        Some('U') => (hex(8).unwrap_or('\u{FFFD}'), i + 10),
        Some(&c) => (c, i + 2),
        None => ('\\', i + 1),
    }
}

/// A character as W3C EBNF writes it outside a string.
fn code(c: char) -> String {
    format!("#x{:X}", c as u32)
}

fn printable(c: char) -> bool {
    !c.is_control() && c != '\u{FEFF}'
}

/// The literal starting at `chars[start]` (`"`): as one or more W3C strings
/// and `#xN` characters, and the index after it.
fn literal(chars: &[char], start: usize) -> (String, usize) {
    let mut text = Vec::new();
    let mut i = start + 1;
    while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
            let (c, next) = unescape(chars, i);
            text.push(c);
            i = next;
        } else {
            text.push(chars[i]);
            i += 1;
        }
    }
    // A run of printable characters is one string, quoted with whichever
    // quote it does not hold.
    let mut pieces = Vec::new();
    let mut run = String::new();
    let flush = |run: &mut String, pieces: &mut Vec<String>| {
        if !run.is_empty() {
            let quote = if run.contains('"') { '\'' } else { '"' };
            pieces.push(format!("{quote}{run}{quote}"));
            run.clear();
        }
    };
    for c in text {
        if printable(c) && !(c == '\'' && run.contains('"')) {
            run.push(c);
        } else if printable(c) {
            flush(&mut run, &mut pieces);
            run.push(c);
        } else {
            flush(&mut run, &mut pieces);
            pieces.push(code(c));
        }
    }
    flush(&mut run, &mut pieces);
    let joined = match pieces.len() {
        0 => "\"\"".to_string(),
        1 => pieces.remove(0),
        _ => format!("({})", pieces.join(" ")),
    };
    (joined, i + 1)
}

/// The class starting at `chars[start]` (`[`): in W3C form (no backslash
/// escapes: the character, or `#xN` where it would be read otherwise), and
/// the index after it.
fn class(chars: &[char], start: usize) -> (String, usize) {
    let mut out = String::from("[");
    let mut i = start + 1;
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    while i < chars.len() && chars[i] != ']' {
        let (c, next) = if chars[i] == '\\' { unescape(chars, i) } else { (chars[i], i + 1) };
        let escaped = chars[i] == '\\';
        if printable(c) && !(escaped && matches!(c, ']' | '-' | '^' | '#')) {
            out.push(c);
        } else {
            out.push_str(&code(c));
        }
        i = next;
    }
    out.push(']');
    (out, i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_classes_lose_their_escapes() {
        assert_eq!(
            ebnf_line(r#"a ::= "\"" "\\" "\n" "x\ty" "${""#),
            r#"a ::= '"' "\" #xA ("x" #x9 "y") "${""#
        );
        assert_eq!(ebnf_line(r#"b ::= [^"\\${\n] [ \t\r]"#), r#"b ::= [^"\${#xA] [ #x9#xD]"#);
        assert_eq!(ebnf_line(r#"c ::= "\uFEFF"? x # note"#), "c ::= #xFEFF? x /* note */");
    }

    #[test]
    fn counted_repetitions_are_written_out() {
        assert_eq!(ebnf_line("d ::= [0-9]{1,3}"), "d ::= [0-9] [0-9]? [0-9]?");
        assert_eq!(ebnf_line(r#"e ::= ("a" b){2}"#), r#"e ::= ("a" b) ("a" b)"#);
        assert_eq!(ebnf_line("f ::= x{1,}"), "f ::= x x*");
    }

    #[test]
    fn the_plan_grammar_defines_each_rule_once() {
        let plan = plan_gbnf();
        let mut names: Vec<&str> = plan.lines().filter_map(rule_name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "{plan}");
        assert!(plan.contains("root ::= pragmas") && !plan.contains("root ::= \"\\uFEFF\""), "{plan}");
        // Every rule the language has is still there, replaced or not.
        assert!(GBNF.lines().filter_map(rule_name).all(|name| names.contains(&name)));
        // Typed answers (1.1) are the language's, not a generated plan's (its pragmas say 1.0).
        assert!(GBNF.contains("(ws1 \"AS\" type-after-word)?") && GBNF.contains("| \"EXISTS\" |"));
        let rule = |name: &str| plan.lines().find(|l| rule_name(l) == Some(name)).unwrap_or_default();
        assert!(!rule("prompt").contains("\"AS\"") && !rule("test").contains("EXISTS"), "{plan}");
        assert!(!rule("item").contains("typedef"), "{plan}");
    }

    #[test]
    fn the_whole_grammar_translates_rule_for_rule() {
        let ebnf = ebnf();
        let rules = |text: &str| text.lines().filter(|l| l.contains(" ::= ")).count();
        assert_eq!(rules(&ebnf), rules(GBNF));
        assert!(ebnf.contains(r#"escape ::= "\" ([\"ntr$] | "u{" [0-9a-fA-F] [0-9a-fA-F]? "#), "{ebnf}");
        assert!(ebnf.lines().all(|l| !l.starts_with('#')), "{ebnf}");
        assert!(ebnf.contains("typedef ::= \"TYPE\" ws1 name ws \"=\" ws type"), "{ebnf}");
        assert!(ebnf.contains("literal ::= '\"' literal-part* \"$\"* '\"'"), "{ebnf}");
    }
}
