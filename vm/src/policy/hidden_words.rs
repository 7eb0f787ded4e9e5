//! Words only running tells: a parameter, substitution or arithmetic
//! outside double quotes, which the shell splits at blanks, or braces
//! (`Word::has_hidden_words`). Such a word may be any number of words, so
//! it moves every word after it: `git -C $D status` runs `git rm status`
//! when `D` is `. rm`, and `kubectl -n $N get pods` runs `kubectl delete`
//! when `N` is `x delete`. A pattern is matched against the line as
//! written; where its verdict may change with what such a word becomes, the
//! line cannot be judged before it runs (book: reference/policy.md).

use globset::GlobSet;
use tiss_support::shell::parse::Word;
use tiss_support::shell::programs::Program;

/// What a pattern asks of a command's text: the literal text it starts
/// with (up to its first `*`, `?`, `[` or `{`), and whether all that
/// follows is `*`, so that any text starting so matches it.
#[derive(Debug, Clone)]
pub(super) struct Shape {
    start: String,
    open: bool,
}

impl Shape {
    pub(super) fn of(pattern: &str) -> Shape {
        let mut start = String::new();
        let mut chars = pattern.char_indices();
        let mut rest = "";
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => start.extend(chars.next().map(|(_, c)| c)),
                '*' | '?' | '[' | '{' => {
                    rest = &pattern[i..];
                    break;
                }
                c => start.push(c),
            }
        }
        Shape { start, open: !rest.is_empty() && rest.bytes().all(|b| b == b'*') }
    }

    /// Whether the verdict of a pattern of this shape on a form known up
    /// to `known`, anything after, may depend on what comes after: the
    /// pattern names the form's program and then its words (`git rm *`, not
    /// `*--force*`, which is matched as written), and it may match some such
    /// text (neither start is cut short by the other) but not every one (it
    /// is not `known`'s start and `*`).
    fn depends(&self, known: &str) -> bool {
        let Some((name, _)) = self.start.split_once(' ') else { return false };
        if known.split(' ').next() != Some(name) {
            return false;
        }
        let may_match = self.start.starts_with(known) || known.starts_with(&self.start);
        may_match && !(self.open && known.starts_with(&self.start))
    }
}

/// The words of the programs read from a line that hide words, as written.
pub(super) fn hiding(found: &[Program]) -> Vec<&str> {
    found
        .iter()
        .flat_map(|program| &program.args)
        .filter(|word| word.has_hidden_words())
        .map(Word::text)
        .collect()
}

/// Every form of a line a pattern is matched against ([`super::Policy::first_form`]):
/// the line as written, each program's wrapper forms and its own.
pub(super) fn forms(command: &str, found: &[Program]) -> Vec<String> {
    let mut forms = vec![command.to_string()];
    for program in found {
        forms.extend(program.wrappers.iter().map(|form| form.to_string()));
        forms.push(program.text());
        forms.extend(program.subcommand_text());
    }
    forms.dedup();
    forms
}

/// The part of `form` before the first of the `hiding` words it holds
/// (`None` if it holds none): what the shell runs starts so; the rest may
/// be anything. A word found earlier than it stands cuts the form shorter,
/// which judges more, never less.
pub(super) fn known_part<'a>(form: &'a str, hiding: &[&str]) -> Option<&'a str> {
    let at = hiding.iter().filter_map(|word| form.find(word)).min()?;
    Some(&form[..at])
}

/// The first pattern of `shapes` whose verdict on a form of `forms` may
/// depend on what a hiding word becomes: its index, the form and the word.
pub(super) fn first_depending<'a>(
    shapes: &[Shape],
    forms: &[&'a str],
    hiding: &[&'a str],
) -> Option<(usize, &'a str, &'a str)> {
    forms.iter().find_map(|&form| {
        let known = known_part(form, hiding)?;
        let word = hiding.iter().copied().min_by_key(|word| form.find(word).unwrap_or(usize::MAX))?;
        shapes.iter().position(|shape| shape.depends(known)).map(|i| (i, form, word))
    })
}

/// Whether `pattern` (of this shape) matches `form` whatever its hiding
/// words become (`allow` needs one such for a program): any text may follow
/// the form's known start, or the pattern has a `*` where the one hiding
/// word stands, what comes before the `*` matching the known start and
/// what comes after it the rest (`cp * backup/` matches `cp $SRC backup/`
/// whatever `SRC` gives), and `allow` matches the form without the word
/// too (it may give no word at all: `cp backup/`).
pub(super) fn matches_whatever(
    pattern: &str,
    shape: &Shape,
    form: &str,
    hiding: &[&str],
    allow: &GlobSet,
) -> bool {
    let Some(known) = known_part(form, hiding) else { return true };
    if !shape.depends(known) {
        return true;
    }
    let Some(word) = hiding.iter().find(|word| form[known.len()..].starts_with(**word)) else { return false };
    let rest = &form[known.len() + word.len()..];
    if hiding.iter().any(|word| rest.contains(word)) {
        return false;
    }
    let matches = |glob: &str, text: &str| {
        super::compile_pattern(glob).is_ok_and(|g| g.compile_matcher().is_match(text))
    };
    let without = format!("{known}{}", rest.strip_prefix(' ').unwrap_or(rest));
    top_level_stars(pattern).any(|at| matches(&pattern[..at], known) && matches(&pattern[at + 1..], rest))
        && allow.is_match(without.trim_end())
}

/// Where `pattern` has a `*` that is no escape's, class's or brace's.
fn top_level_stars(pattern: &str) -> impl Iterator<Item = usize> + '_ {
    let (mut escaped, mut class, mut braces) = (false, false, 0usize);
    pattern.char_indices().filter_map(move |(i, c)| {
        match (std::mem::take(&mut escaped), c) {
            (true, _) => {}
            (false, '\\') => escaped = true,
            (false, '[') if !class => class = true,
            (false, ']') if class => class = false,
            (false, '{') if !class => braces += 1,
            (false, '}') if !class => braces = braces.saturating_sub(1),
            (false, '*') if !class && braces == 0 => return Some(i),
            _ => {}
        }
        None
    })
}

/// What to say of such a line: the word, and what to write.
pub(super) fn why(word: &str) -> String {
    format!(
        "the shell may make any number of words of `{word}`, which moves the words after it, so what it runs is \
         known only when it runs"
    )
}

pub(super) const HINT: &str =
    " (quote it, `\"$VAR\"`, so it stays one word; write out options it would give, or brace words)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_s_start_and_whether_any_text_after_it_matches() {
        for (pattern, start, open) in [
            ("rm *", "rm ", true),
            ("rm **", "rm ", true),
            ("git push*", "git push", true),
            ("kubectl * delete *", "kubectl ", false),
            ("rm -rf /", "rm -rf /", false),
            ("\\*x*", "*x", true),
            ("ls ?", "ls ", false),
            ("*", "", true),
            ("*rm*", "", false),
            ("{a,b} *", "", false),
        ] {
            let shape = Shape::of(pattern);
            assert_eq!((shape.start.as_str(), shape.open), (start, open), "{pattern}");
        }
    }

    #[test]
    fn a_verdict_depends_on_hidden_words_only_where_the_known_start_leaves_it_open() {
        for (pattern, known, depends) in [
            // Every text from `rm ` on matches: whatever `$X` is.
            ("rm *", "rm ", false),
            ("rm *", "rm -f ", false),
            ("*", "ls ", false),
            // None can: the known start already differs.
            ("rm *", "ls ", false),
            ("git push *", "git log ", false),
            ("rm -rf /*", "rm -f ", false),
            // As text, `git rm *` matches nothing that starts `git -C `
            // (that `git -C . rm` runs `git rm` is the git reader's to say).
            ("git rm *", "git -C ", false),
            // Some can, some cannot.
            ("kubectl * delete *", "kubectl -n ", true),
            ("rm -rf /*", "rm ", true),
            ("git push*", "git ", true),
            // Patterns that do not start with a program's name and a blank
            // are matched as written: `echo $x` is echo's whatever `x` is.
            ("*--force*", "git push ", false),
            ("*/canary*", "echo ", false),
            ("git*", "git ", false),
            ("rm -rf /*", "sudo rm ", false),
        ] {
            assert_eq!(Shape::of(pattern).depends(known), depends, "{pattern} on `{known}…`");
        }
    }

    fn policy(allow: Option<&[&str]>, deny: &[&str], approve: &[&str]) -> super::super::Policy {
        super::super::tests::policy(allow, deny, approve, super::super::TaintRun::Allow)
    }

    use super::super::Verdict;

    /// Each line runs what its pattern names when the variable holds the
    /// value beside it (`F=-r` makes `rm $F d` `rm -r d`).
    #[test]
    fn a_word_that_may_be_several_refuses_a_line_a_pattern_on_the_program_s_words_may_match() {
        let deny = policy(None, &["rm -r*", "kubectl * delete *", "*--force*"], &[]);
        for line in ["rm $F d", "rm {-r,d}", "sudo rm $F d", "sh -c 'rm $F d'", "kubectl -n $N get pods"] {
            match deny.decide(line, None) {
                Verdict::Deny(m) => {
                    assert!(m.contains("any number of words") && m.contains("quote it"), "{line}: {m}")
                }
                other => panic!("{line}: {other:?}"),
            }
        }
        // One word, or a start no pattern can follow, or a pattern matched
        // as written (it does not start with the program's name).
        for line in ["rm \"$F\" d", "rm -f $F", "ls $D", "kubectl -n \"$N\" get pods", "grep $P f", "echo $X"]
        {
            assert_eq!(deny.decide(line, None), Verdict::Run, "{line}");
        }
        // Asked where an approve pattern matches it, and where one may.
        let asks = policy(None, &["rm -r*"], &["rm *"]);
        assert!(matches!(asks.decide("rm $F d", None), Verdict::Approve(_)));
        let approve = policy(None, &[], &["kubectl * delete *"]);
        match approve.decide("kubectl -n $N get pods", None) {
            Verdict::Approve(m) => assert!(m.contains("`kubectl * delete *`"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(approve.decide("kubectl -n prod get pods", None), Verdict::Run);
    }

    #[test]
    fn an_allow_pattern_admits_such_a_word_only_if_it_matches_whatever_the_word_gives() {
        let allow = policy(Some(&["ls *", "cargo test *", "cp * backup/"]), &[], &[]);
        for line in ["ls $D", "cargo test $T -- --nocapture", "cp \"$SRC\" backup/", "cp a backup/"] {
            assert_eq!(allow.decide(line, None), Verdict::Run, "{line}");
        }
        // `cp $SRC backup/` may be `cp backup/`, which no pattern allows;
        // `cp $A $B backup/` has two such words.
        for line in ["cp $SRC backup/", "cp $A $B backup/"] {
            match allow.decide(line, None) {
                Verdict::Deny(m) => {
                    assert!(
                        m.contains("as written it matches the pattern `cp * backup/`")
                            && m.contains("quote it"),
                        "{m}"
                    )
                }
                other => panic!("{other:?}"),
            }
        }
        // A `*` stands where the word does, and `cp backup/` (no word) is
        // allowed too.
        let with_empty = policy(Some(&["cp * backup/", "cp backup/"]), &[], &[]);
        assert_eq!(with_empty.decide("cp $SRC backup/", None), Verdict::Run);
        let stars: Vec<usize> = top_level_stars("a*b\\*[*]{x,*}*").collect();
        assert_eq!(stars, [1, 13]);
    }

    #[test]
    fn git_s_own_options_before_its_subcommand_are_looked_through() {
        let deny = policy(None, &["git rm *"], &[]);
        for line in ["git -C . rm x", "git -c user.name=a rm x", "git --git-dir=.git --work-tree . rm x"] {
            match deny.decide(line, None) {
                Verdict::Deny(m) => assert!(m.contains("its part `git rm x`"), "{line}: {m}"),
                other => panic!("{line}: {other:?}"),
            }
        }
        match deny.decide("git -C $D status x", None) {
            Verdict::Deny(m) => assert!(m.contains("git's subcommand: quote it"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(deny.decide("git -C \"$D\" status x", None), Verdict::Run);
        // allow looks at the command as written: `-C` may point elsewhere.
        let allow = policy(Some(&["git status*"]), &[], &[]);
        assert!(matches!(allow.decide("git -C /elsewhere status", None), Verdict::Deny(_)));
    }

    #[test]
    fn the_known_part_ends_at_the_first_hiding_word() {
        assert_eq!(known_part("git -C $D status", &["$D"]), Some("git -C "));
        assert_eq!(known_part("sudo ls $A $B", &["$B", "$A"]), Some("sudo ls "));
        assert_eq!(known_part("ls x", &["$D"]), None);
    }
}
