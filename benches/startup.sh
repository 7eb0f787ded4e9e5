#!/usr/bin/env bash
# Whole-process start-up: `tissvm run trivial.tbc --workdir DIR` (one step,
# `ASSERT TRUE`, the default sandbox profile: what a user runs), paired against
# `lua5.4 -e ''` (or /bin/true without Lua): the default release build, and on
# x86-64 Linux the statically linked one (`cargo build-static`). Runs
# alternate A B A B ..., and the ratio is taken pair by pair, so a machine
# whose speed drifts still gives a fair ratio; medians are printed with the
# spread (min, max). The CPU time (user + system, from wait4) is paired the
# same way: it depends far less on the machine's load than the wall time.
# Given another tissvm binary (e.g. a build of main), this build is also
# paired against it. Each binary runs from a copy, as `cargo install` places
# it: a binary fresh from the linker starts about 1.25x slower until its
# pages are read again (its page cache is built of small pieces; measured
# 2026-11-28, a copy beside it 0.79x). Usage: benches/startup.sh [RUNS] [BASELINE_TISSVM]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
baseline_tissvm=${2:-}
target=${CARGO_TARGET_DIR:-target}
# Each alone, as `cargo install` builds it.
cargo build -q --release --bin tissc
cargo build -q --release --bin tissvm
static=""
if [ "$(uname -sm)" = "Linux x86_64" ]; then
    cargo build-static -q --bin tissvm
    static=$target/x86_64-unknown-linux-gnu/release/tissvm
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'TASK "trivial"\nSTEP "one" {\n    ASSERT TRUE\n}\n' > "$work/trivial.tiss"
"$target/release/tissc" compile "$work/trivial.tiss" -o "$work/trivial.tbc"
mkdir "$work/ws" "$work/bin" "$work/bin/static" "$work/bin/baseline"
cp "$target/release/tissvm" "$work/bin/tissvm"
if [ -n "$static" ]; then cp "$static" "$work/bin/static/tissvm"; static=$work/bin/static/tissvm; fi
if [ -n "$baseline_tissvm" ]; then cp "$baseline_tissvm" "$work/bin/baseline/tissvm"; baseline_tissvm=$work/bin/baseline/tissvm; fi
if command -v lua5.4 >/dev/null; then baseline="lua5.4 -e ''"; else baseline=/bin/true; fi

python3 - "$runs" "$work" "$baseline" "$baseline_tissvm" "$work/bin/tissvm" $static <<'EOF'
import os, shlex, statistics, sys, time

runs, work, baseline, other = int(sys.argv[1]), sys.argv[2], shlex.split(sys.argv[3]), sys.argv[4]
builds = sys.argv[5:]
devnull = os.open(os.devnull, os.O_RDWR)

def once(argv):
    """Wall and CPU seconds of one run of argv, from spawn to reaping."""
    actions = [(os.POSIX_SPAWN_DUP2, devnull, fd) for fd in (0, 1, 2)]
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
    _, _, usage = os.wait4(pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime

def paired(a, b):
    for _ in range(5):
        once(a), once(b)
    pairs = [(once(a), once(b)) for _ in range(runs)]
    ratios = [x[0] / y[0] for x, y in pairs]
    cpu = statistics.median(x[1] / y[1] for x, y in pairs if y[1] > 0)
    med = lambda xs: statistics.median(xs) * 1000
    return med([x[0] for x, _ in pairs]), med([y[0] for _, y in pairs]), statistics.median(ratios), min(ratios), max(ratios), cpu

def show(name_a, a, name_b, b):
    ma, mb, r, lo, hi, cpu = paired(a, b)
    print(f"{name_a:<24} {ma:6.3f} ms   {name_b:<16} {mb:6.3f} ms   A/B {r:.2f} (min {lo:.2f}, max {hi:.2f})   CPU A/B {cpu:.2f}")

run = ["run", f"{work}/trivial.tbc", "--workdir", f"{work}/ws"]
names = {builds[0]: "tissvm (release)"}
if len(builds) > 1:
    names[builds[1]] = "tissvm (build-static)"
print(f"median wall time of {runs} runs each, paired; A/B = median of the per-pair ratios (wall, and CPU)")
for build in builds:
    show(names[build], [build] + run, sys.argv[3], baseline)
if len(builds) > 1:
    show(names[builds[1]], [builds[1]] + run, "release", [builds[0]] + run)
if other:
    show(names[builds[0]], [builds[0]] + run, "baseline", [other] + run)
EOF
