#!/usr/bin/env bash
# Per-RUN cost of `tissvm run` (issue 11), all figures from one run of this
# script, alternated round by round so a machine whose speed drifts still
# gives fair ratios (medians of ROUNDS rounds):
# - tissvm: a plan of N `RUN "/bin/true"` (the fast path: no shell) under
#   `none`, `standard` and `strict`, less the same plan without RUN
#   (start-up), divided by N; and under `strict` N `RUN "true"` (a builtin:
#   `sh -c true`);
# - baselines per iteration: a Python `subprocess.run(["/bin/true"])` loop,
#   a bash `for` loop running /bin/true, and bare spawns (Python's
#   posix_spawn + waitpid) of /bin/true and of `sh -c true`.
# Ratios: totals per RUN, and overheads — what each adds to a bare spawn of
# the same program (on a VM whose cpuid traps, /bin/true's own start-up is
# most of every figure). `strict` needs root and the kernel features of
# book: reference/sandbox.md; where it is refused its lines say so.
# The same again with a program that exits at once (static, no dynamic
# loader: built here with `cc`), so that the program's own start-up no longer
# hides what each runner adds: tissvm, the Python and bash loops, against a
# bare `vfork` + `execve` + `waitpid` loop in C (overhead = per iteration − bare).
# Under `strict`, also a bubblewrap (`bwrap`) invocation giving the same
# confinement (read-only root, minimal /dev, fresh /proc, empty /tmp and /run,
# the workspace writable, every namespace, no capabilities, a new session)
# for each `sh -c true`, where Debian's `bubblewrap` is installed.
# Given another tissvm binary (e.g. a build of main), its `none` and `standard`
# runs join the rounds, for this build's ratios against it.
# Usage: benches/run_overhead.sh [N] [ROUNDS] [BASELINE_TISSVM]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300}
rounds=${2:-7}
baseline=${3:-}
target=${CARGO_TARGET_DIR:-target}
cargo build -q --release --bin tissvm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source benches/run_plans.sh
write_run_plans "$work" "$n"
# The static program and the C loop (left out where there is no `cc`).
static=""
if command -v cc >/dev/null; then
    printf 'void _start(void) { __asm__ volatile("mov $60, %%eax\\n xor %%edi, %%edi\\n syscall"); }\n' > "$work/exit0.c"
    # The cheapest spawn there is: vfork, execve, waitpid (no stack to map,
    # no handler to reset, as posix_spawn has).
    cat > "$work/spawn_loop.c" <<'C'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
int main(int argc, char **argv) {
    char *args[] = {argv[2], 0};
    for (int i = atoi(argv[1]); i > 0; i--) {
        int status;
        pid_t pid = vfork();
        if (pid == 0) {
            execve(argv[2], args, environ);
            _exit(127);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0) return 1;
    }
    return 0;
}
C
    if [ "$(uname -m)" = x86_64 ] && cc -static -nostdlib -O2 -o "$work/exit0" "$work/exit0.c" 2>/dev/null \
        && cc -O2 -o "$work/spawn_loop" "$work/spawn_loop.c"; then
        static="$work/exit0"
        run_plan "$n" "$static" > "$work/static_runs.tiss"
    fi
fi

python3 - "$n" "$rounds" "$work" "$target/release/tissvm" "$baseline" "$static" <<'PY'
import os, shutil, statistics, subprocess, sys, time

n, rounds, work, tissvm, baseline, static = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
devnull = os.open(os.devnull, os.O_RDWR)

def wall(argv):
    start = time.perf_counter()
    status = subprocess.run(argv, stdin=devnull, stdout=devnull, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    return elapsed, status

def tissvm_run(plan, profile, binary=tissvm):
    elapsed, status = wall([binary, "run", f"{work}/{plan}", "--workdir", f"{work}/ws",
                            "--non-interactive", "--sandbox-profile", profile])
    if status.returncode != 0:
        raise RuntimeError(status.stderr.decode().strip())
    return elapsed

def per_run(plan, profile, binary=tissvm):
    return (tissvm_run(plan, profile, binary) - tissvm_run("empty.tiss", profile, binary)) / n

def python_loop(program="/bin/true", capture=False):
    start = time.perf_counter()
    for _ in range(n):
        subprocess.run([program], capture_output=capture)
    return (time.perf_counter() - start) / n

def bash_loop(program="/bin/true"):
    elapsed, _ = wall(["bash", "-c", f"for ((i = 0; i < {n}; i++)); do {program}; done"])
    return elapsed / n

def c_loop():
    elapsed, status = wall([f"{work}/spawn_loop", str(n), static])
    if status.returncode != 0:
        raise RuntimeError("the C spawn loop failed")
    return elapsed / n

def bare_spawn(argv):
    start = time.perf_counter()
    for _ in range(n):
        pid = os.posix_spawn(argv[0], argv, os.environ)
        os.waitpid(pid, 0)
    return (time.perf_counter() - start) / n

try:
    tissvm_run("empty.tiss", "strict")
    strict = True
except RuntimeError as refused:
    strict = False
    print(f"strict: refused here ({refused}); its lines are left out")

kinds = {
    "none": lambda: per_run("runs.tiss", "none"),
    "standard": lambda: per_run("runs.tiss", "standard"),
    "python": python_loop,
    "bash": bash_loop,
    "bare /bin/true": lambda: bare_spawn(["/bin/true"]),
    "bare sh -c true": lambda: bare_spawn(["/bin/sh", "-c", "true"]),
}
if baseline:
    kinds["none (baseline)"] = lambda: per_run("runs.tiss", "none", baseline)
    kinds["standard (baseline)"] = lambda: per_run("runs.tiss", "standard", baseline)
if static:
    kinds["standard, static"] = lambda: per_run("static_runs.tiss", "standard")
    kinds["none, static"] = lambda: per_run("static_runs.tiss", "none")
    kinds["python, static"] = lambda: python_loop(static)
    # What RUN does: both streams captured.
    kinds["python captured, static"] = lambda: python_loop(static, True)
    kinds["bash, static"] = lambda: bash_loop(static)
    kinds["bare C, static"] = c_loop
    if baseline:
        kinds["standard, static (baseline)"] = lambda: per_run("static_runs.tiss", "standard", baseline)
if strict:
    kinds["strict"] = lambda: per_run("runs.tiss", "strict")
    kinds["strict, sh -c"] = lambda: per_run("shell_runs.tiss", "strict")
    bwrap = shutil.which("bwrap")
    if bwrap:
        ws = f"{work}/ws"
        kinds["bwrap sh -c true"] = lambda: bare_spawn([
            bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/run",
            "--bind", ws, ws, "--chdir", ws, "/bin/sh", "-c", "true"])
samples = {k: [] for k in kinds}
for _ in range(rounds):
    for kind, measure in kinds.items():
        samples[kind].append(measure())
med = {k: statistics.median(v) for k, v in samples.items()}
print(f"per-RUN (per-iteration) wall time, median of {rounds} rounds of {n}:")
for kind, value in med.items():
    print(f"  {kind:<28} {value * 1e6:8.0f} µs")
bare = med["bare /bin/true"]
over = lambda kind: med[kind] - bare
print("totals:")
print(f"  standard / python subprocess.run      {med['standard'] / med['python']:.2f}  (target ≤ 0.60)")
print(f"  standard / bash loop                  {med['standard'] / med['bash']:.2f}  (target ≤ 1.00)")
if strict:
    print(f"  strict `true` / bare `sh -c true`     {med['strict, sh -c'] / med['bare sh -c true']:.2f}  (target ≤ 2.00)")
    if "bwrap sh -c true" in med:
        print(f"  strict `true` / bwrap `sh -c true`    {med['strict, sh -c'] / med['bwrap sh -c true']:.2f}  (target ≤ 0.30)")
print("overheads over a bare spawn of /bin/true:")
for kind in ["none", "standard", "strict", "python", "bash"]:
    if kind in med:
        print(f"  {kind:<16} {over(kind) * 1e6:8.0f} µs")
print(f"  standard / python                     {over('standard') / over('python'):.2f}")
print(f"  standard / bash                       {over('standard') / over('bash'):.2f}")
if static:
    print("a program that exits at once (static), overheads over a bare C vfork loop:")
    c = med["bare C, static"]
    for kind in ["none", "standard", "python", "python captured", "bash"]:
        print(f"  {kind:<16} {(med[kind + ', static'] - c) * 1e6:8.0f} µs")
    for kind in ["python", "python captured", "bash"]:
        ratio = (med["standard, static"] - c) / (med[kind + ", static"] - c)
        print(f"  standard / {kind:<26} {ratio:.2f}")
    print(f"  per iteration: standard / python captured  {med['standard, static'] / med['python captured, static']:.2f}")
    print(f"  per iteration: standard / python      {med['standard, static'] / med['python, static']:.2f}")
if baseline:
    print("this build / the baseline, per RUN:")
    for kind in ["none", "standard"] + (["standard, static"] if static else []):
        print(f"  {kind:<16} {med[kind] / med[kind + ' (baseline)']:.2f}")
PY
