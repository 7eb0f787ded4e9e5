#!/usr/bin/env bash
# Per-RUN work of tissvm itself (issue 11), which the machine's load changes
# far less than wall time: `perf stat --no-inherit` (tissvm's own process,
# not its children) of `tissvm run` with N `RUN "/bin/true"`, less the same
# plan without RUN, divided by N: CPU time, page faults and context
# switches, under `none` and `standard`; also the CPU time of the process
# and the commands it ran together (its rusage, children included); and the
# same of a Python `subprocess.run(["/bin/true"])` loop less `import
# subprocess`, and of bare `posix_spawn`s of /bin/true. Medians of
# ROUNDS rounds, the kinds alternated. Given another tissvm binary (e.g. a
# build of main), its runs join the rounds. Needs `perf` and `python3`.
# Usage: benches/run_cpu.sh [N] [ROUNDS] [BASELINE_TISSVM]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300}
rounds=${2:-9}
baseline=${3:-}
target=${CARGO_TARGET_DIR:-target}
command -v perf >/dev/null || { echo "run_cpu.sh: needs perf (linux-tools)" >&2; exit 2; }
cargo build -q --release --bin tissvm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source benches/run_plans.sh
write_run_plans "$work" "$n"

python3 - "$n" "$rounds" "$work" "$target/release/tissvm" "$baseline" <<'PY'
import os, statistics, subprocess, sys

n, rounds, work, tissvm, baseline = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
EVENTS = ["task-clock", "page-faults", "context-switches"]
stats = f"{work}/perf.txt"

def counts(argv):
    """The process's own events (perf stat --no-inherit), and "total": its
    CPU time with every process it waited for (perf's rusage, which the
    difference of two runs rids of perf's own)."""
    perf = subprocess.Popen(["perf", "stat", "--no-inherit", "-x,", "-o", stats, "-e", ",".join(EVENTS), "--",
                             *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(perf.pid, 0)
    perf.returncode = os.waitstatus_to_exitcode(status)
    if perf.returncode != 0:
        raise SystemExit(f"run_cpu.sh: {' '.join(argv)} failed (exit {perf.returncode})")
    values = {"total": (usage.ru_utime + usage.ru_stime) * 1000}
    for line in open(stats):
        fields = line.split(",")
        if len(fields) > 2 and fields[2] in EVENTS:
            values[fields[2]] = float(fields[0])
    return values

def per_run(full, empty):
    a, b = counts(full), counts(empty)
    return {e: (a[e] - b[e]) / n for e in EVENTS + ["total"]}

def tissvm_kind(binary, profile):
    run = lambda plan: [binary, "run", f"{work}/{plan}", "--workdir", f"{work}/ws", "--non-interactive",
                        "--sandbox-profile", profile]
    return lambda: per_run(run("runs.tiss"), run("empty.tiss"))

loop = f"import subprocess\nfor _ in range({n}): subprocess.run(['/bin/true'])"
kinds = {"none": tissvm_kind(tissvm, "none"), "standard": tissvm_kind(tissvm, "standard")}
if baseline:
    kinds["none (baseline)"] = tissvm_kind(baseline, "none")
    kinds["standard (baseline)"] = tissvm_kind(baseline, "standard")
kinds["python loop"] = lambda: per_run(["python3", "-c", loop], ["python3", "-c", "import subprocess"])
bare = f"import os\nfor _ in range({n}): os.waitpid(os.posix_spawn('/bin/true', ['/bin/true'], os.environ), 0)"
kinds["bare posix_spawn"] = lambda: per_run(["python3", "-c", bare], ["python3", "-c", "import os"])
samples = {k: [] for k in kinds}
for _ in range(rounds):
    for kind, measure in kinds.items():
        samples[kind].append(measure())
print(f"per RUN (per iteration), in the process itself, median of {rounds} rounds of {n}:")
print(f"  {'':<20} {'CPU':>8} {'faults':>7} {'switches':>9}   {'CPU with the commands':>21}")
for kind, values in samples.items():
    med = {e: statistics.median(v[e] for v in values) for e in EVENTS + ["total"]}
    print(f"  {kind:<20} {med['task-clock'] * 1000:5.0f} µs {med['page-faults']:7.1f} {med['context-switches']:9.1f}"
          f"   {med['total'] * 1000:18.0f} µs")
PY
