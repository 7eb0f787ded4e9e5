//! Where bash evaluates text it expanded as code (where `sh` is bash, and
//! in any `bash -c LINE`). Arithmetic evaluates a variable's *value* as an
//! expression, and an array subscript in that expression runs the command
//! substitutions in it: `x='a[$(rm y)]'; echo $((x))` runs `rm y`, though
//! no `rm` is written in a place that runs. The places: `$((…))`, `$[…]`,
//! `((…))`, an array's subscript (`${a[x]}`, `a[x]=1`), a substring's
//! offset and length (`${s:x}`), indirect expansion (`${!x}`, whose value
//! may be `a[…]`), and a prompt's expansion (`${x@P}`, which runs the
//! substitutions in the value). dash does none of these. So such a place
//! that names a variable, or holds an expansion, has no name; one of only
//! numbers and operators is arithmetic and nothing else.

/// Whether bash evaluating the arithmetic `expr` may run what no word
/// names: it names a variable (a word that starts with a letter or `_`;
/// `0x1F` and `2#101` are numbers), or holds an expansion (`$x`, `$(…)`,
/// a backquote), whose text is evaluated in turn.
pub fn arithmetic_evaluates(expr: &str) -> bool {
    let bytes = expr.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b == b'$' || b == b'`' || b.is_ascii_alphabetic() || b == b'_' {
            return true;
        }
        if b.is_ascii_digit() {
            // A number, in any base bash writes: its letters are digits.
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || b"_#@".contains(&bytes[at])) {
                at += 1;
            }
            continue;
        }
        at += 1;
    }
    false
}

/// Whether the parameter expansion `${inner}` makes bash evaluate text as
/// code: a subscript or a substring's offset or length that
/// [`arithmetic_evaluates`], indirect expansion (`${!x}`; not `${!x[@]}`
/// or `${!prefix*}`, which list names), or `@P`.
pub fn parameter_evaluates(inner: &str) -> bool {
    let (indirect, rest) = match inner.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, inner.strip_prefix('#').filter(|r| !r.is_empty()).unwrap_or(inner)),
    };
    let name_len = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    // A special parameter (`$@`, `$1`, `$#`) is one character, of any length in bytes.
    let name_len = if name_len == 0 { rest.chars().next().map_or(0, char::len_utf8) } else { name_len };
    let after = &rest[name_len.min(rest.len())..];
    let (subscript, after) = match after.strip_prefix('[') {
        Some(open) => match open.find(']') {
            Some(close) => (Some(&open[..close]), &open[close + 1..]),
            // An unclosed subscript: the shell would refuse it, or not.
            None => return true,
        },
        None => (None, after),
    };
    let listing = matches!(subscript, Some("@" | "*")) || (subscript.is_none() && matches!(after, "*" | "@"));
    if indirect && !listing {
        return true;
    }
    if subscript.is_some_and(|s| !matches!(s, "@" | "*") && arithmetic_evaluates(s)) {
        return true;
    }
    if after.starts_with("@P") {
        return true;
    }
    // `${s:OFFSET}`, `${s:OFFSET:LENGTH}`; not `${s:-w}`, `:=`, `:?`, `:+`.
    match after.strip_prefix(':') {
        Some(range) if !range.starts_with(['-', '=', '?', '+']) => arithmetic_evaluates(range),
        _ => false,
    }
}

/// Whether a variable's name as a builtin or an assignment takes it
/// (`a[x]` of `a[x]=1`, `printf -v 'a[x]'`, `unset 'a[x]'`, `test -v
/// 'a[x]'`: `word` as its literal text, or as written when it expands)
/// may make bash run what no word names: its name expands (it may become
/// `a[…]`), or has a subscript that [`arithmetic_evaluates`].
pub fn name_evaluates(word: &str) -> bool {
    let name = word.split_once('=').map_or(word, |(name, _)| name);
    if name.contains(['$', '`']) {
        return true;
    }
    match name.find('[') {
        Some(open) => {
            let subscript = &name[open + 1..];
            let subscript = subscript.strip_suffix(']').unwrap_or(subscript);
            !matches!(subscript, "@" | "*") && arithmetic_evaluates(subscript)
        }
        None => false,
    }
}

/// The text of an arithmetic expression as a double-quoted word, for its
/// substitutions: inside `$((…))` a single quote is a character, not a
/// quote (`$(( '$(rm x)' ))` runs `rm x`, in dash too), as POSIX reads the
/// expression as if it were in double quotes, where a `"` is a character too.
pub fn arithmetic_as_quoted(expr: &str) -> String {
    let mut quoted = String::with_capacity(expr.len() + 2);
    quoted.push('"');
    for c in expr.chars() {
        if c == '"' {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_of_numbers_only_evaluates_nothing_else() {
        for expr in ["1+2", " 3 * (4 - 1) ", "0x1F + 2#101 + 64#zZ", "1 ? 2 : 3", "10#08", ""] {
            assert!(!arithmetic_evaluates(expr), "{expr}");
        }
        for expr in ["x", "i+1", "1+_a", "$x", "$(cat f)", "`cat f`", "a[1]", "1 ? x : 0"] {
            assert!(arithmetic_evaluates(expr), "{expr}");
        }
    }

    #[test]
    fn parameters_that_evaluate_text() {
        for inner in
            ["a[x]", "a[$i]", "a[i+1]", "!x", "x@P", "s:x", "s:0:n", "s: -x", "#a[i]", "a[1", "!é", "é:x"]
        {
            assert!(parameter_evaluates(inner), "{inner}");
        }
        for inner in [
            "x", "a[1]", "a[@]", "a[*]", "!a[@]", "!pre*", "!pre@", "s:1:2", "x:-d", "x:=d", "x:?e", "x:+a",
            "#x", "#", "x@Q",
        ] {
            assert!(!parameter_evaluates(inner), "{inner}");
        }
    }

    #[test]
    fn names_that_evaluate_text() {
        for name in ["a[x]", "a[$(rm y)]=1", "\"a[$i]\"", "$N", "`n`=1", "a[i+1]"] {
            assert!(name_evaluates(name), "{name}");
        }
        for name in ["a[1]=x", "a[@]", "name=a[x]", "plain", "PATH=$HOME/bin", "x=`date`"] {
            assert!(!name_evaluates(name), "{name}");
        }
    }
}
