//! The policy's decisions, case by case: each form of a line, each list,
//! and what each refusal says.

use super::*;

pub(super) fn policy(allow: Option<&[&str]>, deny: &[&str], approve: &[&str], taint_run: TaintRun) -> Policy {
    let list = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    Policy::new(PolicyRules {
        origin: "`p.toml`".into(),
        allow: allow.map(list),
        deny: list(deny),
        approve: list(approve),
        taint_run,
    })
    .unwrap()
}

/// Each line is denied with a message that says each of `says`.
#[track_caller]
pub(super) fn denied_saying(policy: &Policy, lines: &[&str], says: &[&str]) {
    for line in lines {
        match policy.decide(line, None) {
            Verdict::Deny(m) => assert!(says.iter().all(|s| m.contains(s)), "{line}: {m}"),
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn star_matches_spaces_slashes_and_newlines() {
    let p = policy(None, &["curl *"], &[], TaintRun::Allow);
    for denied in ["curl http://x/y", "curl -s a b", "curl a\nb"] {
        assert!(matches!(p.decide(denied, None), Verdict::Deny(_)), "{denied:?}");
    }
    // Whole-command match: the pattern is anchored at both ends.
    assert_eq!(p.decide("echo curl x", None), Verdict::Run);
    assert_eq!(p.decide("curl", None), Verdict::Run);
}

#[test]
fn deny_first_then_allow_then_approve_then_taint() {
    let p = policy(Some(&["git *", "cargo *"]), &["git push --force*"], &["git push*"], TaintRun::Deny);
    denied_saying(&p, &["git push --force origin"], &["`git push --force*`", "deny"]);
    denied_saying(&p, &["ls -la"], &["matches no pattern", "\"ls *\""]);
    match p.decide("git push origin", Some(Taint::Holds)) {
        Verdict::Approve(m) => assert!(m.contains("`git push*`"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(p.decide("cargo test", None), Verdict::Run);
    match p.decide("cargo test 'x'", Some(Taint::Holds)) {
        Verdict::Deny(m) => assert!(m.contains("[taint] run = \"deny\""), "{m}"),
        other => panic!("{other:?}"),
    }
    let ask = policy(None, &[], &[], TaintRun::Approve);
    assert!(matches!(ask.decide("echo 'x'", Some(Taint::Holds)), Verdict::Approve(_)));
    assert_eq!(ask.decide("echo x", None), Verdict::Run);
    assert!(ask.rules().may_ask());
    assert!(!policy(None, &[], &[], TaintRun::Deny).rules().may_ask());
}

#[test]
fn each_kind_of_taint_says_where_the_data_came_in() {
    let p = policy(None, &[], &[], TaintRun::Deny);
    for (taint, says) in [
        (Taint::Holds, "it holds data from a model or a file"),
        (Taint::Written(7), "it runs after line 7 put data from a model or a file in the workspace"),
    ] {
        match p.decide("sh gen.sh", Some(taint)) {
            Verdict::Deny(m) => {
                assert!(m.starts_with("`sh gen.sh` is denied: ") && m.contains(says), "{m}")
            }
            other => panic!("{taint:?}: {other:?}"),
        }
    }
}

/// The pattern a refusal suggests allows the command it was refused.
#[test]
fn the_suggested_pattern_allows_the_refused_command() {
    for command in ["ls", "ls -la", "make test", "/usr/bin/make -j2", "g++ -O2 x.c"] {
        let p = policy(Some(&["true"]), &[], &[], TaintRun::Allow);
        let Verdict::Deny(m) = p.decide(command, None) else { panic!("{command}: not refused") };
        let suggested =
            m.split("e.g. \"").nth(1).and_then(|r| r.split('"').next()).expect(&m).replace("\\\"", "\"");
        let fixed = policy(Some(&[suggested.as_str()]), &[], &[], TaintRun::Allow);
        assert_eq!(fixed.decide(command, None), Verdict::Run, "{command}: {m}");
    }
}

#[test]
fn an_empty_allow_list_denies_everything_and_no_policy_allows_everything() {
    let p = policy(Some(&[]), &[], &[], TaintRun::Allow);
    assert!(matches!(p.decide("true", None), Verdict::Deny(_)));
    assert_eq!(
        Policy::new(PolicyRules::default()).unwrap().decide("rm -rf /", Some(Taint::Holds)),
        Verdict::Run
    );
}

#[test]
fn classes_alternates_and_escapes() {
    let p = policy(None, &["rm -[rf]*", "{wget,ssh} *", "echo \\*"], &[], TaintRun::Allow);
    for denied in ["rm -rf x", "rm -f x", "wget x", "ssh host", "echo *"] {
        assert!(matches!(p.decide(denied, None), Verdict::Deny(_)), "{denied}");
    }
    for allowed in ["rm x", "echo x", "sshx"] {
        assert_eq!(p.decide(allowed, None), Verdict::Run, "{allowed}");
    }
    assert!(compile_pattern("[a-").unwrap_err().contains("not a valid pattern"));
}

#[test]
fn every_simple_command_must_pass_the_allow_list() {
    let p = policy(Some(&["ls *", "echo *"]), &[], &[], TaintRun::Allow);
    assert_eq!(p.decide("ls . && echo done", None), Verdict::Run);
    let smuggled = [
        "ls . && rm -f victim",
        "ls .; rm -f victim",
        "ls . | rm -f victim",
        "ls $(rm -f victim)",
        "ls `rm -f victim`",
        "echo \"$(rm -f victim)\"",
        "ls . || (rm -f victim)",
        "if ls .; then rm -f victim; fi",
        "ls . > $(rm -f victim)",
        "X=$(rm -f victim) ls .",
    ];
    denied_saying(&p, &smuggled, &["`rm -f victim` matches no pattern"]);
}

#[test]
fn deny_sees_through_paths_wrappers_and_separators() {
    let p = policy(None, &["rm *", "sudo *"], &[], TaintRun::Allow);
    for hidden in [
        "/bin/rm x",
        "env rm x",
        "env -i A=1 rm x",
        "true; rm x",
        " rm x",
        "\\rm x",
        "r''m x",
        "X=1 rm x",
        "nice -n 5 rm x",
        "timeout 5 rm x",
        "nohup rm x",
        "exec rm x",
        "command rm x",
        "xargs rm x",
        "sh -c 'rm x'",
        "bash -c \"cd a && rm x\"",
        "find . -exec rm {} \\;",
        "(rm x)",
        "{ rm x; }",
        "for f in a; do rm $f; done",
        "echo $(rm x)",
        "sudo ls",
    ] {
        assert!(matches!(p.decide(hidden, None), Verdict::Deny(_)), "{hidden}");
    }
    assert_eq!(p.decide("echo rm x", None), Verdict::Run);
    assert_eq!(p.decide("ls rm", None), Verdict::Run);
    denied_saying(&p, &["true && /usr/bin/rm -rf y"], &["(its part `rm -rf y` matches it)"]);
}

#[test]
fn a_wrapper_shared_by_many_programs_is_matched_as_before() {
    // The programs of one `sh -c` line share its form, which is
    // matched once: a pattern on it still decides, wherever it is met.
    let p = policy(None, &["sudo sh -c ls *x4999*"], &[], TaintRun::Allow);
    let line = format!("sudo sh -c '{}'", (0..5_000).map(|i| format!("ls x{i}; ")).collect::<String>());
    denied_saying(&p, &[&line], &["(its part `sudo sh -c ls x0; ls x1;"]);
    let p = policy(None, &["env rm *"], &[], TaintRun::Allow);
    assert!(matches!(p.decide("sh -c 'ls; env rm x'", None), Verdict::Deny(_)));
    // More wrappers than are read: no allow pattern matches it.
    let p = policy(Some(&["*"]), &[], &[], TaintRun::Allow);
    let deep = format!("{}ls", "nice ".repeat(40));
    assert!(matches!(p.decide(&deep, None), Verdict::Deny(_)), "{deep}");
}

#[test]
fn a_line_that_cannot_be_read_passes_no_deny_or_approve_list() {
    // The shell runs `rm x` before it fails on the third line; 40 wrappers are
    // more than are read. Neither may slip past a deny list unread.
    let hidden = ["ls\nrm x\necho \"open", &format!("{}rm x", "nice ".repeat(40)), "ls\nrm x\nif"];
    let deny = policy(None, &["rm *"], &[], TaintRun::Allow);
    let approve = policy(None, &[], &["rm *"], TaintRun::Allow);
    denied_saying(&deny, &hidden, &["cannot be read as shell syntax"]);
    for line in hidden {
        assert!(matches!(approve.decide(line, None), Verdict::Approve(_)), "{line}");
    }
    // An approve pattern that matches the line asks instead.
    let asks = policy(None, &["rm *"], &["ls*"], TaintRun::Allow);
    match asks.decide(hidden[0], None) {
        Verdict::Approve(m) => assert!(m.contains("cannot be read") && m.contains("`ls*`"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Without deny or approve patterns there is nothing it could match.
    assert_eq!(policy(None, &[], &[], TaintRun::Allow).decide(hidden[0], None), Verdict::Run);
    assert_eq!(deny.decide("ls x", None), Verdict::Run);
}

#[test]
fn unresolvable_commands_match_no_allow_pattern() {
    let p = policy(Some(&["*"]), &[], &[], TaintRun::Allow);
    assert_eq!(p.decide("anything at all", None), Verdict::Run);
    let unknown = ["$CMD x", "eval 'ls x'", "sh -c \"$LINE\"", "`which rm` x", "/bin/r? x"];
    denied_saying(&p, &unknown, &["only running it would tell"]);
    denied_saying(&p, &["echo 'unterminated"], &["cannot be read as shell syntax"]);
    // An approve pattern that matches it asks instead.
    let asks = policy(Some(&["ls *"]), &[], &["$CMD *"], TaintRun::Allow);
    assert!(matches!(asks.decide("$CMD x", None), Verdict::Approve(_)));
    // Without an allow, deny or approve list, nothing needs resolving.
    assert_eq!(policy(None, &[], &[], TaintRun::Allow).decide("$CMD x", None), Verdict::Run);
}

#[test]
fn a_program_without_a_name_passes_no_deny_or_approve_list() {
    let deny = policy(None, &["rm *"], &[], TaintRun::Allow);
    let approve = policy(None, &[], &["rm *"], TaintRun::Allow);
    for hidden in [
        "CMD=rm; $CMD x",
        "$(echo rm) x",
        "eval 'rm x'",
        "sh -c \"$LINE\"",
        "ls && $X/rm x",
        "echo 'rm x' | sh",
        "sh <<EOF\nrm x\nEOF",
        "bash -s < script",
    ] {
        denied_saying(&deny, &[hidden], &["only running it would tell", "[commands] deny"]);
        match approve.decide(hidden, None) {
            Verdict::Approve(m) => assert!(m.contains("[commands] approve names"), "{m}"),
            other => panic!("{hidden}: {other:?}"),
        }
    }
    // An approve pattern that matches the line asks a human instead.
    let asks = policy(None, &["rm *"], &["CMD=*"], TaintRun::Allow);
    match asks.decide("CMD=rm; $CMD x", None) {
        Verdict::Approve(m) => assert!(m.contains("deny names") && m.contains("`CMD=*`"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Common lines a deny list must not refuse: `[` is a program.
    for benign in ["[ -d out ] || mkdir out", "test -f x && echo y", "\"$HOME/.cargo/bin/cargo\" build"] {
        assert_eq!(deny.decide(benign, None), Verdict::Run, "{benign}");
    }
    // A path that expands still names its program: judged by that name.
    assert_eq!(deny.decide("\"$HOME/bin/tool\" x", None), Verdict::Run);
    assert!(matches!(deny.decide("\"$HOME/bin/rm\" x", None), Verdict::Deny(_)));
    assert_eq!(deny.decide("ls x", None), Verdict::Run);
}

/// A plan may write a program and run it by its path (`cp /bin/sh ./ls`,
/// then `./ls -c 'rm x'`): an allow list matches a program named by a path
/// outside the system's program directories by that path as written, and
/// looks through no wrapper, runner or shell so named. A deny list still
/// matches it by its name.
#[test]
fn an_allow_list_matches_a_program_named_by_a_path_by_that_path() {
    let allow = policy(Some(&["ls *", "tool *", "./build/tool *", "sudo *"]), &[], &[], TaintRun::Allow);
    for line in
        ["ls -l", "/bin/ls -l", "/usr/bin/ls -l", "/usr/local/bin/ls -l", "./build/tool x", "sudo ls -l"]
    {
        assert_eq!(allow.decide(line, None), Verdict::Run, "{line}");
    }
    denied_saying(
        &allow,
        &["./ls -l", "/tmp/x/ls -l", "bin/ls -l", "sudo ./ls -l", "./ls -l | ls", "build/tool x"],
        &["matches no pattern", "is matched by that path"],
    );
    denied_saying(
        &allow,
        &["\"$HOME/bin/tool\" x", "~/bin/tool x"],
        &["names its program by a path that expands", "write the path out"],
    );
    denied_saying(
        &allow,
        &["./env ls -l", "./sudo ls -l", "./sh -c 'ls -l'", "./npx ls -l", "./timeout 5 ls -l"],
        &["runs through `./", "does not look through"],
    );
    // The hint is the pattern that allows it.
    match allow.decide("./ls -l", None) {
        Verdict::Deny(m) => assert!(m.contains("e.g. \"./ls *\""), "{m}"),
        other => panic!("{other:?}"),
    }
    let deny = policy(None, &["rm *"], &[], TaintRun::Allow);
    denied_saying(&deny, &["./rm x", "./env rm x", "/tmp/x/rm x"], &["rm *"]);
    assert_eq!(deny.decide("./ls -l", None), Verdict::Run);
    // So is a line, or a plan, that sets `PATH`: a name may then be a file
    // the plan wrote (`PATH=. ls` runs `./ls`).
    let allow = policy(Some(&["ls *", "echo *", "export *", "env *", "read *"]), &[], &[], TaintRun::Allow);
    denied_saying(
        &allow,
        &[
            "PATH=. ls -l",
            "export PATH=.:$PATH; ls -l",
            "env PATH=. ls -l",
            "PATH+=:. ls -l",
            "for PATH in .; do ls -l; done",
            "read PATH < f; ls -l",
            "echo ${PATH:=.}; ls -l",
        ],
        &["sets `PATH`", "matches no pattern"],
    );
    for line in ["echo $PATH", "echo \"${PATH}\" $MYPATH", "ls -l PATH_INFO"] {
        assert_eq!(allow.decide(line, None), Verdict::Run, "{line}");
    }
    match allow.decide_in("ls -l", None, &["PATH"]) {
        Verdict::Deny(m) => assert!(m.contains("the plan's ENV set `PATH`"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(deny.decide("PATH=. ls -l", None), Verdict::Run);
    // The plan's ENV of a program make's built-in rules run passes no list.
    match deny.decide_in("make x.o", None, &["CC"]) {
        Verdict::Deny(m) => assert!(m.contains("the plan's ENV set `CC`"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// Desktop sandboxes' and container tools' commands are matched as the
/// commands they run; where only running tells which words those are, the
/// line passes no list.
#[test]
fn deny_sees_through_sandboxes_and_container_tools() {
    let p = policy(None, &["rm *"], &[], TaintRun::Allow);
    let lines = [
        "flatpak run --command=rm org.example.App x",
        "flatpak enter org.example.App rm x",
        "flatpak-spawn --host rm x",
        "toolbox run -c box rm x",
        "distrobox-host-exec rm x",
        "buildah run c -- rm x",
        "crictl exec -it c rm x",
        "ctr run --rm img c1 rm x",
        "ctr t exec --exec-id e1 c1 rm x",
    ];
    denied_saying(&p, &lines, &["(its part `rm x` matches it)"]);
    for line in ["toolbox run ls x", "buildah run c ls", "flatpak run org.example.App"] {
        assert_eq!(p.decide(line, None), Verdict::Run, "{line}");
    }
    let unread = [
        "distrobox enter box -- ls",
        "flatpak-spawn --host --env=LD_PRELOAD=/x.so ls",
        "ctr run --runc-binary ./r img c1 ls",
    ];
    denied_saying(&p, &unread, &["only running"]);
}
