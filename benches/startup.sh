#!/usr/bin/env bash
# Whole-process start-up: `tissvm run` of a trivial .tbc, against /bin/true,
# measured in the same run. Usage: benches/startup.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
cargo build -q --release --bin tissc --bin tissvm
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'TASK "trivial"\nSTEP "one" {\n    LOG "hi"\n}\n' > "$work/trivial.tiss"
target/release/tissc compile "$work/trivial.tiss" -o "$work/trivial.tbc"

time_loop() { # prints milliseconds per run of "$@"
    local start end
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do "$@" >/dev/null 2>&1; done
    end=$(date +%s%N)
    awk -v ns="$((end - start))" -v n="$runs" 'BEGIN { printf "%.3f\n", ns / 1000000 / n }'
}

vm=$(time_loop target/release/tissvm run "$work/trivial.tbc" --workdir "$work" --non-interactive)
true_ms=$(time_loop /bin/true)
echo "tissvm run trivial.tbc: ${vm} ms per run"
echo "/bin/true:              ${true_ms} ms per run"
