//! Which options of the tools read for their options ([`super::tool_commands`])
//! take their value in the next word, so that a word after one is read as
//! that value (`tar -czf "$OUT" .`, `cargo build -p "$P"`, `openssl x509
//! -in "$CERT"`), not as a word that may expand to an option.
//!
//! Each program takes the next word as the value whatever it holds (getopt,
//! popt, openssl's and GnuPG's parsers, Go's flag package, pflag), or
//! refuses to run when it starts with a
//! dash (clap, argparse, commons-cli: `cargo build -p --config=…` is an
//! error): either way the word is no option of its. So a value that stays
//! one word (`"$OUT"`, not `$OUT`, which may split) names nothing to run.
//! The tables need not be whole: an option they do not list is read as
//! before (a word after it that may be an option passes no list). What
//! they list must take a value in every release and subcommand they are
//! read for: a test holds them to the installed tools' help.

/// A tool's options that take a value in the next word: its short letters
/// that do, the letters that take none (a cluster is read only through
/// these: `-czf`), and its long options (and, for tools whose options
/// have one dash, those: openssl's `-in`), each named whole.
struct Valued {
    tool: &'static str,
    short: &'static str,
    flags: &'static str,
    long: &'static [&'static str],
    /// Its short letters whose value, optional, is only the rest of their
    /// word (`make -j4`): what follows them there is no option.
    glued: &'static str,
    /// The subcommands they are read after, if only some (cargo's own: an
    /// external one, `cargo foo`, reads its words itself; `cargo clippy`'s
    /// help shows `-F` as clippy-driver's `--forbid`).
    after: &'static [&'static str],
}

#[rustfmt::skip]
const VALUED: &[Valued] = &[
    Valued { tool: "tar", short: "bCfgHKLNTVX", flags: "AcdrtuxGnSkUWOmpsMBiajJzZhPlRvw", long: &["--file",
        "--directory", "--exclude", "--exclude-from", "--files-from", "--transform", "--xform", "--owner",
        "--group", "--mode", "--mtime", "--format", "--label", "--newer", "--newer-mtime", "--after-date",
        "--listed-incremental", "--blocking-factor", "--record-size", "--tape-length", "--starting-file",
        "--strip-components", "--sort", "--suffix", "--index-file", "--warning", "--exclude-tag",
        "--exclude-tag-all", "--exclude-tag-under", "--owner-map", "--group-map"], glued: "", after: &[] },
    Valued { tool: "sort", short: "koSTt", flags: "bdfgiMhnRrVmsuz", long: &["--key", "--output",
        "--buffer-size", "--field-separator", "--temporary-directory", "--parallel", "--files0-from",
        "--batch-size", "--random-source", "--sort"], glued: "", after: &[] },
    Valued { tool: "split", short: "abClnt", flags: "deux", long: &["--suffix-length", "--bytes",
        "--line-bytes", "--lines", "--number", "--separator", "--additional-suffix"], glued: "", after: &[] },
    Valued { tool: "wget", short: "oaiBtOTwQPUlADRXI", flags: "VhbdqvFcNS46xErkKmpHL", long: &[
        "--output-file", "--append-output", "--input-file", "--base", "--tries", "--output-document",
        "--timeout", "--wait", "--quota", "--directory-prefix", "--user-agent", "--level", "--accept",
        "--reject", "--domains", "--include-directories", "--exclude-directories", "--header", "--user",
        "--password", "--post-data", "--post-file", "--load-cookies", "--save-cookies", "--ca-certificate",
        "--certificate", "--private-key", "--bind-address", "--referer"], glued: "", after: &[] },
    Valued { tool: "curl", short: "oHdTuXAeFwbcrmEyYCUztPQD", flags: "sSfLIkvOJRiglnGBjNZ012346qa", long: &[
        "--output", "--header", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--upload-file",
        "--user", "--request", "--user-agent", "--referer", "--form", "--write-out", "--cookie",
        "--cookie-jar", "--range", "--max-time", "--connect-timeout", "--retry", "--retry-delay",
        "--retry-max-time", "--cacert", "--capath", "--cert", "--key", "--url", "--output-dir", "--resolve",
        "--connect-to", "--dump-header", "--limit-rate", "--max-filesize", "--oauth2-bearer", "--json"],
        glued: "", after: &[] },
    Valued { tool: "man", short: "RLmMeEpr", flags: "dDfkKlwWcuiIa7tZV", long: &["--recode", "--locale",
        "--systems", "--manpath", "--sections", "--extension", "--encoding", "--preprocessor", "--prompt"],
        glued: "", after: &[] },
    // GNU make 4's; `-j` and `-l` take theirs only glued (`-j4`, or a
    // number after `-j`).
    Valued { tool: "make", short: "CfIoW", flags: "bmBdeikLnpqrRsStvw", long: &["--directory", "--file",
        "--makefile", "--include-dir", "--old-file", "--assume-old", "--what-if", "--new-file", "--assume-new"],
        glued: "jl", after: &[] },
    Valued { tool: "diff3", short: "L", flags: "eE3xXimaTv", long: &["--label"], glued: "", after: &[] },
    Valued { tool: "sdiff", short: "owI", flags: "iEZbWBalstdHv", long: &["--output", "--width",
        "--ignore-matching-lines", "--tabsize"], glued: "", after: &[] },
    Valued { tool: "rsync", short: "BTf", flags: "vqcarRbudlLkKHpEAXogDtUNOJSnWxzPiCFy0", long: &["--exclude",
        "--exclude-from", "--include", "--include-from", "--filter", "--files-from", "--chmod",
        "--backup-dir", "--suffix", "--temp-dir", "--compare-dest", "--copy-dest", "--link-dest",
        "--block-size", "--timeout", "--contimeout", "--bwlimit", "--max-size", "--min-size", "--partial-dir",
        "--log-file", "--out-format", "--password-file", "--chown", "--usermap", "--groupmap", "--port",
        "--info", "--debug", "--max-delete", "--modify-window"], glued: "", after: &[] },
    Valued { tool: "rg", short: "ABCEfgjmMrtTe", flags: "bscliFLivnxUINz0opqSauVHw", long: &["--regexp",
        "--file", "--glob", "--iglob", "--type", "--type-not", "--max-count", "--max-depth", "--threads",
        "--replace", "--encoding", "--after-context", "--before-context", "--context", "--max-columns"],
        glued: "", after: &[] },
    // ssh's and scp's `-F`, `-I` and `-o` are read before (they may load
    // code), as is scp's `-S` (a program).
    Valued { tool: "ssh", short: "BbcDEeiJLlmOpQRWw", flags: "46AaCfGgKkMNnqsTtVvXxYy", long: &[], glued: "", after: &[] },
    Valued { tool: "scp", short: "cDiJlPX", flags: "346ABCOpqRrsTv", long: &[], glued: "", after: &[] },
    // One dash each, never clustered; `-config`, `-engine` and the like
    // pass no list before.
    Valued { tool: "openssl", short: "", flags: "", long: &["-in", "-out", "-inform", "-outform", "-passin",
        "-passout", "-inkey", "-certfile", "-CAfile", "-CApath", "-days", "-subj", "-keyout", "-newkey",
        "-extfile", "-extensions", "-signkey", "-CAkey", "-servername", "-connect", "-untrusted",
        "-pkeyopt", "-sigopt"], glued: "", after: &[] },
    // `-o` (an option that may name a program) is read before.
    Valued { tool: "restic", short: "rpeHt", flags: "qxfn", long: &["--repo", "--password-file",
        "--repository-file", "--exclude", "--iexclude", "--exclude-file", "--iexclude-file", "--files-from",
        "--host", "--tag", "--cacert", "--cache-dir", "--target", "--include", "--path", "--key-hint",
        "--tls-client-cert", "--stdin-filename", "--parent", "--compression", "--pack-size"], glued: "", after: &[] },
    Valued { tool: "borg", short: "e", flags: "", long: &["--exclude", "--exclude-from", "--pattern",
        "--patterns-from", "--compression", "--comment", "--lock-wait", "--glob-archives", "--encryption"],
        glued: "", after: &[] },
    // Maven's options are words of their own (commons-cli), never clustered.
    Valued { tool: "mvn", short: "", flags: "", long: &["-pl", "--projects", "-f", "--file", "-T", "--threads",
        "-rf", "--resume-from", "-P", "--activate-profiles", "-l", "--log-file"], glued: "", after: &[] },
    Valued { tool: "mvnw", short: "", flags: "", long: &["-pl", "--projects", "-f", "--file", "-T",
        "--threads", "-rf", "--resume-from", "-P", "--activate-profiles", "-l", "--log-file"], glued: "", after: &[] },
    Valued { tool: "gpg", short: "oruz", flags: "sbecdkKvqnia", long: &["--output", "--recipient",
        "--local-user", "--default-key", "--encrypt-to", "--log-file"], glued: "", after: &[] },
    // Go's flags, one dash or two, never clustered: the build flags and the
    // test flags of its own subcommands (`-ldflags`, whose value may name a
    // linker it runs, is read before and not listed).
    Valued { tool: "go", short: "", flags: "", long: &["-o", "-p", "-tags", "-mod", "-modfile", "-pkgdir",
        "-overlay", "-buildmode", "-installsuffix", "-run", "-bench", "-benchtime", "-count", "-cpu", "-parallel",
        "-timeout", "-coverprofile", "-covermode", "-coverpkg"],
        glued: "", after: &["build", "test", "run", "install", "vet"] },
    Valued { tool: "aria2c", short: "doi", flags: "", long: &["--dir", "--out", "--input-file"], glued: "", after: &[] },
    // `-p`'s value is optional to clap, and so are those of `--target`,
    // `--bin`, `--test`, `--example` and `--bench`, but cargo refuses each
    // without one ("requires a SPEC format value", "takes one argument")
    // before it builds: `cargo build -p --config=…` runs nothing (lines of
    // `against_shells`; by hand, each of the others too).
    Valued { tool: "cargo", short: "pFj", flags: "qvr", long: &["--package", "--features", "--jobs",
        "--target-dir", "--manifest-path", "--profile", "--exclude", "--message-format", "--color", "--target",
        "--bin", "--test", "--example", "--bench"],
        glued: "", after: &["build", "b", "check", "c", "test", "t", "run", "r", "bench", "doc", "d", "rustc", "rustdoc",
            "tree", "fix", "clean", "install", "publish", "package", "metadata", "update", "fetch"] },
];

/// `tool`'s table, if its options are read for `args` (its subcommand).
fn table(tool: &str, args: &[crate::shell::parse::Word]) -> Option<&'static Valued> {
    let valued = VALUED.iter().find(|valued| valued.tool == tool)?;
    if !valued.after.is_empty() {
        let subcommand = args.iter().find(|w| !w.text().starts_with('-')).and_then(|w| w.literal());
        if !subcommand.is_some_and(|s| valued.after.contains(&s)) {
            return None;
        }
    }
    Some(valued)
}

/// Whether `word`, a cluster of `tool`'s short options written as text up
/// to a letter that takes a value, has what follows that letter as its
/// value (`make -j$(nproc)`, `tar -xC"$D"`): what that part expands to is
/// then the value, never an option.
pub(super) fn value_glued(tool: &str, args: &[crate::shell::parse::Word], word: &str) -> bool {
    let Some(valued) = table(tool, args) else { return false };
    let Some(cluster) = word.strip_prefix('-').filter(|c| !c.starts_with('-')) else { return false };
    for letter in cluster.chars() {
        if valued.short.contains(letter) || valued.glued.contains(letter) {
            return true;
        }
        if !valued.flags.contains(letter) {
            return false;
        }
    }
    false
}

/// Whether `word`, an option of `tool`'s written out in full (no `=`),
/// leaves its value to the next word; `args` are the tool's words, which
/// tell its subcommand.
pub(super) fn value_follows(tool: &str, args: &[crate::shell::parse::Word], word: &str) -> bool {
    let Some(valued) = table(tool, args) else { return false };
    if word.contains('=') {
        return false;
    }
    if valued.long.contains(&word) {
        return true;
    }
    let Some(cluster) = word.strip_prefix('-').filter(|c| !c.starts_with('-') && !valued.short.is_empty())
    else {
        return false;
    };
    // Each letter before the one that takes the value must take none.
    let last = cluster.chars().count().saturating_sub(1);
    for (i, letter) in cluster.chars().enumerate() {
        if valued.short.contains(letter) {
            return i == last;
        }
        if !valued.flags.contains(letter) {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests;
