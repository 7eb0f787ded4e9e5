use super::{VALUED, Valued};
use crate::shell::programs::tests::hidden;
use std::process::Command;

/// The help texts a tool's table is held to: one for each subcommand it is
/// read after, or the tool's own.
fn helps(valued: &Valued) -> Option<Vec<String>> {
    let run = |program: &str, args: &[&str]| -> Option<String> {
        let out = Command::new(program).args(args).output().ok()?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
    };
    let each = |program: &str, subcommands: &[&str], help: &str| -> Option<Vec<String>> {
        subcommands.iter().map(|sub| run(program, &[sub, help])).collect()
    };
    match valued.tool {
        "curl" => Some(vec![run("curl", &["--help", "all"])?]),
        "ssh" | "scp" => Some(vec![run(valued.tool, &[])?]),
        "aria2c" => Some(vec![run("aria2c", &["--help=#all"])?]),
        "mvnw" => Some(vec![run("mvn", &["--help"])?]),
        "openssl" => {
            let commands = run("openssl", &["list", "-1", "-commands"])?;
            each("openssl", &commands.split_whitespace().collect::<Vec<_>>(), "-help")
        }
        "restic" => each(
            "restic",
            &[
                "backup",
                "restore",
                "snapshots",
                "check",
                "forget",
                "init",
                "ls",
                "find",
                "prune",
                "unlock",
                "stats",
                "dump",
                "copy",
                "diff",
                "tag",
            ],
            "--help",
        ),
        "borg" => {
            each("borg", &["create", "extract", "list", "init", "prune", "check", "info", "delete"], "--help")
        }
        "go" => Some(
            ["build", "test", "testflag"]
                .iter()
                .map(|topic| run("go", &["help", topic]))
                .collect::<Option<_>>()?,
        ),
        "cargo" => {
            let subcommands: Vec<&str> = valued.after.iter().copied().filter(|s| s.len() > 1).collect();
            each("cargo", &subcommands, "--help")
        }
        tool => Some(vec![run(tool, &["--help"])?]),
    }
}

/// How a help says an option is written: the options it names, and
/// whether it takes a value in the next word (`-f, --file=ARCHIVE`, `-in
/// infile`, `-p, --package <SPEC>`), takes one only glued (`[=X]`,
/// `[<SPEC>]`) or none.
#[derive(Debug, PartialEq)]
enum Takes {
    Value,
    Glued,
    Nothing,
}

/// How a tool's help shows its options.
#[derive(Clone, Copy)]
enum Shows {
    /// A line per option, its names and its value's placeholder before the
    /// description (after two spaces; curl's, clap's and Maven's
    /// placeholders are in angle brackets, and curl's description may
    /// follow one space).
    Lines { angled: bool },
    /// A synopsis (`usage: ssh [-46Aa] [-B bind_interface]`).
    Synopsis,
}

/// Each option line of `help` (one that opens with a dash: what comes
/// before its description) or each bracket of a synopsis (`[-46Aa]`, `[-B
/// bind_interface]`): its option names and what they take. A name is the
/// line's first word or one after a comma (pflag's `--iexclude --exclude`
/// shows `--exclude` as the placeholder).
fn specs(help: &str, shows: Shows) -> Vec<(Vec<String>, Takes)> {
    let mut found = Vec::new();
    let Shows::Lines { angled } = shows else {
        for group in brackets(help) {
            let mut words = group.split_whitespace();
            let Some(first) = words.next().filter(|w| w.starts_with('-')) else { continue };
            if words.next().is_some() {
                found.push((vec![first.to_string()], Takes::Value));
            } else {
                let letters = first[1..].chars().map(|c| format!("-{c}")).collect();
                found.push((letters, Takes::Nothing));
            }
        }
        return found;
    };
    for line in help.lines() {
        let line = line.trim_start().replace(",  ", ", ");
        if !line.starts_with('-') {
            continue;
        }
        let spec = line.split("  ").next().unwrap_or_default();
        let (mut names, mut takes, mut name_next) = (Vec::new(), Takes::Nothing, true);
        for token in spec.split_whitespace() {
            if name_next && token.starts_with('-') {
                for part in token.split(',').filter(|p| !p.is_empty()) {
                    let (name, value) = part.split_once('=').map_or((part, None), |(n, v)| (n, Some(v)));
                    names.push(name.trim_end_matches(['.', '[']).to_string());
                    match value {
                        Some(_) if name.ends_with('[') => takes = Takes::Glued,
                        Some(_) => takes = Takes::Value,
                        None => {}
                    }
                }
            } else if token.starts_with("[=")
                || (token.starts_with("[<") && token.trim_end_matches(',').ends_with(']'))
            {
                takes = Takes::Glued;
            } else if takes != Takes::Glued && (!angled || token.starts_with('<')) {
                takes = Takes::Value;
            }
            name_next = token.ends_with(',');
        }
        if spec.contains("[=") {
            takes = Takes::Glued;
        }
        found.push((names, takes));
    }
    found
}

/// The outermost brackets' insides of a synopsis (`-D [bind_address:]port`
/// of `[-D [bind_address:]port]`).
fn brackets(help: &str) -> Vec<&str> {
    let (mut found, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in help.char_indices() {
        match c {
            '[' if depth == 0 => (depth, start) = (1, i + 1),
            '[' => depth += 1,
            ']' if depth == 1 => {
                found.push(&help[start..i]);
                depth = 0;
            }
            ']' if depth > 1 => depth -= 1,
            _ => {}
        }
    }
    found
}

/// What `help` says `option` takes, wherever it names it.
fn what_it_takes<'a>(specs: &'a [(Vec<String>, Takes)], option: &str) -> Vec<&'a Takes> {
    specs.iter().filter(|(names, _)| names.iter().any(|n| n == option)).map(|(_, takes)| takes).collect()
}

/// Every option a table lists as taking a value takes one in the next
/// word wherever the installed tool's help names it (in every subcommand
/// it is read after), and every letter it lists as a flag takes none: a
/// letter or option listed wrongly would make the word after it pass
/// unread. Tools not installed are named; under `CI=true`, which installs
/// them, a missing one fails.
#[test]
fn each_table_is_held_to_the_installed_tools_help() {
    let (mut wrong, mut missing_tools) = (Vec::new(), Vec::new());
    // cargo refuses these without a value, though its help shows it optional.
    let accepted = [
        "cargo -p",
        "cargo --package",
        "cargo --target",
        "cargo --bin",
        "cargo --test",
        "cargo --example",
        "cargo --bench",
    ];
    for valued in VALUED {
        let Some(helps) = helps(valued) else {
            missing_tools.push(valued.tool);
            continue;
        };
        let shows = match valued.tool {
            "ssh" | "scp" => Shows::Synopsis,
            "curl" | "cargo" | "mvn" | "mvnw" => Shows::Lines { angled: true },
            _ => Shows::Lines { angled: false },
        };
        let specs: Vec<_> = helps.iter().flat_map(|help| specs(help, shows)).collect();
        let short = valued.short.chars().map(|c| format!("-{c}"));
        for option in short.chain(valued.long.iter().map(|o| o.to_string())) {
            let takes = what_it_takes(&specs, &option);
            let named = format!("{} {option}", valued.tool);
            if takes.is_empty()
                || (takes.iter().any(|t| **t != Takes::Value) && !accepted.contains(&named.as_str()))
            {
                wrong.push(format!("{named}: valued in the table, the help says {takes:?}"));
            }
        }
        for letter in valued.flags.chars() {
            let option = format!("-{letter}");
            let takes = what_it_takes(&specs, &option);
            if takes.is_empty() || takes.iter().any(|t| **t != Takes::Nothing) {
                wrong.push(format!("{} {option}: a flag in the table, the help says {takes:?}", valued.tool));
            }
        }
        for letter in valued.glued.chars() {
            let option = format!("-{letter}");
            let takes = what_it_takes(&specs, &option);
            if takes.is_empty() || takes.iter().any(|t| **t != Takes::Glued) {
                wrong.push(format!("{} {option}: glued in the table, the help says {takes:?}", valued.tool));
            }
        }
    }
    if !missing_tools.is_empty() {
        assert!(std::env::var_os("CI").is_none(), "CI=true and these are missing: {missing_tools:?}");
        eprintln!("SKIPPED (in part): not installed, so not held to their help: {missing_tools:?}");
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Each table is of a tool read for its options (the loop that reads
/// them asks it), and lists no option that names what it runs or loads
/// (those are read before it, or pass no list).
#[test]
fn each_table_is_of_a_tool_read_for_its_options() {
    use crate::shell::programs::tool_commands::{Tool, kind};
    for valued in VALUED {
        assert!(matches!(kind(valued.tool), Some(Tool::Options)), "{}", valued.tool);
        for (option, line) in valued.long.iter().map(|o| (o, format!("{} {o} x", valued.tool))) {
            assert!(!hidden(&line), "{line}: {option} passes no list");
            let texts = crate::shell::programs::tests::texts(&line);
            assert_eq!(texts.len(), 1, "{line}: {option} runs {texts:?}");
        }
    }
}

#[test]
fn the_help_reader_tells_a_value_from_a_flag() {
    let gnu =
        "  -f, --file=ARCHIVE         use archive file\n  -z, --gzip   filter\n      --backup[=CONTROL]  x\n";
    let read = specs(gnu, Shows::Lines { angled: false });
    assert_eq!(what_it_takes(&read, "-f"), [&Takes::Value]);
    assert_eq!(what_it_takes(&read, "--file"), [&Takes::Value]);
    assert_eq!(what_it_takes(&read, "-z"), [&Takes::Nothing]);
    assert_eq!(what_it_takes(&read, "--backup"), [&Takes::Glued]);
    let clap = "  -p, --package [<SPEC>]  Package\n  -F, --features <FEATURES>  Space\n";
    let read = specs(clap, Shows::Lines { angled: true });
    assert_eq!(what_it_takes(&read, "-p"), [&Takes::Glued]);
    assert_eq!(what_it_takes(&read, "-F"), [&Takes::Value]);
    let synopsis = "usage: ssh [-46Aa] [-B bind_interface]\n           [-D [bind_address:]port]\n";
    let read = specs(synopsis, Shows::Synopsis);
    assert_eq!(what_it_takes(&read, "-A"), [&Takes::Nothing]);
    assert_eq!(what_it_takes(&read, "-B"), [&Takes::Value]);
    assert_eq!(what_it_takes(&read, "-D"), [&Takes::Value]);
    let openssl = " -in infile              Input file\n -text                   Print\n";
    let read = specs(openssl, Shows::Lines { angled: false });
    assert_eq!(what_it_takes(&read, "-in"), [&Takes::Value]);
    assert_eq!(what_it_takes(&read, "-text"), [&Takes::Nothing]);
    let pflag = "  -e, --exclude pattern      exclude\n      --iexclude --exclude   same as --exclude\n";
    let read = specs(pflag, Shows::Lines { angled: false });
    assert_eq!(what_it_takes(&read, "--exclude"), [&Takes::Value]);
    assert_eq!(what_it_takes(&read, "--iexclude"), [&Takes::Value]);
    let curl = " -o, --output <file>        Write\n -J, --remote-header-name Use the header\n";
    let read = specs(curl, Shows::Lines { angled: true });
    assert_eq!(what_it_takes(&read, "-o"), [&Takes::Value]);
    assert_eq!(what_it_takes(&read, "-J"), [&Takes::Nothing]);
}

/// A word after an option that takes it as its value is that value, when
/// it stays one word; anywhere else, a word that may expand to an option
/// passes no list, as before.
#[test]
fn a_value_after_its_option_is_read_as_that_value() {
    for line in [
        "tar -czf \"$OUT\" dir",
        "tar -C \"$DIR\" -xzf a.tgz",
        "tar -cf a.tar --exclude \"$X\" --directory \"$D\" .",
        "tar -x -f \"$A\"",
        "rsync -a --exclude \"$X\" src/ dest/",
        "ssh -i \"$KEY\" host ls",
        "ssh -p \"$PORT\" -l \"$U\" host ls",
        "scp -i \"$KEY\" a host:b",
        "cargo build -p \"$P\"",
        "cargo test --features \"$F\" --locked",
        "cargo --locked build -j \"$JOBS\" -p \"$P\"",
        "cargo test --test \"$T\" --target \"$TRIPLE\"",
        "go build -o \"$OUT\" -tags \"$TAGS\" ./cmd",
        "go test -run \"$T\" -count 1 ./...",
        "openssl x509 -in \"$CERT\" -noout -text",
        "openssl req -new -key k.pem -subj \"$SUBJ\" -out \"$CSR\"",
        "restic -r \"$REPO\" --password-file \"$PW\" backup .",
        "wget -q -O \"$OUT\" https://x/y",
        "curl -fsSL -o \"$OUT\" -H \"$AUTH\" https://x/y",
        "curl -fsSL -o \"$OUT\" -- \"$URL\"",
        "rg -e \"$PAT\" src",
        "sort -t, -k \"$K\" -o \"$OUT\" in.csv",
        "mvn -B -pl \"$MODULE\" -am verify",
        "aria2c -d \"$DIR\" https://x/y",
        "man -L \"$LANG\" ls",
        "borg create -e \"$X\" ./repo::a .",
        // Glued to a letter that takes a value: the rest of the word is it.
        "make -j$(nproc)",
        "make -sj\"$N\" all",
        "make -C\"$DIR\" all",
        "tar -xf\"$A\"",
        "cargo build -j$(nproc)",
        "make -C \"$DIR\" -j4 all",
    ] {
        assert!(!hidden(line), "{line}");
    }
    for line in [
        // Split, or globbed: any number of words.
        "tar -czf $OUT dir",
        "tar -czf *.tgz dir",
        // Where the value is not the next word: `-cfz` gives f `z`, and
        // an option the table does not list.
        "tar -cfz \"$OUT\" dir",
        "tar -cQf \"$OUT\" dir",
        "curl -fsSL \"$URL\"",
        "sort \"$IN\"",
        "openssl dgst -sha256 \"$F\"",
        // An operand after the value may be an option still.
        "tar -cf \"$OUT\" \"$DIR\"",
        // cargo's words go to an external subcommand as they are.
        "cargo nextest run -p \"$P\"",
        "cargo +nightly build -p \"$P\"",
        // A value glued or with `=` is the option's own word.
        "rsync --exclude=x \"$SRC\" d/",
        // Before the letter: the expansion may be options.
        "make -\"$X\"j4",
        "make -Q\"$X\"",
        "make \"$TARGET\"",
    ] {
        assert!(hidden(line), "{line}");
    }
    // A value that is written out and starts with a dash is read as the
    // option it may be (getopt would take it as the value: refusing more).
    assert!(!hidden("tar -f - -C d ."));
    let texts = crate::shell::programs::tests::texts("tar -cf --to-command='rm x' d");
    assert!(texts.iter().any(|t| t == "rm x"), "{texts:?}");
}
