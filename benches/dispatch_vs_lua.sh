#!/usr/bin/env bash
# Dispatch against Lua 5.4 (issue 31, item 4): the time per VM instruction of
# the dispatch bench plan (`plan_gen::generate_pure(2000)`, criterion's
# "dispatch/pure VM plan": Machine::run alone, no compile, no effects) and
# the time per Lua VM instruction of its twin (benches/dispatch_twin.lua:
# the loaded chunk's runs alone, instructions counted with a count hook),
# and the ratio of the two; also the ratio of the whole runs, the same work
# in each language. Needs lua5.4. Usage: benches/dispatch_vs_lua.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-300}
target=${CARGO_TARGET_DIR:-target}
command -v lua5.4 >/dev/null || { echo "dispatch_vs_lua.sh: needs lua5.4" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo bench -q --bench vm -- "dispatch/pure VM plan$" 2>&1 | tee "$log" | grep -E "instructions per run|time:"
tiss_instructions=$(sed -n 's/^dispatch plan: \([0-9]*\) instructions per run$/\1/p' "$log")
tiss_ns=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["median"]["point_estimate"])' \
    "$target/criterion/dispatch/pure VM plan/new/estimates.json")
lua=$(lua5.4 benches/dispatch_twin.lua 2000 "$runs")
echo "$lua"
python3 - "$tiss_instructions" "$tiss_ns" "$lua" <<'PY'
import sys
tiss_instr, tiss_ns = int(sys.argv[1]), float(sys.argv[2])
lua = dict(line.split() for line in sys.argv[3].splitlines())
lua_instr, lua_ns = int(lua["instructions"]), float(lua["seconds_per_run"]) * 1e9
per_tiss, per_lua = tiss_ns / tiss_instr, lua_ns / lua_instr
print(f"tissvm {tiss_instr} instructions, {tiss_ns / 1000:.1f} us per run, {per_tiss:.2f} ns per instruction")
print(f"lua5.4 {lua_instr} instructions, {lua_ns / 1000:.1f} us per run, {per_lua:.2f} ns per instruction")
print(f"per instruction: tissvm / lua {per_tiss / per_lua:.2f}x (goal <= 1.5x); the same work: {tiss_ns / lua_ns:.2f}x")
PY
