//! RUN's fast path (book: reference/sandbox.md) through the real binary: a command without
//! shell syntax, executed directly, gives what `/bin/sh -c` gives — exit
//! code, stdout, stderr — for a program found on PATH, a missing command, a
//! file that is not executable, a failing program, one killed by a signal,
//! quoted arguments, the environment and the working directory. Each
//! command runs twice in one plan: as written (direct) and with its first
//! word in double quotes (shell syntax, so the shell runs the same simple
//! command), under each profile.

use crate::common::Fixture;

const COMMANDS: &[&str] = &[
    "ls -a /",
    "env",
    "no-such-command-xyz a b",
    "./script.sh",
    "./not-executable",
    "cat missing-file",
    "grep -c 'a b' script.sh",
    "cat 'it'\\''s'",
    "timeout -s KILL 0.1 sleep 5",
    "python3 -c 'import os,sys; print(os.getcwd()); sys.exit(3)'",
    "sub/../script.sh",
];

#[test]
fn direct_and_shell_runs_agree() {
    for profile in ["standard", "strict", "none"] {
        let f = Fixture::new();
        std::fs::write(
            f.ws().join("script.sh"),
            "#!/bin/sh\necho \"script $# $PWD\"\necho err >&2\nexit 4\n",
        )
        .unwrap();
        std::fs::set_permissions(
            f.ws().join("script.sh"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        std::fs::write(f.ws().join("not-executable"), "echo no\n").unwrap();
        std::fs::write(f.ws().join("it's"), "quoted\n").unwrap();
        std::fs::create_dir(f.ws().join("sub")).unwrap();
        let mut body = String::new();
        for (i, command) in COMMANDS.iter().enumerate() {
            // Double quotes round the first word: shell syntax, so the shell
            // runs it, yet the same simple command.
            let (first, rest) = command.split_once(' ').unwrap_or((command, ""));
            let through_shell = format!("\"{first}\" {rest}");
            let escape = |text: &str| text.replace('\\', "\\\\").replace('"', "\\\"");
            for (kind, text) in [("direct", escape(command)), ("shell", escape(&through_shell))] {
                body.push_str(&format!(
                    "    RUN \"{text}\" TIMEOUT 20s\n    WRITE \"out/{kind}-{i}\" FROM \"${{LAST_RUN.EXIT_CODE}}|${{LAST_RUN.STDOUT}}|${{LAST_RUN.STDERR}}\"\n"
                ));
            }
        }
        let run =
            f.run(&format!("TASK \"Fast\"\nSTEP \"s\" {{\n{body}}}\n"), &["--sandbox-profile", profile]);
        if profile == "strict" && run.code == Some(5) {
            tiss_test_support::skip::cannot(&format!("strict is refused here: {}", run.stderr));
            continue;
        }
        run.expect(0);
        for (i, command) in COMMANDS.iter().enumerate() {
            let read = |kind: &str| std::fs::read_to_string(f.ws().join(format!("out/{kind}-{i}"))).unwrap();
            let (mut direct, mut shell) = (read("direct"), read("shell"));
            if *command == "env" {
                // The same variables; the shell lists them in its own order.
                let sorted = |text: &str| {
                    let (code, rest) = text.split_once('|').unwrap();
                    let mut lines: Vec<&str> = rest.lines().collect();
                    lines.sort_unstable();
                    format!("{code}|{}", lines.join("\n"))
                };
                (direct, shell) = (sorted(&direct), sorted(&shell));
            }
            assert_eq!(direct, shell, "{profile}: `{command}` directly and through the shell");
        }
        let code = |i: usize| std::fs::read_to_string(f.ws().join(format!("out/direct-{i}"))).unwrap();
        assert!(code(2).starts_with("127|"), "{}", code(2));
        assert!(code(3).starts_with("4|script 0 "), "{}", code(3));
        assert!(code(4).starts_with("126|"), "{}", code(4));
        assert!(code(7).starts_with("0|quoted\n"), "{}", code(7));
        assert!(code(8).starts_with("137|"), "{}", code(8));
    }
}

#[test]
fn a_plain_command_runs_without_a_shell_and_one_with_syntax_through_it() {
    // /proc/self/stat's fourth field is the parent: tissvm itself when the
    // program was started directly, the shell otherwise.
    let f = Fixture::new();
    let plan = f.write_plan(
        "TASK \"Parent\"\nSTEP \"s\" {\n    RUN \"cat /proc/self/stat\"\n    WRITE \"direct\" FROM \"${LAST_RUN.STDOUT}\"\n    \
         RUN \"\\\"cat\\\" /proc/self/stat\"\n    WRITE \"shell\" FROM \"${LAST_RUN.STDOUT}\"\n}\n",
    );
    let child = crate::common::command()
        .args(["run", &plan, "--workdir", f.ws().to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let tissvm = child.id().to_string();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let parent = |name: &str| {
        let stat = std::fs::read_to_string(f.ws().join(name)).unwrap();
        stat.rsplit_once(") ").unwrap().1.split(' ').nth(1).unwrap().to_string()
    };
    assert_eq!(parent("direct"), tissvm, "the plain command's parent");
    assert_ne!(parent("shell"), tissvm, "the quoted command's parent is the shell");
}
