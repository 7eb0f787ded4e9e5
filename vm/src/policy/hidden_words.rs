//! Words only running tells: a parameter, substitution or arithmetic,
//! quoted or not, or braces (`Expansion::unknown_text`). Outside double
//! quotes the shell splits what they give at blanks, so such a word may be
//! any number of words and moves every word after it: `git -C $D status`
//! runs `git rm status` when `D` is `. rm`, and `kubectl -n $N get pods`
//! runs `kubectl delete` when `N` is `x delete`. Inside them it is one word
//! of any text: `rm "$F" d` runs `rm -r d` when `F` is `-r`. A pattern is
//! matched against the line as written; where its verdict may change with
//! what such a word becomes, the line cannot be judged before it runs
//! (book: reference/policy.md).

use std::collections::HashSet;

use aho_corasick::{AhoCorasick, MatchKind};
use globset::{GlobMatcher, GlobSet};
use tiss_support::shell::programs::Program;

/// What a pattern asks of a command's text: the literal text it starts
/// with (up to its first `*`, `?`, `[` or `{`), and whether all that
/// follows is `*`, so that any text starting so matches it.
#[derive(Debug, Clone)]
pub(super) struct Shape {
    start: String,
    open: bool,
    /// No `*`, `?`, `[` or `{` at all: the pattern is one text.
    exact: bool,
    /// The pattern split at each `*` outside a class, brace or escape: what
    /// comes before it, what comes after ([`matches_whatever`]).
    splits: Vec<(GlobMatcher, GlobMatcher)>,
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
        let matcher = |glob: &str| super::compile_pattern(glob).ok().map(|glob| glob.compile_matcher());
        let splits = top_level_stars(pattern)
            .filter_map(|at| Some((matcher(&pattern[..at])?, matcher(&pattern[at + 1..])?)))
            .collect();
        Shape {
            start,
            open: !rest.is_empty() && rest.bytes().all(|b| b == b'*'),
            exact: rest.is_empty(),
            splits,
        }
    }

    /// Whether the verdict of a pattern of this shape on a form known up
    /// to `known`, anything after, may depend on what comes after: the
    /// pattern names the form's program and then its words (`git rm *`, not
    /// `*--force*`, which is matched as written), and it may match some such
    /// text (neither start is cut short by the other) but not every one (it
    /// is not `known`'s start and `*`).
    fn depends(&self, known: &str) -> bool {
        let Some((name, _)) = self.start.split_once(' ') else { return false };
        known.split(' ').next() == Some(name) && self.text_depends(known)
    }

    /// [`Shape::depends`] for `deny` and `approve`, where a pattern that does
    /// not name a program and then its words (`*--force*`, `git*--force*`)
    /// is text looked for anywhere: the word may give that very text
    /// (`F=--force; git push $F`), unless the known start already rules the
    /// pattern out (`rm*` of `ls `) or in whatever follows (`*`, `git*` of
    /// `git `). `allow` matches such a pattern as written ([`matches_whatever`]).
    fn may_depend(&self, known: &str) -> bool {
        if self.start.contains(' ') { self.depends(known) } else { self.text_depends(known) }
    }

    /// Whether text starting with `known`, anything after, may match this
    /// pattern and may not. A pattern without wildcards is matched only by
    /// its own text, which `known` must start (a word that gives nothing
    /// leaves no blank: `reboot $X` may run `reboot`); one with them, by text
    /// the known start does not cut short, unless all that follows is `*`.
    fn text_depends(&self, known: &str) -> bool {
        if self.exact {
            return self.start.starts_with(known.trim_end_matches(' '));
        }
        let may_match = self.start.starts_with(known) || known.starts_with(&self.start);
        may_match && !(self.open && known.starts_with(&self.start))
    }
}

/// How a word's text is known only when it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Outside double quotes: any number of words (`$F`, `$(…)`, braces).
    Splits,
    /// Inside them: one word, but of any text (`"$F"`, `$'…'`).
    OneWord,
    /// A glob: the names of the files that match it, any number, each of
    /// which may read as an option (a file named `-rf`).
    Glob,
}

/// Such a word, as written, and what it starts with whatever it gives
/// (`./` of `./*`, `-u` of `-u"$X"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hidden<'a> {
    pub text: &'a str,
    pub kind: Kind,
    pub start: String,
    /// A glob that expands too (`"$D"/*`): one word of any text where globs are matched as written.
    unknown: bool,
    /// A tilde is all of it that is not known (`~/x`): matched as written
    /// where globs are.
    home_only: bool,
}

/// What a message says when no word is found (it always is, where asked).
static NO_WORD: Hidden<'static> =
    Hidden { text: "", kind: Kind::Splits, start: String::new(), unknown: true, home_only: false };

/// The words of the programs read from a line whose text only running
/// tells, as written, each once, and an automaton that finds the first of
/// them in a form: one pass over each form, however many such words a long
/// line has.
pub(super) struct Hiding<'a> {
    words: Vec<Hidden<'a>>,
    finder: Option<AhoCorasick>,
}

impl<'a> Hiding<'a> {
    /// The words of `found` that hide their text.
    pub(super) fn of(found: &'a [Program]) -> Hiding<'a> {
        let mut seen = HashSet::new();
        let words: Vec<Hidden> = found
            .iter()
            .flat_map(|program| &program.args)
            .filter(|word| word.literal().is_none() && seen.insert(word.text()))
            .filter_map(|word| {
                let expansion = word.expansion()?;
                let kind = if expansion.hidden_words {
                    Kind::Splits
                } else if expansion.glob {
                    Kind::Glob
                } else if expansion.unknown_text {
                    Kind::OneWord
                } else {
                    return None;
                };
                let (start, unknown) = (expansion.known_start, expansion.unknown_text);
                Some(Hidden { text: word.text(), kind, start, unknown, home_only: expansion.home_only })
            })
            .collect();
        Hiding::with(words)
    }

    /// The same words where a glob and a tilde are matched as written
    /// (`allow`: the program is the same whatever files or home directory it
    /// names); none if it has neither.
    pub(super) fn as_allow_reads(&self) -> Option<Hiding<'a>> {
        let as_written = |word: &Hidden| (word.kind == Kind::Glob && !word.unknown) || word.home_only;
        if !self.words.iter().any(|word| word.kind == Kind::Glob || word.home_only) {
            return None;
        }
        let words = self.words.iter().filter(|word| !as_written(word));
        let as_one_word = |word: &Hidden<'a>| match word.kind {
            Kind::Glob => Hidden { kind: Kind::OneWord, ..word.clone() },
            _ => word.clone(),
        };
        Some(Hiding::with(words.map(as_one_word).collect()))
    }

    fn with(words: Vec<Hidden<'a>>) -> Hiding<'a> {
        let finder = (!words.is_empty())
            .then(|| {
                let texts = words.iter().map(|word| word.text);
                AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(texts).ok()
            })
            .flatten();
        Hiding { words, finder }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The first of the words in `form`: where it starts (the part before
    /// it is known: what the shell runs starts so; the rest may be
    /// anything), and the word. A word found earlier than it stands cuts
    /// the form shorter, which judges more, never less.
    fn first(&self, form: &str) -> Option<(usize, &Hidden<'a>)> {
        let found = self.finder.as_ref()?.find(form)?;
        Some((found.start(), &self.words[found.pattern().as_usize()]))
    }

    /// The first of the words in `form`, for a message.
    pub(super) fn first_word(&self, form: &str) -> &Hidden<'a> {
        self.first(form).map_or(&NO_WORD, |(_, word)| word)
    }
}

/// Every form of a line a pattern is matched against ([`super::Policy::first_form`]):
/// the line as written, each program's wrapper forms (those of one `sh -c`
/// line once: a long line's programs share them) and its own.
pub(super) fn forms(command: &str, found: &[Program]) -> Vec<String> {
    let mut forms = vec![command.to_string()];
    let mut shared = HashSet::new();
    for program in found {
        let wrappers = program.wrappers.iter().filter(|form| shared.insert(form.as_ptr()));
        forms.extend(wrappers.map(|form| form.to_string()));
        forms.push(program.text());
        forms.extend(program.subcommand_text());
    }
    forms
}

/// The first pattern of `shapes` whose verdict on a form of `forms` may
/// depend on what a hiding word becomes: its index and the word.
pub(super) fn first_depending<'h, 'a>(
    shapes: &[Shape],
    forms: &[&str],
    hiding: &'h Hiding<'a>,
) -> Option<(usize, &'h Hidden<'a>)> {
    forms.iter().find_map(|&form| {
        let (at, word) = hiding.first(form)?;
        // What it gives starts with its own known start (`rm ./*`, `rm -- *`).
        let known = format!("{}{}", &form[..at], word.start);
        shapes.iter().position(|shape| shape.may_depend(&known)).map(|i| (i, word))
    })
}

/// Whether a pattern of this shape matches `form` whatever its hiding
/// words become (`allow` needs one such for a program): any text may follow
/// the form's known start, or the pattern has a `*` where the one hiding
/// word stands, what comes before the `*` matching the known start and
/// what comes after it the rest (`cp * backup/` matches `cp $SRC backup/`
/// whatever `SRC` gives), and `allow` matches the form with the word
/// empty too (unquoted it then gives no word at all: `cp backup/`).
pub(super) fn matches_whatever(shape: &Shape, form: &str, hiding: &Hiding, allow: &GlobSet) -> bool {
    let Some((at, word)) = hiding.first(form) else { return true };
    let known = &form[..at];
    if !shape.depends(known) {
        return true;
    }
    let rest = &form[at + word.text.len()..];
    if hiding.first(rest).is_some() {
        return false;
    }
    let rest_without = if word.kind == Kind::OneWord { rest } else { rest.strip_prefix(' ').unwrap_or(rest) };
    let without = format!("{known}{rest_without}");
    shape.splits.iter().any(|(before, after)| before.is_match(known) && after.is_match(rest))
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
pub(super) fn why(word: &Hidden) -> String {
    let text = word.text;
    match word.kind {
        Kind::Splits => format!(
            "the shell may make any number of words of `{text}`, which moves the words after it, so what it runs \
             is known only when it runs"
        ),
        Kind::OneWord => format!("whose text only running tells: `{text}` is one word, but may be any"),
        Kind::Glob => format!(
            "the shell makes into the names of the files that match `{text}`, any number of them, and a name may \
             read as an option (a file named `-rf`)"
        ),
    }
}

/// What to write instead. Quoting a word that may split keeps it one word,
/// which an `allow` pattern with a `*` there may then admit; under `deny`
/// and `approve` one word of any text is judged as any text.
pub(super) fn hint(word: &Hidden, allow: bool) -> &'static str {
    match word.kind {
        Kind::Splits if allow => {
            " (quote it, `\"$VAR\"`, so it stays one word; write out options it would give, or brace words)"
        }
        Kind::Splits | Kind::OneWord => {
            " (give the value as a plan variable, `${name}`, whose value the policy sees, or write it out)"
        }
        Kind::Glob => " (start it with `./`, or put `--` before it, so no name reads as an option)",
    }
}

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
        for (pattern, known, depends, may_depend) in [
            // Every text from `rm ` on matches: whatever `$X` is.
            ("rm *", "rm ", false, false),
            ("rm *", "rm -f ", false, false),
            ("*", "ls ", false, false),
            // None can: the known start already differs.
            ("rm *", "ls ", false, false),
            ("git push *", "git log ", false, false),
            ("rm -rf /*", "rm -f ", false, false),
            ("rm -rf /*", "sudo rm ", false, false),
            // As text, `git rm *` matches nothing that starts `git -C `
            // (that `git -C . rm` runs `git rm` is the git reader's to say).
            ("git rm *", "git -C ", false, false),
            // Some can, some cannot.
            ("kubectl * delete *", "kubectl -n ", true, true),
            ("rm -rf /*", "rm ", true, true),
            ("git push*", "git ", true, true),
            // A pattern without wildcards: only its own text, which a word
            // that gives nothing may leave (`reboot $X` is `reboot`).
            ("rm -rf /", "rm -rf ", true, true),
            ("rm -rf /", "rm -rf /x", false, false),
            ("reboot", "reboot ", false, true),
            ("rm", "rmdir ", false, false),
            // Patterns that do not start with a program's name and a blank
            // are matched as written by allow: `echo $x` is echo's whatever
            // `x` is; under deny and approve they are text the word may give.
            ("*--force*", "git push ", false, true),
            ("*/canary*", "echo ", false, true),
            ("git*--force*", "git push ", false, true),
            ("git*--force*", "ls ", false, false),
            ("git*", "git ", false, false),
        ] {
            let shape = Shape::of(pattern);
            assert_eq!(shape.depends(known), depends, "{pattern} on `{known}…`");
            assert_eq!(shape.may_depend(known), may_depend, "{pattern} on `{known}…`, deny");
        }
    }

    fn policy(allow: Option<&[&str]>, deny: &[&str], approve: &[&str]) -> super::super::Policy {
        super::super::tests::policy(allow, deny, approve, super::super::TaintRun::Allow)
    }

    use super::super::Verdict;
    use super::super::tests::denied_saying;

    /// Each line runs what its pattern names when the variable holds the
    /// value beside it (`F=-r` makes `rm $F d` `rm -r d`).
    #[test]
    fn a_word_that_may_be_several_refuses_a_line_a_pattern_on_the_program_s_words_may_match() {
        let deny = policy(None, &["rm -r*", "kubectl * delete *", "*--force*"], &[]);
        let says = ["any number of words", "as a plan variable, `${name}`"];
        denied_saying(
            &deny,
            &["rm $F d", "rm {-r,d}", "sudo rm $F d", "sh -c 'rm $F d'", "kubectl -n $N get pods"],
            &says,
        );
        // One word, but of any text: `rm "$F" d` runs `rm -r d` when `F`
        // is `-r`, as bash's `$'-r'` is, and `rm ~ d` when `HOME` is.
        let says = ["is one word, but may be any", "as a plan variable, `${name}`"];
        denied_saying(
            &deny,
            &["rm \"$F\" d", "rm \"$(cat f)\" d", "rm $'-r' d", "kubectl -n \"$N\" get pods", "rm ~ *.o"],
            &says,
        );
        let root = policy(None, &["rm -rf /*"], &[]);
        denied_saying(&root, &["rm -rf ~", "rm -rf ~/", "rm -rf ~root"], &["`~"]);
        // allow matches a tilde as written, as it does a glob: the program
        // is the same whatever the home directory.
        let allow = policy(Some(&["cat ~/notes", "ls *", "cp ~/*.o out/"]), &[], &[]);
        for line in ["cat ~/notes", "ls ~/x", "cp ~/*.o out/"] {
            assert_eq!(allow.decide(line, None), Verdict::Run, "{line}");
        }
        assert!(matches!(allow.decide("cat ~/notes \"$X\"", None), Verdict::Deny(_)));
        // `*--force*` is text looked for anywhere: any such word may give it.
        denied_saying(
            &deny,
            &["echo $X", "ls $F", "ls \"$F\"", "ls *", "rm ./*"],
            &["the pattern `*--force*` may match it then"],
        );
        // A start no pattern on the program's words can follow.
        let anchored = policy(None, &["rm -r*", "kubectl * delete *"], &[]);
        for line in
            ["rm -f $F", "ls $D", "ls \"$D\"", "grep $P f", "echo $X", "cat \"$F\"", "ls ~", "rm -f ~/x"]
        {
            assert_eq!(anchored.decide(line, None), Verdict::Run, "{line}");
        }
        // What the word may give cannot make the program another's, nor
        // take away what a pattern on the whole text matches whatever follows.
        let named = policy(None, &["cp*--force*", "ls*"], &[]);
        assert_eq!(named.decide("echo $X", None), Verdict::Run);
        assert!(matches!(named.decide("cp $F a b", None), Verdict::Deny(_)));
        // A pattern without wildcards: a word that gives nothing may leave
        // its text (`reboot $X` runs `reboot`), a longer start cannot.
        let exact = policy(None, &["reboot", "rm -rf /"], &[]);
        denied_saying(&exact, &["reboot $X", "rm -rf $D"], &["may match it then"]);
        assert_eq!(exact.decide("rm -rf /tmp/x$Y", None), Verdict::Run);
        // allow matches such a pattern as written.
        let allow = policy(Some(&["*--dry-run"]), &[], &[]);
        assert_eq!(allow.decide("echo $X --dry-run", None), Verdict::Run);
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

    /// A glob gives files' names, and beside a file named `-r`, `rm *` is
    /// `rm -r …`: deny and approve judge it; allow matches it as written.
    #[test]
    fn a_glob_may_name_a_file_that_reads_as_an_option() {
        let deny = policy(None, &["rm -r*"], &[]);
        let says = ["a name may read as an option", "start it with `./`"];
        denied_saying(&deny, &["rm *", "rm *.o", "rm [a-z]*", "sh -c 'rm *'", "rm \"$D\"/*"], &says);
        // What the names start with is known: no name can be an option.
        for line in ["rm ./*", "rm -- *", "rm x/*.o", "rm -f *", "ls *", "rm '*'"] {
            assert_eq!(deny.decide(line, None), Verdict::Run, "{line}");
        }
        let approve = policy(None, &[], &["rm -r*"]);
        assert!(matches!(approve.decide("rm *", None), Verdict::Approve(_)));
        let allow = policy(Some(&["rm *.o", "ls *"]), &[], &[]);
        for line in ["rm *.o", "ls *", "ls \"$D\"/*"] {
            assert_eq!(allow.decide(line, None), Verdict::Run, "{line}");
        }
    }

    #[test]
    fn an_allow_pattern_admits_such_a_word_only_if_it_matches_whatever_the_word_gives() {
        let allow = policy(Some(&["ls *", "pytest *", "cp * backup/"]), &[], &[]);
        for line in ["ls $D", "pytest $T -- -q", "cp \"$SRC\" backup/", "cp a backup/"] {
            assert_eq!(allow.decide(line, None), Verdict::Run, "{line}");
        }
        // cargo's options are read (`--config` may name a program it runs):
        // a word that may be one is refused whatever the pattern, its value
        // glued to its option is read.
        let cargo = policy(Some(&["cargo test *"]), &[], &[]);
        assert!(matches!(cargo.decide("cargo test $T -- --nocapture", None), Verdict::Deny(_)));
        assert_eq!(cargo.decide("cargo test --package=\"$P\"", None), Verdict::Run);
        // `cp $SRC backup/` may be `cp backup/`, which no pattern allows;
        // `cp $A $B backup/` has two such words.
        let says = ["as written it matches the pattern `cp * backup/`", "quote it"];
        denied_saying(&allow, &["cp $SRC backup/", "cp $A $B backup/"], &says);
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
        let lines = ["git -C . rm x", "git -c user.name=a rm x", "git --git-dir=.git --work-tree . rm x"];
        denied_saying(&deny, &lines, &["its part `git rm x`"]);
        denied_saying(&deny, &["git -C $D status x"], &["git's subcommand: quote it"]);
        assert_eq!(deny.decide("git -C \"$D\" status x", None), Verdict::Run);
        // allow looks at the command as written: `-C` may point elsewhere.
        let allow = policy(Some(&["git status*"]), &[], &[]);
        assert!(matches!(allow.decide("git -C /elsewhere status", None), Verdict::Deny(_)));
    }

    #[test]
    fn the_known_part_ends_at_the_first_hiding_word() {
        let line = "sudo ls $A $B; kubectl -n $D get \"$E\" ~ ./-* x/\"$F\"/*";
        let found = tiss_support::shell::programs::programs(line).unwrap();
        let hiding = Hiding::of(&found);
        let found =
            |form| hiding.first(form).map(|(at, word)| (at, word.text, word.kind, word.start.clone()));
        assert_eq!(found("kubectl -n $D get"), Some((11, "$D", Kind::Splits, String::new())));
        assert_eq!(found("sudo ls $A $B"), Some((8, "$A", Kind::Splits, String::new())));
        assert_eq!(found("get \"$E\""), Some((4, "\"$E\"", Kind::OneWord, String::new())));
        // A glob's names start with its text before the first glob character.
        assert_eq!(found("rm ./-*"), Some((3, "./-*", Kind::Glob, "./-".to_string())));
        assert_eq!(found("ls x/\"$F\"/*"), Some((3, "x/\"$F\"/*", Kind::Glob, "x/".to_string())));
        // A tilde is a home directory, one word of any text (`HOME` may be set).
        assert_eq!(found("ls x ~"), Some((5, "~", Kind::OneWord, String::new())));
        // allow matches a glob as written.
        let unglobbed = hiding.as_allow_reads().expect("the line has globs");
        let kinds = |form| unglobbed.first(form).map(|(_, word)| word.kind);
        assert_eq!((kinds("rm ./-*"), kinds("x/\"$F\"/*")), (None, Some(Kind::OneWord)));
    }
}

#[cfg(test)]
mod long_lines {
    use super::super::{TaintRun, Verdict, tests::policy};
    use std::time::Duration;

    /// A long line of many programs, each with its own word that may
    /// split, inside one `sh -c` (whose form every program shares) is
    /// decided in about the time of the same line without them (looking
    /// for each word in each form took minutes).
    #[test]
    fn many_hiding_words_in_a_long_line_are_decided_quickly() {
        let inner: String = (0..5_000).map(|i| format!("echo $v{i}; ")).collect();
        let line = format!("sh -c '{inner}'");
        for p in [
            policy(None, &["rm -r*"], &[], TaintRun::Allow),
            policy(Some(&["echo *", "sh *"]), &[], &["cp * x"], TaintRun::Allow),
        ] {
            let plain = line.replace('$', "");
            let start = std::time::Instant::now();
            assert_eq!(p.decide(&plain, None), Verdict::Run);
            let without = start.elapsed();
            let start = std::time::Instant::now();
            assert_eq!(p.decide(&line, None), Verdict::Run);
            let with = start.elapsed();
            // Measured 1.2× (220 against 180 ms, a debug build).
            assert!(with < 4 * without + Duration::from_millis(100), "{with:?} against {without:?}");
        }
    }
}
