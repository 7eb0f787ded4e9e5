#!/usr/bin/env bash
# Many plans at once (issue 13), all figures from one run of this script:
# - 8 plans of `RUN "sleep 1"`: wall time of `tissvm run -j 4` over `-j 1`
#   (goal ≤ 0.30);
# - 1,000 trivial plans: `tissvm run -j 2` against the same plans run by a
#   shell loop, `xargs -P 2` of one `tissvm run` each; throughput ratio
#   (xargs' time over ours, goal ≥ 1.0);
# - threads against children: the same 1,000 trivial plans (-j 2) and the
#   8 sleep plans (-j 4) run on N threads of one process through the VM
#   library (benches/many_threads.rs: each plan its own Machine, host,
#   sandbox and workspace, its JSON report on a file), against the
#   `tissvm run -j N` children of the same round; wall-time ratio;
# - the parent's peak RSS (VmHWM of the `tissvm run` process alone, not its
#   children) for 100 and for 1,000 plans: flat means it does not grow
#   with the number of plans.
# Each timing is the median of ROUNDS rounds, alternated.
# Usage: benches/many_plans.sh [ROUNDS]   (TISSVM=path: measure that binary, else a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
target=${CARGO_TARGET_DIR:-target}
if [ -z "${TISSVM:-}" ]; then
    cargo build -q --release --bin tissvm
    TISSVM=$target/release/tissvm
fi
cargo build -q --release --example many_threads
THREADS=$target/release/examples/many_threads
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sleep" "$work/trivial"
for i in $(seq 1 8); do
    printf 'TASK "sleep %s"\n\nSTEP "s" {\n    RUN "sleep 1"\n}\n' "$i" > "$work/sleep/p$i.tiss"
done
for i in $(seq 1 1000); do
    printf 'TASK "trivial %s"\n\nSTEP "s" {\n    LOG "plan %s"\n}\n' "$i" "$i" > "$work/trivial/p$(printf %04d "$i").tiss"
done

python3 - "$rounds" "$work" "$TISSVM" "$THREADS" <<'PY'
import os, shutil, statistics, subprocess, sys, time

rounds, work, tissvm, threaded = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
devnull = os.open(os.devnull, os.O_RDWR)

def timed(argv, cwd=None, shell=False):
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, shell=shell, stdin=devnull, stdout=devnull, stderr=subprocess.PIPE)
    if done.returncode != 0:
        raise RuntimeError(f"{argv}: exit {done.returncode}: {done.stderr.decode()[-2000:]}")
    return time.perf_counter() - start

def fresh(name):
    path = f"{work}/{name}"
    shutil.rmtree(path, ignore_errors=True)
    os.mkdir(path)
    return path

def many(plans, jobs):
    return timed([tissvm, "run", f"{work}/{plans}", "-j", str(jobs), "--workdir", fresh("ws")])

def xargs(plans, jobs):
    ws = fresh("ws")
    return timed(f"ls {work}/{plans}/*.tiss | xargs -P {jobs} -I{{}} {tissvm} run {{}} --workdir {ws} >/dev/null",
                 shell=True)

def threads(plans, jobs):
    return timed([threaded, f"{work}/{plans}", str(jobs), fresh("ws")])

def peak_rss_kib(count):
    plans = fresh(f"rss{count}")
    for i in range(count):
        shutil.copy(f"{work}/trivial/p{i + 1:04d}.tiss", f"{plans}/p{i:04d}.tiss")
    child = subprocess.Popen([tissvm, "run", plans, "-j", "2", "--workdir", fresh("ws")],
                             stdin=devnull, stdout=devnull, stderr=devnull)
    peak = 0
    while child.poll() is None:
        try:
            with open(f"/proc/{child.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.005)
    return peak

sleep_j4, sleep_j1, ours, theirs, sleep_t4, trivial_t2 = [], [], [], [], [], []
for _ in range(rounds):
    sleep_j4.append(many("sleep", 4))
    sleep_t4.append(threads("sleep", 4))
    sleep_j1.append(many("sleep", 1))
    ours.append(many("trivial", 2))
    trivial_t2.append(threads("trivial", 2))
    theirs.append(xargs("trivial", 2))
med = statistics.median
print(f"8 x RUN \"sleep 1\":   -j 4 {med(sleep_j4):.2f}s, -j 1 {med(sleep_j1):.2f}s: "
      f"ratio {med(sleep_j4) / med(sleep_j1):.2f} (goal <= 0.30)")
print(f"1,000 trivial plans: tissvm run -j 2 {med(ours):.2f}s, xargs -P 2 tissvm run {med(theirs):.2f}s: "
      f"throughput ratio {med(theirs) / med(ours):.2f} (goal >= 1.0)")
print(f"threads / children, wall: 1,000 trivial plans -j 2: {med(trivial_t2):.2f}s / {med(ours):.2f}s = "
      f"{med(trivial_t2) / med(ours):.2f}; 8 x RUN \"sleep 1\" -j 4: {med(sleep_t4):.2f}s / {med(sleep_j4):.2f}s = "
      f"{med(sleep_t4) / med(sleep_j4):.2f}")
small, large = peak_rss_kib(100), peak_rss_kib(1000)
print(f"parent peak RSS: 100 plans {small} KiB, 1,000 plans {large} KiB: ratio {large / small:.2f} (flat: ~1.0)")
PY
