use crate::shell::programs::tests::{hidden, texts};

/// What the tools read for the programs they load or run besides a
/// command line: none where they are given none.
#[test]
fn a_tools_options_that_load_code_pass_no_list() {
    // man's `-H` and `--html` without a browser use `BROWSER`: the page is no command.
    for line in [
        "man -H ls",
        "man --html ls",
        "man -h",
        "openssl pkcs12 -provider legacy -in a.p12",
        "mvn -B verify",
        "restic -o s3.connections=4 -r s3:b backup .",
        "borg list ./repo",
        "gio info x.desktop",
        "go build -ldflags=-w -o out .",
        "go build -ldflags=-X=main.v=1 .",
        "helm upgrade --install r chart --post-renderer-args x",
        "gh pr list --state open",
        "gh config set git_protocol ssh",
        "cargo build --release --config net.git-fetch-with-cli=true",
        "cargo test --config profile.test.debug=false -- --nocapture",
        "go test -run TestX ./...",
        "cargo build --package=\"$PKG\"",
        "go test ./\"$DIR\"/...",
    ] {
        assert_eq!(texts(line), [line], "{line}");
    }
    assert!(!hidden("gh alias set co 'pr checkout'"));
    // openssl's options that load a library, and what runs a program
    // or gives a file of variables.
    for line in [
        "openssl s_client -engine ./e.so -connect h:443",
        "openssl list -provider-path . -provider e",
        "openssl list -provider ./e.so",
        "openssl list -provider \"$P\"",
        "openssl req -new -keygen_engine x -key k",
        "openssl req -config x.cnf -new -key k.pem",
        "gpg-agent --daemon rm x",
        "gpg-agent --homedir g --daemon rm x",
        "gpg --options g.conf --list-keys",
        "gpg --exec-path ./bin --list-keys",
        "gpg-connect-agent --exec rm x",
        "gpg-connect-agent -E rm x",
        "gpgsm --options g.conf --list-keys",
        "restic -r ./repo backup --stdin-from-command rm x",
        "restic -r ./repo backup --stdin-from-command -- rm x",
        "borg with-lock ./repo rm x",
        "borg --lock-wait 5 with-lock ./repo rm x",
        "borg create --content-from-command ./repo::a -- rm x",
        "borg create --paths-from-comm ./repo::a -- find .",
        "go build -ldflags '-linkmode=external -extld=rm' .",
        "go build -ldflags=all=-extar=x .",
        "go build --ldflags \"$LDF\" .",
        "curl --engine /w/e.so https://x",
        "curl -s --eng /w/e.so https://x",
        "curl -K ci.cfg https://x",
        "curl -sKci.cfg https://x",
        "curl --config ci.cfg https://x",
        "curl -fsSL \"$URL\"",
        "man -C m.conf ls",
        "man -aC m.conf ls",
        "man --config-file=m.conf ls",
        "openssl genpkey -config=x.cnf -algorithm ed25519",
        "mvn -q exec:exec -Dexec.executable=rm -Dexec.args=x",
        "./mvnw exec:exec -Dexec.executable=rm",
        "mvn exec:exec -D exec.executable=rm",
        "mvn exec:exec --define=exec.executable=rm",
        "aria2c --conf=a.conf https://x/y",
        "hg --conf hooks.pre-status=x status",
        "openssl req -engine=x -new",
        "dotenv -e .env.ci -- rm x",
        "npx env-cmd -f .env rm x",
        "dotenvx run -- rm x",
        "restic -o rclone.args='serve restic --password-command x' -r rclone:r snapshots",
        "restic -o \"$K=v\" -r r snapshots",
        "hg --config hooks.pre-status='rm x' status",
        "svn --config-option config:tunnels:x='rm x' ls svn+x://h/r",
        "lldb -o 'platform shell rm x' ./a.out",
        "aria2c --conf-path=a.conf https://x/y",
        "gh alias set t --shell 'rm x'",
        "gh alias set t '!rm x'",
        "gh alias import aliases.yml",
        "gio launch x.desktop",
        "gio \"$VERB\" x.desktop",
        "dex x.desktop",
        "gtk-launch x",
        "gh extension install .",
        "gh ext install owner/gh-x",
        "gh extension exec x",
        "gh extension upgrade --all",
        "gh extension \"$SUB\" x",
        "gh config set editor 'rm x'",
        "gh \"$SUB\" list",
        "cargo build --config 'build.rustc-wrapper=\"x\"'",
        "cargo run --config=target.x86_64-unknown-linux-gnu.runner='x'",
        "cargo test --config .cargo/ci.toml",
        "cargo build --config \"$C\"",
        "cargo --config 'env.LD_PRELOAD=\"x.so\"' run",
        "cargo build -p $PKG",
        "cargo nextest run -p \"$PKG\"",
        "go test \"$FLAGS\" ./...",
    ] {
        assert!(hidden(line), "{line}");
    }
    // Each says what it may run, and what to write instead.
    for (line, says) in [
        ("sqlite3 db '.load ./x.so'", "code it loads"),
        ("pdsh -w h", "another machine"),
        ("dotenv -- ls", "`LD_PRELOAD`"),
        ("openssl list -provider ./e.so", "`openssl -engine`"),
        ("gio launch x.desktop", "desktop file"),
        ("borg with-lock ./r ls", "`borg with-lock REPO CMD`"),
        ("gpg-agent --daemon ls", "`gpg-agent --daemon CMD`"),
        ("gh extension install .", "extension"),
        ("make 'X!=ls'", "a variable defined by `!=`"),
    ] {
        let program = crate::shell::programs::programs(line).unwrap().pop().unwrap();
        assert!(program.runs_what().0.contains(says), "{line}: {:?}", program.runs_what());
    }
}

/// socat's EXEC/SYSTEM addresses and netcat's `-e`/`-c` run commands
/// (each removed a victim: socat 1.7.4, ncat 7.93); tmux and screen run
/// commands of their own.
#[test]
fn a_socket_tools_command_is_read_as_a_command() {
    for (line, inner) in [
        ("socat - EXEC:'rm x'", &["rm x", "socat - EXEC:rm x"][..]),
        (
            "socat TCP-LISTEN:80,fork system:'ls; rm x',pty",
            &["ls", "rm x", "socat TCP-LISTEN:80,fork system:ls; rm x,pty"],
        ),
        ("socat -u OPEN:f!!EXEC:rm x", &["rm", "socat -u OPEN:f!!EXEC:rm x"]),
        ("socat - TCP:host:80", &["socat - TCP:host:80"]),
        ("ncat -l 80 -c 'rm x'", &["rm x", "ncat -l 80 -c rm x"]),
        ("ncat -lk 80 --sh-exec='rm x'", &["rm x", "ncat -lk 80 --sh-exec=rm x"]),
        ("nc -e /bin/rm host 80", &["rm", "nc -e /bin/rm host 80"]),
    ] {
        assert_eq!(texts(line), inner, "{line}");
    }
    for line in [
        "socat - \"$ADDR\"",
        "socat - EXEC:\\\"rm\\ x\\\"",
        "tmux new-session -d 'rm x'",
        "tmux send-keys 'rm x' Enter",
        "screen -dm rm x",
        "dtach -n /tmp/s rm x",
        "abduco -n s rm x",
        "sem -j 2 rm x",
        "niceload -l 4 rm x",
        "nc -c \"$L\" host 80",
    ] {
        assert!(hidden(line), "{line}: {:?}", texts(line));
    }
}

/// A program an option names, which its tool runs with words of its own
/// after it, is read with them (`"$@"`, which may be anything): under
/// `deny = ["rm *"]`, `rsync -e /bin/rm victim:x .` ran `/bin/rm victim
/// rsync --server …`. One given no words is read as written, and so is
/// ssh, to which these tools add a host and a command of their own.
#[test]
fn a_program_an_option_names_is_read_with_the_words_its_tool_adds() {
    for (line, inner) in [
        ("rsync -e /bin/rm victim:x .", "rm \"$@\""),
        ("rsync -avze /bin/rm victim:x .", "rm \"$@\""),
        ("rsync --rsh=/bin/rm victim:x .", "rm \"$@\""),
        ("rsync --rs /bin/rm victim:x .", "rm \"$@\""),
        ("tar -c --rsh-command=/bin/rm -f victim:x .", "rm \"$@\""),
        ("cpio -o --rsh-command /bin/rm -F victim:x", "rm \"$@\""),
        ("scp -S /bin/rm victim:x .", "rm \"$@\""),
        ("rg --pre /bin/rm x victim", "rm \"$@\""),
        ("hg -e /bin/rm clone ssh://victim/x", "rm \"$@\""),
        ("borg --rsh /bin/rm list ssh://victim/r", "rm \"$@\""),
        ("sort --compress-program=/bin/rm victim", "rm \"$@\""),
        ("tar -I gzip -cf a.tgz .", "gzip \"$@\""),
        ("tar -cIgzip -f a.tgz .", "gzip \"$@\""),
        ("tcpdump -z gzip -w out", "gzip \"$@\""),
        ("zip -T -TT 'unzip -t {}' a.zip f", "unzip -t {} \"$@\""),
        ("svn commit --editor-cmd nano", "nano \"$@\""),
        ("sshfs h:/ m -o reconnect,ssh_command=/bin/rm", "rm \"$@\""),
        // Given no words: as written.
        ("man -P /bin/less ls", "less"),
        ("split -l 9 --filter=gzip big", "gzip"),
        ("tar -xf a.tar --to-command=cat", "cat"),
        ("nc -e /bin/cat -l 80", "cat"),
        // ssh: as written.
        ("rsync -e 'ssh -p 22' a h:b", "ssh -p 22"),
        ("hg clone -e ssh ssh://h/r", "ssh"),
        ("sshfs h:/ m -o ssh_command='ssh -p 22'", "ssh -p 22"),
    ] {
        let found = texts(line);
        assert!(found.contains(&inner.to_string()), "{line}: {found:?}");
        assert!(!hidden(line), "{line}");
    }
}

/// Tools found running a command a deny list did not see (a sweep of
/// runners, loaders and tools with a shell escape against `deny = ["rm
/// *"]`, December 3): each passes no list where it runs one, and is read
/// as itself where it does not.
#[test]
fn runners_loaders_and_tools_with_a_shell_escape_pass_no_list() {
    for line in [
        "/lib64/ld-linux-x86-64.so.2 /bin/rm x",
        "/lib/ld-linux-aarch64.so.1 --preload ./x.so /bin/ls",
        "memusage rm x",
        "xtrace rm x",
        "echo '!rm x' | dc",
        "dc -e '!rm x'",
        "echo 'esyscmd(rm x)' | m4",
        "gnuplot -e 'system(\"rm x\")'",
        "fzf --preview 'rm x'",
        "cset proc --exec rm x",
        "ch-run img -- rm x",
        "lima rm x",
        "scl enable devtoolset-12 'rm x'",
        "qsub -b y rm x",
        "bsub rm x",
        "snap run --shell app",
        "snap run app x",
        "tox exec -e py -- rm x",
        "volta run --node 20 rm x",
        "fnm exec --using=20 rm x",
        "multipass exec vm -- rm x",
        "runc exec ctr rm x",
        "ddev exec rm x",
        "enroot start img rm x",
        "limactl shell vm rm x",
        "podman-compose run svc rm x",
        "make --eval 'x:;rm x' x",
        "make -E 'x:;rm x' x",
        "make --ev='x:;rm x' x",
        "gmake -sE 'x:;rm x' x",
        "make 'X:=$(shell rm x)'",
        "make 'X!=rm x'",
        "make X!=reboot",
        "make -- 'X!=rm x'",
        "gmake 'X=$(shell rm x)' all",
        "make -C sub '$(shell rm x)=1'",
        "make x\"$D\"",
        "make PREFIX=$HOME/.local install",
        "envchain ns rm x",
        "summon -p keyring rm x",
        "concurrently 'rm x' 'ls'",
        "devbox run rm x",
        "spack build-env zlib -- rm x",
        "nx exec -- rm x",
        "lerna exec -- rm x",
        "honcho run rm x",
        "cargo watch -s 'rm x'",
        "just --command rm x",
        "just -c rm x",
        "just --shell ./sh build",
        "pkgx +coreutils rm x",
        "blink /bin/rm x",
        "sandbox -t sandbox_t rm x",
        "landrun --rox / -- rm x",
        "gcc -wrapper /bin/rm,x a.c",
        "gcc-12 -wrapper /bin/rm,x a.c",
        "clang++-18 -fplugin=./p.so a.cc",
        "x86_64-linux-gnu-gcc-12 -B ./bin a.c",
        "aarch64-linux-gnu-g++ -specs=./s a.cc",
        "cc -fplugin=./p.so a.c",
        "clang -fpass-plugin=./p.so a.c",
        "gcc -B ./bin a.c",
        "gcc -B./bin a.c",
        "g++ -specs=./s a.cc",
        "clang -fuse-ld=./ld a.c",
        "clang --ld-path=./ld a.c",
        "gcc -Wl,-plugin,./p.so a.c",
        "gcc -Xlinker -plugin -Xlinker ./p.so a.c",
        "clang -Xclang -load -Xclang ./p.so a.c",
        "apt-get -o 'APT::Update::Pre-Invoke::=rm x' update",
        "apt -o DPkg::Post-Invoke::=x install y",
        "apt-get -oDpkg::Pre-Install-Pkgs::=x install y",
        "apt-get --option=Dir::Bin::dpkg=./x install y",
        "apt-get -o Dir::Etc=./etc update",
        "apt-get -o Acquire::http::Proxy-Auto-Detect=./x update",
        "apt-get -c ./apt.conf update",
        "apt-get -o \"$K\"=1 update",
        "dpkg --pre-invoke='rm x' -i a.deb",
        "npm run build --script-shell ./x",
        "npm test --node-options=--require=./x.js",
        "sshfs -F ./ssh_config h:/ m",
        "sshfs h:/ m -o ProxyCommand='rm x'",
        "sshfs h:/ m -o \"$OPTS\"",
        "nm --plugin ./p.so x.o",
        "nm --plug ./p.so x.o",
        "ar --plugin=./p.so rc lib.a x.o",
        "ranlib --plugin ./p.so lib.a",
        "gcc-ar-12 --plugin ./p.so rc lib.a x.o",
        "x86_64-linux-gnu-nm --plugin ./p.so x.o",
        "ld -plugin ./p.so -o x a.o",
        "ld.bfd --plugin=./p.so -o x a.o",
        "x86_64-linux-gnu-ld.gold -plugin ./p.so -o x a.o",
        "mold -plugin ./p.so -o x a.o",
        "ld.lld --load-pass-plugin=./p.so -o x a.o",
        "ar rcs lib.a *.o",
    ] {
        assert!(hidden(line) || texts(line).contains(&"rm x".to_string()), "{line}: {:?}", texts(line));
    }
    assert_eq!(texts("jenv exec rm x"), ["rm x"]);
    // pandoc runs its filter with the output format after it.
    assert_eq!(texts("pandoc --filter rm a.md")[0], "rm \"$@\"");
    assert_eq!(texts("pandoc -sF rm a.md")[0], "rm \"$@\"");
    assert_eq!(texts("install -s --strip-program=/bin/rm a b")[0], "rm \"$@\"");
    for line in [
        "snap list",
        "snap install jq",
        "tox -e py",
        "volta install node",
        "multipass list",
        "runc list",
        "make -j4 all",
        "make -C sub install",
        "make CC=clang PREFIX=/usr install",
        "make -C \"$DIR\" -f \"$MK\" all",
        "make -j$(nproc) V=1",
        "make '$(x)'",
        "just build",
        "lerna run build",
        "nx build app",
        "honcho start",
        "devbox install",
        "spack install zlib",
        "cargo build --release",
        "cc -O2 -o out src.c",
        "gcc -DBUILD=1 -fuse-ld=lld -Wl,--as-needed a.c",
        "clang++ -std=c++20 -c a.cc",
        "gcc-12 -O2 -c a.c",
        "aarch64-linux-gnu-gcc -static -o t t.c",
        "tcc -c a.c",
        "icc -wrapper x a.c",
        "apt-get -o Dpkg::Options::=--force-confold -o Acquire::Retries=3 install -y x",
        "apt-get -o Dir::Cache::Archives=./cache install x",
        "dpkg -i a.deb",
        "npm run build",
        "pandoc -o out.html a.md",
        "sshfs h:/ m -o reconnect,allow_other",
        "dc --version",
        "ar rcs lib.a x.o ./*.o",
        "nm -C --defined-only lib.a",
        "ld -o x a.o b.o",
        "ld --plugin-opt=O2 -o x a.o",
        "ranlib lib.a",
        "objdump -d x.o",
    ] {
        assert!(!hidden(line), "{line}: {:?}", texts(line));
    }
}

/// A program named `git-SUB` is git's subcommand SUB (git's exec path
/// holds them as programs) or the external command `git SUB` runs: read
/// as `git SUB`.
#[test]
fn a_dashed_git_subcommand_is_read_as_git_s() {
    assert!(texts("/usr/lib/git-core/git-rebase -x 'rm x' HEAD~1").contains(&"rm x".to_string()));
    assert!(texts("/usr/lib/git-core/git-submodule foreach rm x").contains(&"rm x".to_string()));
    assert_eq!(texts("/usr/lib/git-core/git-push origin main"), ["git push origin main"]);
    assert_eq!(texts("git-lfs push origin"), ["git lfs push origin"]);
    assert_eq!(texts("git- x"), ["git- x"]);
    assert_eq!(texts("legit-tool x"), ["legit-tool x"]);
}

/// make's built-in rules run the program a variable names, with the words
/// its flags give (`make 'CC=rm -f x #' y.o` beside a `y.c` removed `x`,
/// with no makefile, and `CC='rm -f x #' make y.o` too): read as that
/// program with those words and an operand, wherever the variable is set.
#[test]
fn a_builds_program_named_by_a_variable_is_read_as_that_program() {
    for (line, runs) in [
        ("make 'CC=rm -f x #' y.o", "rm -f x"),
        ("CC='rm -f x #' make y.o", "rm -f x"),
        ("env 'CC=rm -f x #' make y.o", "rm -f x"),
        ("make CC=clang 'CFLAGS=-O2 -g' y", "clang -O2 -g ./x"),
        ("CC=clang make y", "clang ./x"),
        ("make 'LINK.o=rm x' y", "rm x ./x"),
        ("make LDLIBS=-lm y", "cc -lm ./x"),
    ] {
        assert!(texts(line).contains(&runs.to_string()), "{line}: {:?}", texts(line));
    }
    // Words that may run code, a value that expands or holds shell syntax.
    for line in [
        "make 'CFLAGS=-wrapper /bin/rm,x' y.o",
        "CFLAGS='-wrapper /bin/rm,x' make y.o",
        "make 'ARFLAGS=--plugin ./p.so rv' 'lib.a(y.o)'",
        "make 'CFLAGS=-O2; rm x' y.o",
        "CFLAGS='-O2; rm x' make y.o",
        "make CC=\"$MYCC\" y",
        "make 'CFLAGS=-DX=\"1\"' y",
        // A glob gives the compiler the files' names: `-wrapper` among them.
        "make 'CFLAGS=*' y.o",
        "CFLAGS='-I~/x' make y.o",
    ] {
        assert!(hidden(line), "{line}: {:?}", texts(line));
    }
    assert_eq!(texts("make -j4 all"), ["make -j4 all"]);
    assert_eq!(texts("cargo build --release"), ["cargo build --release"]);
    // Each program once, with every flag given.
    assert_eq!(
        texts("make CFLAGS=-O2 CPPFLAGS=-DX CXXFLAGS=-g y"),
        ["cc -O2 -DX -g ./x", "g++ -O2 -DX -g ./x", "make CFLAGS=-O2 CPPFLAGS=-DX CXXFLAGS=-g y"]
    );
}
