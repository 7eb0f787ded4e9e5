use crate::shell::programs::programs;
use crate::shell::programs::tests::{hidden, names, texts, wrappers};

/// A compiler cache runs the program it is given, whatever it is
/// (ccache 4.7 ran `ccache rm victim`); with options, its own.
#[test]
fn a_compiler_cache_runs_its_compiler() {
    for (line, inner) in [
        ("ccache gcc -c a.c", "gcc -c a.c"),
        ("ccache rm x", "rm x"),
        ("sccache rustc --version", "rustc --version"),
        ("distcc cc -c a.c", "cc -c a.c"),
        ("ccache -s", "ccache -s"),
        ("ccache -o max_size=5G", "ccache -o max_size=5G"),
    ] {
        assert_eq!(texts(line), [inner], "{line}");
    }
    // A configuration key whose value is a program it later runs.
    for line in [
        "ccache -o compiler=rm",
        "ccache --set-config=prefix_command=x",
        "ccache -o \"$K=v\"",
        "ccache \"$C\" x",
    ] {
        assert!(hidden(line), "{line}");
    }
    let named = crate::shell::programs::code_variables::named("CCACHE_PREFIX=rm ccache gcc -c a.c");
    assert_eq!(named, Some("CCACHE_PREFIX"));
}

#[test]
fn runners_are_looked_through_to_the_command_they_run() {
    for (line, inner) in [
        ("poetry run rm x", "rm x"),
        ("poetry -C sub run rm x", "rm x"),
        ("poetry ru rm x", "rm x"),
        ("uv run rm x", "rm x"),
        ("uv run --with requests --python 3.12 --frozen rm x", "rm x"),
        ("uv --directory d run -- rm x", "rm x"),
        ("uv run --with=requests rm x", "rm x"),
        // uvx (`uv tool run`) runs a package's command: read as that command.
        ("uvx ruff check .", "ruff check ."),
        ("uvx --from 'ruff==0.6' -p 3.12 --with x ruff check .", "ruff check ."),
        ("uv tool run -w x ruff check .", "ruff check ."),
        // pipx's `run`: the app's command (pipx 1.1's options and 1.8's).
        ("pipx run ruff check .", "ruff check ."),
        ("pipx run --spec ruff==0.6 -i https://x --pip-args=-q --no-cache ruff check .", "ruff check ."),
        ("pipx --verbose run --python 3.12 --with x ruff check .", "ruff check ."),
        // uv 0.13's and pdm 2.29's, from their help (with the real tools
        // `--no-sources-package`, `-k`, `--working-dir`, `--env` ran `touch` past them).
        ("uv run --no-sources-package zz -w x rm x", "rm x"),
        ("pdm run -k x --working-dir . --env A=1 rm x", "rm x"),
        ("pdm run --venv v rm x", "rm x"),
        ("pdm run --venv -k x rm x", "rm x"),
        ("pipenv run rm x", "rm x"),
        ("pdm run -p . rm x", "rm x"),
        ("hatch -e test run rm x", "rm x"),
        ("bundle exec rm x", "rm x"),
        ("bundle exe rm x", "rm x"),
        ("conda run -n env --cwd d rm x", "rm x"),
        ("micromamba run -n env rm x", "rm x"),
        ("npx rm x", "rm x"),
        ("npx -p some-package rm x", "rm x"),
        ("npm exec -- rm x", "rm x"),
        ("npm x rm x", "rm x"),
        ("pnpm --dir d exec rm x", "rm x"),
        ("rbenv exec rm x", "rm x"),
        ("asdf exec rm x", "rm x"),
        ("direnv exec /repo rm x", "rm x"),
        ("ip netns exec blue rm x", "rm x"),
        ("ip -n red netns exec blue rm x", "rm x"),
        ("ip vrf exec v rm x", "rm x"),
        ("ip net e blue rm x", "rm x"),
        ("ip -ne red -fa inet -lo 1 -rcv 9 -r netns exec blue rm x", "rm x"),
        ("ip --net red -s netns exec blue rm x", "rm x"),
        ("nix develop .#ci -c rm x", "rm x"),
        ("nix shell nixpkgs#hello --command rm x", "rm x"),
        ("mise exec node@20 -- rm x", "rm x"),
        ("mise x -c 'rm x'", "rm x"),
        ("capsh --drop=cap_net_raw -- -c 'rm x'", "rm x"),
        ("npx -c 'rm x'", "rm x"),
        ("npm exec --call='rm x'", "rm x"),
        ("nix-shell -p hello --run 'rm x'", "rm x"),
        ("pnpm exec --shell-mode 'rm x'", "rm x"),
        ("sudo uv run env A=1 rm x", "rm x"),
        ("bunx rm x", "rm x"),
        ("bun x -p pkg rm x", "rm x"),
        ("docker exec -it -u root -e A=1 box rm x", "rm x"),
        ("docker -H tcp://h exec box rm x", "rm x"),
        ("podman exec -w /srv box rm x", "rm x"),
        ("kubectl exec -it pod -c main -- rm x", "rm x"),
        ("kubectl -n ns exec pod -- rm x", "rm x"),
        ("kubectl exec -n ns pod rm x", "rm x"),
        ("kubectl exec --as admin --token t pod rm x", "rm x"),
        ("kubectl -n ns exec pod -c main -- rm x", "rm x"),
        ("kubectl run tmp --image=alpine --restart=Never -- rm x", "rm x"),
        ("kubectl debug node/n1 -it --image=busybox -- chroot /host rm x", "rm x"),
        ("toybox rm x", "rm x"),
        ("yarn dlx rm x", "rm x"),
        ("yarn --cwd d dlx -p pkg rm x", "rm x"),
        ("yarn exec rm x", "rm x"),
        ("yarn exec 'rm x'", "rm x"),
        ("pnpm dlx rm x", "rm x"),
        ("pnpm dlx -c 'rm x'", "rm x"),
        // pnpm 12's, yarn 1.22's and bun 1.4's, from their help (`touch` ran
        // past pnpm's `--registry`, `--store-dir`, `--loglevel`, `pn` and
        // yarn's; dlx and bunx fetch a package first, which needs the network).
        ("pnpm exec --registry http://x --store-dir /s rm x", "rm x"),
        ("pnpm --loglevel warn exec rm x", "rm x"),
        ("pn exec rm x", "rm x"),
        ("pnpx --allow-build b rm x", "rm x"),
        ("pnx -c 'rm x'", "rm x"),
        ("yarn --network-timeout 5 exec rm x", "rm x"),
        ("yarn --prod=true exec rm x", "rm x"),
        ("bunx --registry http://x rm x", "rm x"),
    ] {
        assert_eq!(texts(line), [inner], "{line}");
    }
    let through = &programs("uv run --frozen nice rm x").unwrap()[0];
    assert_eq!(wrappers(through), ["uv run --frozen nice rm x", "nice rm x"]);
    // Their other subcommands are their own.
    for line in [
        "poetry install",
        "uv pip list",
        "npm install",
        "bundle install",
        "ip link show",
        "capsh --print",
        "docker ps -a",
        "kubectl get pods",
        "kubectl run tmp --image=alpine",
        "bun install",
        "yarn install",
        "yarn add left-pad",
    ] {
        assert_eq!(texts(line), [line], "{line}");
    }
    // An option's value is no command; `npx eslint -c x` gives eslint its `-c`.
    assert_eq!(texts("npx eslint -c cfg.js ."), ["eslint -c cfg.js ."]);
    assert_eq!(texts("pnpm exec eslint -c cfg.js"), ["eslint -c cfg.js"]);
    // `yarn exec`: its first word is a line (yarn 2 on), the rest its
    // arguments (and a program's, in yarn 1).
    assert_eq!(texts("yarn exec 'tsc && rm x'"), ["tsc", "rm x"]);
    assert_eq!(texts("yarn exec tsc '&&' rm x"), ["tsc && rm x"]);
    assert_eq!(texts("yarn exec sh -c 'rm x'"), ["rm x"]);
    // A workspace's, or each workspace's, yarn command (yarn 4's foreach
    // options; yarn 1's `workspaces run` runs a script, `yarn run CMD`).
    for line in [
        "yarn workspace app exec rm x",
        "yarn workspace \"$W\" exec rm x",
        "yarn --cwd d workspace app exec 'rm x'",
        "yarn workspaces foreach exec rm x",
        "yarn workspaces foreach -Apt exec rm x",
        "yarn workspaces foreach -j 4 --from 'pkg-*' exec rm x",
        "yarn workspaces foreach -Aj4 --jobs=2 --since=main exec rm x",
    ] {
        assert_eq!(texts(line), ["rm x"], "{line}");
    }
    // `nix run`: the installable's program, by its last attribute.
    for (line, runs) in [
        ("nix run nixpkgs#busybox -- rm x", "rm x"),
        ("nix run -L --impure github:o/r#toybox rm x", "rm x"),
        ("nix run nixpkgs#busybox^out -- rm x", "rm x"),
        ("nix run nixpkgs#python3Packages.black -- --check .", "black --check ."),
        ("nix run nixpkgs#hello", "hello"),
    ] {
        assert_eq!(texts(line), [runs], "{line}");
    }
    assert_eq!(texts("nix build nixpkgs#hello"), ["nix build nixpkgs#hello"]);
    for line in [
        "nix run . -- rm x",
        "nix run",
        "nix run \"$P\" -- x",
        "nix run --set-env-var LD_PRELOAD ./x.so nixpkgs#hello",
        "nix run nixpkgs#hello --greeting hi",
        "nix run nixpkgs#hello $ARGS",
    ] {
        assert!(programs(line).is_err() || hidden(line), "{line}: {:?}", programs(line));
    }
    assert_eq!(texts("yarn workspaces run test"), ["yarn run test"]);
    assert_eq!(texts("yarn workspaces foreach -A run build"), ["yarn run build"]);
    assert_eq!(texts("yarn workspaces list"), ["yarn workspaces list"]);
    for line in [
        "yarn workspace $W exec rm x",
        "yarn workspaces foreach --since exec rm x",
        "yarn workspaces foreach --new-option exec rm x",
        "yarn workspaces foreach -Az exec rm x",
        "yarn workspaces foreach \"$OPT\" exec rm x",
    ] {
        assert!(programs(line).is_err(), "{line}: {:?}", texts(line));
    }
    // A shell that reads its input, and a word that may be the subcommand.
    for line in [
        "echo 'rm x' | nix-shell",
        "nix develop",
        "mise x node@20",
        "capsh --",
        "uv \"$SUB\" rm x",
        "ip -b f",
        "ip --ba -",
    ] {
        assert!(hidden(line), "{line}");
    }
    assert_eq!(names("capsh -- -c 'rm x; ls'"), [Some("rm".to_string()), Some("ls".to_string())]);
    // GNU parallel and hyperfine make commands of templates.
    for line in
        ["parallel rm ::: x y", "ls | parallel 'rm {}'", "hyperfine 'rm x'", "hyperfine -L f a,b 'rm {f}'"]
    {
        assert!(hidden(line), "{line}");
    }
    assert!(!hidden("parallel --version"));
    // xe, rush and pexec make commands of templates and their input too;
    // pee and mispipe run their words as shell lines, zrun its command, nq
    // and tsp queue one, expect runs what its script spawns.
    for line in [
        "xe rm",
        "ls | xe -N2 rm -f",
        "xe -s 'rm \"$1\"'",
        "xe -a rm -- x y",
        "rush 'rm {}'",
        "ls | rush -j 4 rm",
        "pexec -r a b -e F -c 'rm $F'",
        "pee 'rm x' cat",
        "mispipe 'rm x' cat",
        "zrun rm x.gz",
        "nq rm x",
        "tsp rm x",
        "expect -c 'spawn rm x; expect eof'",
        "schedtool -B -e rm x",
        "run-parts ./hooks",
        "daemon -- rm x",
        "pueue add -- rm x",
        "zellij run -- rm x",
        "byobu new-session -d 'rm x'",
        "hwloc-bind core:0 -- rm x",
        "retry -t 3 -- rm x",
        "caffeinate rm x",
    ] {
        assert!(hidden(line), "{line}");
    }
}

/// A runner's option that may abbreviate one that takes a value leaves
/// the command unknown (npm takes `--pack` as `--package`), unless no
/// subcommand that runs one can follow.
#[test]
fn a_runners_option_that_may_be_abbreviated_leaves_the_command_unknown() {
    for line in ["yarn --prod true exec rm x", "yarn --emoji exec rm x"] {
        let why = programs(line).expect_err(line);
        assert!(why.contains("whether it takes the next word as its value"), "{line}: {why}");
    }
    for line in ["uv run --wit requests rm x", "conda run --na e rm x"] {
        let why = programs(line).expect_err(line);
        assert!(why.contains("abbreviated"), "{line}: {why}");
    }
    for line in ["npx --pack p rm x", "npm --pref d exec rm x"] {
        let why = programs(line).expect_err(line);
        assert!(
            why.contains("write `--pref=VALUE`") || why.contains("write `--pack=VALUE`"),
            "{line}: {why}"
        );
    }
    assert_eq!(texts("npm --pref d install"), ["npm --pref d install"]);
    // A value or an argument the shell may split (`W='x rm'` runs `rm ls`).
    for line in [
        "uv run --with $W ls",
        "npx --registry $R ls",
        "perf stat -e $E ls",
        "perf --debug $D stat ls",
        "ip -n $NS netns exec b ls",
        "ip netns exec $NS ls",
        "direnv exec $D ls",
    ] {
        let why = programs(line).expect_err(line);
        assert!(why.contains("the shell may make more than one word of"), "{line}: {why}");
    }
    assert_eq!(texts("uv run --with \"$W\" ls"), ["ls"]);
    assert_eq!(texts("npx --package p rm x"), ["rm x"]);
}

/// npm's options as nopt reads them (npm 11's: the real npm and npx ran
/// `touch` for `rm` in most lines, the rest from npx-cli.js and nopt's
/// source): by the type npm gives each; an
/// option not known to take a value alike in every release from npm 7
/// leaves the command unknown where the next word may be its value.
#[test]
fn npm_options_are_read_as_nopt_reads_them() {
    for (line, inner) in [
        ("npx --registry http://x rm x", "rm x"),
        ("npm exec --cache /tmp rm x", "rm x"),
        ("npm --userconfig /dev/null exec rm x", "rm x"),
        ("npm exec -p rm x", "rm x"),
        ("npx -p pkg rm x", "rm x"),
        ("npm exec --yes true rm x", "rm x"),
        ("npx --yes true rm x", "true rm x"),
        ("npx --no-yes rm x", "rm x"),
        ("npx --no-yes true rm x", "rm x"),
        ("npm exec --no-registry rm x", "rm x"),
        ("npx -n 5 rm x", "rm x"),
        ("npx -q rm x", "rm x"),
        ("npm exec -s rm x", "rm x"),
        ("npx -d rm x", "rm x"),
        ("npm exec --loglevel warn rm x", "rm x"),
        ("npx --foo=1 rm x", "rm x"),
        ("npx --foo -- rm x", "rm x"),
        ("npm x -y rm x", "rm x"),
    ] {
        assert_eq!(texts(line), [inner], "{line}");
    }
    for line in ["npx --foo rm x", "npm exec --registry -x rm x", "npm exec --yes null rm x", "npx -gy rm x"]
    {
        let why = programs(line).expect_err(line);
        assert!(why.contains("or put `--` before the command"), "{line}: {why}");
    }
}

/// perf 6.1's: each line with `touch` for `rm` ran touch under the real
/// perf as root, but ftrace's (no tracefs to reset in this machine: their
/// table from `perf ftrace -X` alone, "requires a value").
#[test]
fn perf_runs_the_command_after_its_options() {
    for (line, inner) in [
        ("perf stat rm x", "rm x"),
        ("perf stat -r 3 -e task-clock -x, rm x", "rm x"),
        ("perf stat -o o.txt --repeat=2 -- rm x", "rm x"),
        ("perf stat rec -o s.data rm x", "rm x"),
        ("perf stat record rm x", "rm x"),
        ("perf record -o p.data -c 1000 -g rm x", "rm x"),
        ("perf record -o p.data -F 99 -m 8 rm x", "rm x"),
        // Values only glued: `-z`, `-I`, `--aio` alone are flags.
        ("perf record -o p.data -z -I --aio rm x", "rm x"),
        ("perf trace -F all rm x", "rm x"),
        ("perf trace record -o t.data -c 1 rm x", "rm x"),
        ("perf trace -v record x", "record x"),
        ("perf ftrace -t function_graph rm x", "rm x"),
        ("perf ftrace latency -T vfs_read rm x", "rm x"),
        ("perf ftrace -D 1 -G vfs_read rm x", "rm x"),
        ("perf --buildid-dir b --no-pager stat rm x", "rm x"),
        // perf's own: they run no command.
        ("perf report -i p.data", "perf report -i p.data"),
        ("perf stat report -i s.data", "perf stat report -i s.data"),
    ] {
        assert_eq!(texts(line), [inner], "{line}");
    }
    // `--pre` and `--post` are lines perf runs through a shell.
    assert_eq!(texts("perf stat --pre 'rm x' --post='rm y' true"), ["rm x", "rm y", "true"]);
    // Without a command, perf counts the whole system: its own.
    assert_eq!(texts("perf stat --pre 'rm x'"), ["rm x", "perf stat --pre rm x"]);
    for (line, why) in [
        // Not read: `perf lock record`, `perf sched record`, `perf kmem
        // record` each ran touch.
        ("perf lock contention rm x", "perf lock"),
        ("perf lock record -o l.data rm x", "perf lock"),
        ("perf mem record rm x", "perf mem"),
        ("perf sched rec rm x", "perf sched"),
        ("perf stat --re 2 rm x", "abbreviat"),
        ("perf record --clang-path /x -e a.c true", "clang"),
        ("perf trace record --clang-opt=-x -e a.c true", "clang"),
    ] {
        let error = programs(line).expect_err(line);
        assert!(error.contains(why), "{line}: {error}");
    }
    assert!(hidden("perf stat \"$O\" rm x"));
    assert!(hidden("perf stat --pre \"$L\" true"));
}

/// Open MPI 4.1's mpirun ran each of these lines' `rm x` (as `touch`, as
/// root with `--allow-run-as-root`); `--mca orte_fork_agent echo` ran
/// `echo PROGRAM`, as `OMPI_MCA_orte_fork_agent=echo` did.
#[test]
fn mpirun_runs_each_context_s_program_after_its_options() {
    for (line, inner) in [
        ("mpirun -np 4 rm x", vec!["rm x"]),
        ("mpirun --allow-run-as-root -np 1 --host localhost rm x", vec!["rm x"]),
        ("mpiexec -n 2 -- rm x", vec!["rm x"]),
        ("orterun -N 1 --map-by core --bind-to none rm x", vec!["rm x"]),
        ("mpirun --mca btl self,vader -mca coll_tuned_use_dynamic_rules 1 -np 2 rm x", vec!["rm x"]),
        ("mpirun -x OMP_NUM_THREADS=4 -np 2 rm x", vec!["rm x"]),
        ("mpirun -np 1 ls y : -np 1 rm x", vec!["rm x", "ls y"]),
        ("mpirun -np \"$N\" rm x", vec!["rm x"]),
        // Options after the program are the program's.
        ("mpirun -np 1 rm -np x", vec!["rm -np x"]),
        ("mpirun --version", vec!["mpirun --version"]),
    ] {
        assert_eq!(texts(line), inner, "{line}");
    }
    for line in [
        // What only running tells: an option the table does not know (or
        // MPICH's), a value that may split, a file of more options or
        // programs, a debugger or xterm it starts, the daemon it launches.
        "mpirun --foo -np 1 ls",
        "mpiexec -genv A 1 -n 1 ls",
        "mpirun -np $N ls",
        "mpirun \"$OPTS\" ls",
        "mpirun --app appfile",
        "mpirun -tune opts.conf ls",
        "mpirun -am params.conf ls",
        "mpirun --debug -np 1 ls",
        "mpirun --xterm 0 -np 1 ls",
        "mpirun --launch-agent ./orted -np 1 ls",
        "mpirun --prefix ./ompi -np 1 ls",
        "mpirun --mca orte_fork_agent rm -np 1 ls",
        "mpirun --mca plm_rsh_agent 'sh -c x' -np 1 ls",
        "mpirun -x LD_PRELOAD=./a.so -np 1 ls",
        "mpirun -x OMPI_MCA_orte_fork_agent=rm -np 1 ls",
    ] {
        assert!(hidden(line), "{line}: {:?}", programs(line));
    }
    let named = crate::shell::programs::code_variables::named("OMPI_MCA_orte_fork_agent=rm mpirun -np 1 ls");
    assert_eq!(named, Some("OMPI_MCA_orte_fork_agent"));
}

/// proot, fakechroot and schroot run their command in another root (proot
/// 5.4's, fakechroot 2.20's and schroot 1.6's options, from their sources),
/// and a shell that runs its input without one.
#[test]
fn another_roots_command_is_read_after_its_options() {
    for line in [
        "proot -r ./rootfs -b /dev -w / rm x",
        "proot --rootfs=./rootfs -0 rm x",
        "fakechroot -s rm x",
        "fakechroot -- rm x",
        "schroot -c sid -u root -- rm x",
        "schroot -c sid rm x",
    ] {
        assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
    }
    for line in [
        // A shell that runs its input.
        "proot -r ./rootfs",
        "fakechroot",
        "schroot -c sid",
        // A program besides the command, or code (fakechroot evaluates `-l`).
        "proot -q qemu-arm -r ./rootfs ls",
        "proot -P ext.py ls",
        "fakechroot -l ./x.so ls",
        "fakechroot -d ./loader ls",
        "fakechroot -c ./conf -e chroot ls",
        // schroot reads options among the command's words (boost permutes).
        "schroot -c sid rm -f x",
    ] {
        crate::shell::programs::tests::passes_no_list(line);
    }
    // fakechroot's substitutes for commands, by the environment.
    let named =
        crate::shell::programs::code_variables::named("FAKECHROOT_CMD_SUBST=/bin/ls=./x fakechroot ls");
    assert_eq!(named, Some("FAKECHROOT_CMD_SUBST"));
}

/// Wrappers read by their options' tables (each from its source): another
/// user's (sudo-rs, please), another profile's or root's (aa-exec,
/// arch-chroot), a container's init (catatonit), a session's (dbus-launch),
/// and those that only watch or shape their command (rlwrap, trickle,
/// timelimit, tsocks, torify).
#[test]
fn more_wrappers_are_looked_through() {
    for line in [
        "sudo-rs -u root rm x",
        "sudo-rs A=1 -u root rm x",
        "please -u root -r 'tidy up' rm x",
        "aa-exec -p unconfined -- rm x",
        "catatonit -- rm x",
        "arch-chroot -u user /mnt rm x",
        "dbus-launch --exit-with-session rm x",
        "rlwrap -H hist -s 100 rm x",
        "trickle -d 100 -- rm x",
        "timelimit -t 5 -T 2 rm x",
        "tsocks rm x",
        "torify -u user rm x",
        "heaptrack -o out rm x",
        "systemd-socket-activate -l 8080 -E A=1 rm x",
        "minijail0 -u nobody -g nogroup -- /bin/rm x",
        "oc exec pod -c main -- rm x",
        "oc rsh pod rm x",
        "oc rsh -c main --shell /bin/bash pod rm x",
    ] {
        assert_eq!(texts(line).last().map(String::as_str), Some("rm x"), "{line}");
    }
    for line in [
        // A filter program besides the command; options among the
        // command's words (catatonit's and trickle's getopt permutes).
        "rlwrap -z ./filter ls",
        "catatonit rm -f x",
        "trickle -d 100 rm -f x",
        // A shell that runs its input.
        "arch-chroot /mnt",
        "sudo-rs -s",
        "oc rsh pod",
        // A variable that steers the command, a library or a file of
        // settings minijail0 takes.
        "systemd-socket-activate -l 8080 -E LD_PRELOAD=/x.so ls",
        "minijail0 --env-add LD_PRELOAD=/x.so /bin/ls",
        "minijail0 --preload-library=./x.so -- /bin/ls",
        "minijail0 --config jail.conf -- /bin/ls",
    ] {
        crate::shell::programs::tests::passes_no_list(line);
    }
}

/// The Python a runner starts is a program it runs: `pipx run --python
/// canary cowsay` ran `canary -m venv …` (pipx 1.1); uv and pipenv start the
/// interpreter they are given too. A version is looked up by the runner.
#[test]
fn the_python_a_runner_starts_is_a_program_it_runs() {
    for (line, expected) in [
        ("pipx run --python canary cowsay", &["canary", "cowsay"][..]),
        ("pipx run --python=./bin/py cowsay x", &["py", "cowsay x"]),
        ("uvx -p /opt/py ruff check .", &["py", "ruff check ."]),
        ("uvx -qp/opt/py ruff", &["py", "ruff"]),
        ("uvx -p3.12 ruff", &["ruff"]),
        ("uv run --python py3 --with x rm y", &["py3", "rm y"]),
        ("uv run -p 3.12 rm y", &["rm y"]),
        ("uv run --python '>=3.11' rm y", &["rm y"]),
        ("pipenv --python /usr/bin/python3.11 run rm y", &["python3.11", "rm y"]),
        // A valued option's value is no option of its own.
        ("uvx --with --python ruff", &["ruff"]),
        ("uvx -w -p ruff", &["ruff"]),
    ] {
        assert_eq!(texts(line), expected, "{line}");
    }
    // A value that expands names no program.
    assert!(hidden("pipx run --python \"$PY\" cowsay"));
    assert!(hidden("uvx --python=\"$PY\" ruff"));
    assert!(hidden("uvx -p\"$PY\" ruff"));
}
