//! The command policy and taint rule (book: reference/policy.md): which RUN commands may
//! start, which need a human's approval first, and what happens to a RUN
//! whose command holds data from a model or a file.
//!
//! [`PolicyRules`] is the policy as plain data (what a snapshot remembers,
//! what `file.rs` reads from a `--policy` file or the `[policy]` table of
//! `tiss.toml`); [`Policy`] is the same rules compiled into glob sets, which
//! the machine asks before every RUN ([`Policy::decide`]).
//!
//! Patterns are shell-style globs over each **simple command** the command
//! runs, after interpolation (interpolated values already shell-quoted),
//! read by the one shell reader (`tiss_support::shell::programs`): `a && b`,
//! `a; b`, `a | b`, `$(b)`, backquotes, subshells and compound commands are
//! split into their simple commands; wrappers (`env`, `nice`, `timeout`,
//! `sudo`, `xargs`, `sh -c 'literal'`, `find -exec` ...) are looked through
//! to the command they run; a program named by a path is its name (`/bin/rm
//! x` is `rm x`); a literal word is matched without its quotes, any other as
//! written. `*` matches any characters, spaces, `/` and newlines included;
//! `?` one character; `[abc]`, `[!a-z]` a class; `{a,b}` either; `\*` a
//! literal `*`. A pattern must match a whole simple command: `"git push*"`
//! matches `git push origin main`.
//!
//! - `deny` and `approve` match any simple command in any of its forms: the
//!   command it runs, each wrapper with what follows it (`sudo rm x`, `env rm
//!   x`), and the whole command line as written.
//! - `allow` must match the command every simple command runs: `ls . && rm
//!   x` needs both `ls .` and `rm x` allowed. A program only running the
//!   command would tell (`$CMD`, `eval`, `sh -c "$x"`), or a command that is
//!   not valid shell syntax, matches no `allow` pattern: under an allow list
//!   it is denied, or asks where an `approve` pattern matches it.

pub mod file;
mod hidden_words;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use hidden_words::Shape;
use serde::{Deserialize, Serialize};
use tiss_support::shell::programs::{self, Program, code_variables};

/// Why a RUN counts as tainted, for `[taint] run` (book: reference/policy.md#taint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taint {
    /// It holds data from a model or a file: in its command, its IN
    /// directory or its environment (an ENV set from such data).
    Holds,
    /// It runs after the WRITE or APPEND at this line put such data in the
    /// workspace, or a RUN there that held it (which may have written it):
    /// the command may run it (`sh gen.sh`, `make`).
    Written(u32),
}

impl Taint {
    fn why(self) -> String {
        match self {
            Taint::Holds => "it holds data from a model or a file".into(),
            Taint::Written(line) => format!(
                "it runs after line {line} put data from a model or a file in the workspace (a WRITE of it, or a RUN that held it), which it may run"
            ),
        }
    }
}

/// What happens to a RUN whose command holds tainted data (`[taint] run`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaintRun {
    /// Runs like any other command (the default: no policy, no change).
    #[default]
    Allow,
    /// Asks a human first, as an `approve` pattern does.
    Approve,
    /// A `security_violation` before the command starts.
    Deny,
}

impl TaintRun {
    pub fn name(self) -> &'static str {
        match self {
            TaintRun::Allow => "allow",
            TaintRun::Approve => "approve",
            TaintRun::Deny => "deny",
        }
    }

    pub fn from_name(name: &str) -> Option<TaintRun> {
        [TaintRun::Allow, TaintRun::Approve, TaintRun::Deny].into_iter().find(|t| t.name() == name)
    }
}

/// A policy as data: where it came from and its rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyRules {
    /// Where the rules came from, for messages: "`ci.toml`", "`tiss.toml` [policy]".
    /// Empty for no policy at all.
    pub origin: String,
    /// `[commands] allow`: when present, every command that matches none is denied.
    #[serde(deserialize_with = "bounded::optional_patterns")]
    pub allow: Option<Vec<String>>,
    /// `[commands] deny`, checked first.
    #[serde(deserialize_with = "bounded::patterns")]
    pub deny: Vec<String>,
    /// `[commands] approve`: a human approves before the command starts.
    #[serde(deserialize_with = "bounded::patterns")]
    pub approve: Vec<String>,
    /// `[taint] run`.
    pub taint_run: TaintRun,
}

impl PolicyRules {
    /// Whether a RUN may ask a human under these rules (an `approve`
    /// pattern, or `[taint] run = "approve"`): `--answers` entries may then
    /// answer a RUN.
    pub fn may_ask(&self) -> bool {
        !self.approve.is_empty() || self.taint_run == TaintRun::Approve
    }

    /// The rules in one line, for the options a run prints on resume.
    pub fn summary(&self) -> String {
        if self.origin.is_empty() {
            return "none".to_string();
        }
        let list = |patterns: &[String]| patterns.len().to_string();
        format!(
            "{} (allow: {}, deny: {}, approve: {}, taint run: {})",
            self.origin,
            self.allow.as_deref().map_or_else(|| "any".to_string(), list),
            self.deny.len(),
            self.approve.len(),
            self.taint_run.name()
        )
    }
}

/// A snapshot's remembered policy decoded within its payload's budget
/// (`tisslang::codec::decode_budget`), like every collection of a snapshot.
mod bounded {
    use serde::{Deserialize, Deserializer};

    tisslang::bounded_vecs! { patterns: "policy patterns" }

    #[derive(Deserialize)]
    struct Patterns(#[serde(deserialize_with = "patterns")] Vec<String>);

    pub fn optional_patterns<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
        Ok(Option::<Patterns>::deserialize(d)?.map(|p| p.0))
    }
}

/// What the policy says of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Run,
    /// Refused: the message of the `security_violation`.
    Deny(String),
    /// Needs a human's approval: why, for the question.
    Approve(String),
}

/// [`PolicyRules`] compiled: one glob set per list.
#[derive(Debug, Clone)]
pub struct Policy {
    rules: PolicyRules,
    allow: Option<GlobSet>,
    deny: GlobSet,
    approve: GlobSet,
    /// Each list's patterns by what they ask of a command's start, for a
    /// line whose words only running tells ([`hidden_words`]).
    shapes: Shapes,
}

#[derive(Debug, Clone)]
struct Shapes {
    allow: Vec<Shape>,
    deny: Vec<Shape>,
    approve: Vec<Shape>,
}

impl PartialEq for Policy {
    /// The glob sets are the rules compiled: equal rules, equal policies.
    fn eq(&self, other: &Policy) -> bool {
        self.rules == other.rules
    }
}

/// One pattern, compiled the way the policy matches (see the module's doc).
pub fn compile_pattern(pattern: &str) -> Result<Glob, String> {
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
        .map_err(|e| format!("`{pattern}` is not a valid pattern: {}", e.kind()))
}

fn compile_set(patterns: &[String]) -> Result<GlobSet, String> {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        set.add(compile_pattern(pattern)?);
    }
    set.build().map_err(|e| format!("the patterns cannot be compiled: {e}"))
}

impl Policy {
    pub fn new(rules: PolicyRules) -> Result<Policy, String> {
        Ok(Policy {
            allow: rules.allow.as_deref().map(compile_set).transpose()?,
            deny: compile_set(&rules.deny)?,
            approve: compile_set(&rules.approve)?,
            shapes: Shapes {
                allow: rules.allow.iter().flatten().map(|p| Shape::of(p)).collect(),
                deny: rules.deny.iter().map(|p| Shape::of(p)).collect(),
                approve: rules.approve.iter().map(|p| Shape::of(p)).collect(),
            },
            rules,
        })
    }

    pub fn rules(&self) -> &PolicyRules {
        &self.rules
    }

    /// The verdict on `command` (as it will run); `tainted`: it holds data
    /// from a model or a file. Deny patterns first, then the allow list,
    /// then approve patterns, then the taint rule (see the module's doc).
    pub fn decide(&self, command: &str, taint: Option<Taint>) -> Verdict {
        self.decide_in(command, taint, &[])
    }

    /// The verdict on `command` where the plan's ENV has set the variables
    /// `env` names: one that makes a program run code its command does not
    /// name (`TAR_OPTIONS`, `LD_PRELOAD`, …) passes no list, as a program
    /// only running tells does.
    pub fn decide_in(&self, command: &str, taint: Option<Taint>, env: &[&str]) -> Verdict {
        let origin = &self.rules.origin;
        let read = programs::programs(command);
        let found: &[Program] = read.as_deref().unwrap_or_default();
        if let Some((form, i)) = self.first_form(&self.deny, command, found) {
            return Verdict::Deny(format!(
                "`{command}` is denied by the pattern `{}` of {origin} [commands] deny{}",
                self.rules.deny[i],
                part(&form, command)
            ));
        }
        let approve = self.first_form(&self.approve, command, found);
        // A word of the line whose text only running tells (`$N`, `"$F"`, a
        // glob): a pattern that may match what it becomes, but not whatever
        // it becomes, cannot judge the line. allow matches a glob as written.
        let hiding = hidden_words::Hiding::of(found);
        let as_allow_reads = hiding.as_allow_reads();
        let unglobbed = as_allow_reads.as_ref().unwrap_or(&hiding);
        let forms = if hiding.is_empty() { Vec::new() } else { hidden_words::forms(command, found) };
        let forms: Vec<&str> = forms.iter().map(String::as_str).collect();
        let depending = |shapes: &[Shape], list: &[String]| {
            hidden_words::first_depending(shapes, &forms, &hiding).map(|(i, word)| {
                (format!("{}; the pattern `{}` may match it then", hidden_words::why(word), list[i]), word)
            })
        };
        let deny_split = depending(&self.shapes.deny, &self.rules.deny).map(|(what, word)| {
            (format!("`{command}` holds a word {what}"), hidden_words::hint(word, false).to_string())
        });
        // What the line runs cannot be known before it runs: a line that
        // cannot be read (the shell runs `rm x` of `rm x; [[ a ]]` before it
        // fails), a program without a name (`CMD=rm; $CMD x`), a shell that
        // runs its input. It cannot be shown to run nothing the list names:
        // denied, unless an approve pattern matches the line, which asks,
        // as it does for what the allow list refuses.
        let steered = steered(command, env);
        let unknown = unknown(&read).or_else(|| steered.clone()).or(deny_split);
        if let (Some((what, hint)), false) = (&unknown, self.deny.is_empty()) {
            let why =
                format!("{what}, so it cannot be shown to run nothing that {origin} [commands] deny names");
            if let Some((form, i)) = approve {
                return Verdict::Approve(format!(
                    "{why}, and it matches the pattern `{}` of [commands] approve{}",
                    self.rules.approve[i],
                    part(&form, command)
                ));
            }
            return Verdict::Deny(format!("`{command}` is denied: {why}{hint}"));
        }
        if let Some(allow) = &self.allow {
            let refused = match &read {
                Err(why) => Some((
                    format!("it cannot be read as shell syntax ({why}), so it matches no pattern"),
                    String::new(),
                )),
                Ok(found) => found
                    .iter()
                    .find_map(|program| {
                        not_allowed(allow, &self.shapes.allow, &self.rules, program, unglobbed)
                    })
                    .or_else(|| {
                        steered.map(|(what, hint)| (format!("{what}, so it matches no pattern"), hint))
                    })
                    .or_else(|| sets_path(command, env)),
            };
            if let Some((why, hint)) = refused {
                if let Some((form, i)) = approve {
                    return Verdict::Approve(format!(
                        "{why} of {origin} [commands] allow, and it matches the pattern `{}` of [commands] \
                         approve{}",
                        self.rules.approve[i],
                        part(&form, command)
                    ));
                }
                return Verdict::Deny(format!(
                    "`{command}` is denied: {why} of {origin} [commands] allow{hint}"
                ));
            }
        }
        if let Some((form, i)) = approve {
            return Verdict::Approve(format!(
                "it matches the pattern `{}` of {origin} [commands] approve{}",
                self.rules.approve[i],
                part(&form, command)
            ));
        }
        if let Some((what, _)) = depending(&self.shapes.approve, &self.rules.approve) {
            return Verdict::Approve(format!(
                "`{command}` holds a word {what}, so it cannot be shown to run nothing that {origin} [commands] \
                 approve names"
            ));
        }
        if let (Some((what, _)), false) = (&unknown, self.approve.is_empty()) {
            return Verdict::Approve(format!(
                "{what}, so it cannot be shown to run nothing that {origin} [commands] approve names"
            ));
        }
        if let Some(taint) = taint {
            let why = taint.why();
            match self.rules.taint_run {
                TaintRun::Allow => {}
                TaintRun::Approve => {
                    return Verdict::Approve(format!("{why} ({origin} [taint] run = \"approve\")"));
                }
                TaintRun::Deny => {
                    return Verdict::Deny(format!(
                        "`{command}` is denied: {why} ({origin} [taint] run = \"deny\")"
                    ));
                }
            }
        }
        Verdict::Run
    }

    /// The first form of the command that a pattern of `set` matches, and
    /// the pattern's index: the whole line as written, then each program's
    /// wrapper forms, its own, and git's without its own options (`git -C .
    /// rm x` is also `git rm x`).
    fn first_form(&self, set: &GlobSet, command: &str, found: &[Program]) -> Option<(String, usize)> {
        if set.is_empty() {
            return None;
        }
        if let Some(i) = first_match(set, command) {
            return Some((command.to_string(), i));
        }
        // Programs of one `sh -c` line share its wrapper forms: each is
        // matched once, not once per program (thousands, on a long line).
        let mut tried = std::collections::HashSet::new();
        found.iter().find_map(|program| {
            let wrapped = program.wrappers.iter().find_map(|form| {
                if !tried.insert(form.as_ptr()) {
                    return None;
                }
                first_match(set, form).map(|i| (form.to_string(), i))
            });
            wrapped
                .or_else(|| {
                    let text = program.text();
                    first_match(set, &text).map(|i| (text, i))
                })
                .or_else(|| {
                    let text = program.subcommand_text()?;
                    first_match(set, &text).map(|i| (text, i))
                })
        })
    }
}

/// Why what a line runs is not known before it runs, if it is not, and
/// a hint: the line cannot be read, or it runs a program without a name or
/// one that runs its input.
fn unknown(read: &Result<Vec<Program>, String>) -> Option<(String, String)> {
    match read {
        Err(why) => Some((format!("it cannot be read as shell syntax ({why})"), String::new())),
        Ok(found) => found
            .iter()
            .find(|program| program.name.is_none() || program.input)
            .map(|program| (runs_unnamed(program), hint(program))),
    }
}

/// Why what `command` runs is steered by the environment, if it may be:
/// the line names a variable that makes a program run code it does not
/// name, or the plan's ENV has set one (`env`), and a hint.
fn steered(command: &str, env: &[&str]) -> Option<(String, String)> {
    let hint =
        " (a plan may not set it; give yours to tissvm's environment and `--env-allow NAME`)".to_string();
    if let Some(name) = code_variables::named(command) {
        return Some((
            format!(
                "it names `{name}`, an environment variable that makes a program run code its command does not name"
            ),
            hint,
        ));
    }
    let name = env
        .iter()
        .find(|name| code_variables::runs_code(name) || code_variables::names_a_build_program(name))?;
    Some((
        format!(
            "the plan's ENV set `{name}`, an environment variable that makes a program run code its command does not name"
        ),
        hint,
    ))
}

/// Why `command` matches no allow pattern if it, or the plan's ENV (`env`),
/// sets `PATH`: a program's name may then resolve to a file the plan wrote
/// (`cp /bin/sh ./ls; PATH=. ls -c LINE`), which an allow list matches only
/// by its path. The word `PATH` not read as an expansion (`$PATH`,
/// `${PATH}`, `${#PATH}`, `${PATH//:/ }`) is taken as set: `PATH=…`,
/// `export PATH=…`, `env PATH=…`, `read PATH`, `for PATH in …`,
/// `${PATH:=…}`.
fn sets_path(command: &str, env: &[&str]) -> Option<(String, String)> {
    let hint = " (set `PATH` in tissvm's own environment instead, which every RUN inherits, or name the \
                program by its path and allow that path)"
        .to_string();
    if env.contains(&"PATH") {
        return Some((
            "the plan's ENV set `PATH`, so a program's name may resolve to a file the plan wrote, and it \
             matches no pattern"
                .to_string(),
            hint,
        ));
    }
    let bytes = command.as_bytes();
    let word = |at: usize| bytes.get(at).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_');
    let set = command.match_indices("PATH").any(|(at, _)| {
        let end = at + "PATH".len();
        if (at > 0 && word(at - 1)) || word(end) {
            return false;
        }
        let before = &command[..at];
        if before.ends_with('$') || before.ends_with("${#") || before.ends_with("${!") {
            return false;
        }
        // `${PATH}` reads it; `${PATH=…}` and `${PATH:=…}` may set it.
        !before.ends_with("${") || command[end..].starts_with('=') || command[end..].starts_with(":=")
    });
    set.then(|| {
        (
            format!(
                "`{command}` sets `PATH`, so a program's name may resolve to a file the plan wrote, and it \
                 matches no pattern"
            ),
            hint,
        )
    })
}

/// What to write instead of such a program.
fn hint(program: &Program) -> String {
    let (_, instead) = program.runs_what();
    let instead = match (program.input, program.bash_evaluates()) {
        (true, _) => instead,
        (false, true) => {
            "use numbers only in the shell's arithmetic and subscripts, or compute with a program: `expr \"$n\" + 1`"
        }
        (false, false) => "name the program in the command itself",
    };
    format!(" ({instead})")
}

/// What is said of such a program.
fn runs_unnamed(program: &Program) -> String {
    if program.input {
        return format!(
            "`{}` runs {}, which only running it would tell",
            program.text(),
            program.runs_what().0
        );
    }
    if program.bash_evaluates() {
        return format!(
            "`{}` runs what bash makes of a variable's value, which only running it would tell (where `sh` is \
             bash, arithmetic, `${{!x}}` and `${{x@P}}` evaluate the value as code, and an array subscript in it \
             runs its substitutions: `x='a[$(rm y)]'; echo $((x))` runs `rm y`)",
            program.text()
        );
    }
    format!(
        "`{}` runs a program only running it would tell (a parameter, a substitution, `eval`, an alias, a builtin such as `hash -p`)",
        program.text()
    )
}

/// Why `program` is not allowed, if it is not, and a hint. A pattern that
/// matches it allows it only if it matches whatever the words it hides
/// (`hiding`, [`hidden_words`]) become.
fn not_allowed(
    allow: &GlobSet,
    shapes: &[Shape],
    rules: &PolicyRules,
    program: &Program,
    hiding: &hidden_words::Hiding,
) -> Option<(String, String)> {
    if program.name.is_none() || program.input {
        return Some((format!("{}, so it matches no pattern", runs_unnamed(program)), hint(program)));
    }
    // A program named by a path the plan may have written (`./ls`) is
    // matched by that path; one run through such a wrapper, by none.
    let text = match &program.path {
        None => program.text(),
        Some(path) if path.its_own && !path.expands => program.text_as(&path.written),
        Some(path) => return Some(through_a_path(program, path)),
    };
    let matched = allow.matches(&text);
    let Some(&first) = matched.iter().min() else {
        let by_path = if program.path.is_some() {
            "; a program named by a path outside the system's program directories (one the plan may have \
             written) is matched by that path"
        } else {
            ""
        };
        let hint = format!(
            " (add a pattern that matches it to `allow`, e.g. \"{}\"{by_path})",
            suggested_pattern(&text)
        );
        return Some((format!("`{text}` matches no pattern"), hint));
    };
    if matched.iter().any(|&i| hidden_words::matches_whatever(&shapes[i], &text, hiding, allow)) {
        return None;
    }
    let word = hiding.first_word(&text);
    let pattern = rules.allow.as_deref().and_then(|list| list.get(first)).map_or("", String::as_str);
    Some((
        format!(
            "`{text}` holds a word {}; as written it matches the pattern `{pattern}`, but not whatever it \
             becomes, so it matches no pattern",
            hidden_words::why(word)
        ),
        hidden_words::hint(word, true).to_string(),
    ))
}

/// Why `program`, run through a wrapper, runner or shell named by a path
/// outside the system's program directories, or named by a path that
/// expands, matches no pattern, and a hint.
fn through_a_path(program: &Program, path: &programs::NamedByPath) -> (String, String) {
    let text = program.text();
    if path.its_own {
        return (
            format!(
                "`{text}` names its program by a path that expands (`{}`), outside the system's program \
                 directories, so it matches no pattern",
                path.written
            ),
            " (write the path out, and allow it by that path)".to_string(),
        );
    }
    (
        format!(
            "`{text}` runs through `{}`, named by a path outside the system's program directories (a program \
             the plan may have written), which an allow list does not look through, so it matches no pattern",
            path.written
        ),
        " (run the wrapper by its name or from the system's directories, or run the program without it)"
            .to_string(),
    )
}

/// What a message adds when a pattern matched a part of the command.
fn part(form: &str, command: &str) -> String {
    if form == command { String::new() } else { format!(" (its part `{form}` matches it)") }
}

/// The index of the first pattern that matches.
fn first_match(set: &GlobSet, command: &str) -> Option<usize> {
    if set.is_empty() {
        return None;
    }
    set.matches(command).into_iter().min()
}

/// A pattern a user would likely add to allow `command`, and that allows
/// it: its program and `*`, or the program alone when it has no arguments
/// (`ls *` does not match `ls`).
fn suggested_pattern(command: &str) -> String {
    let mut words = command.split_whitespace();
    let program = words.next().unwrap_or("");
    let rest = if words.next().is_some() { " *" } else { "" };
    let escaped: String = program
        .chars()
        .flat_map(|c| {
            let special = matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '"');
            special.then_some('\\').into_iter().chain(std::iter::once(c))
        })
        .collect();
    format!("{escaped}{rest}")
}

#[cfg(test)]
mod against_shells;

#[cfg(test)]
mod tests;
