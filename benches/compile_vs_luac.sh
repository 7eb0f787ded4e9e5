#!/usr/bin/env bash
# Whole-process compile throughput and peak memory: `tissc compile` of the
# generated 50,000-line bench plan against `luac5.4` on a Lua chunk of the
# same line count and byte density (benches/lua_gen.lua), then of a plan of
# each shape of benches/plan_shapes.rs (54,000 lines) against its Lua twin,
# run in turn (A B A B ...) so each ratio compares runs made under the same
# load; a table of the ratios, a row per shape, at the end.
#
# Usage: [TISSC=PATH] benches/compile_vs_luac.sh [RUNS] [BASELINE_TISSC]
#   RUNS            paired runs per comparison (default 20), after one warm-up each
#   BASELINE_TISSC  another tissc binary (say, a build of an earlier commit):
#                   its `compile` and `check` (also of the plan with its lint
#                   warnings fixed) are then paired with this build's
# Needs luac5.4 and lua5.4 (apt-get install lua5.4) and GNU time (/usr/bin/time).
# Prints medians with [min, max]: quote the median; a wide range means a noisy machine.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
baseline=${2:-}
for tool in lua5.4 luac5.4 /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "$tool not found (apt-get install lua5.4 time)" >&2; exit 2; }
done
# tissc built alone, as `cargo install --path compiler` builds it (with the
# example's package its shared crates may get more features: another build).
cargo build -q --release --example gen_plan
cargo build -q --release --bin tissc
# TISSC=PATH measures another build of tissc (benches/pgo.sh's) against luac.
tissc=${TISSC:-target/release/tissc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/gen_plan 50000 > "$work/big.tiss"
plan_lines=$(wc -l < "$work/big.tiss")
lua5.4 benches/lua_gen.lua "$plan_lines" "$work/big.lua"
lua_lines=$(wc -l < "$work/big.lua")
echo "plan: $plan_lines lines, $(wc -c < "$work/big.tiss") bytes; lua: $lua_lines lines, $(wc -c < "$work/big.lua") bytes"
echo "$runs paired runs each; medians [min, max]"

# One run of "$@": prints its wall seconds and peak RSS in KiB.
measure() {
    local start=$EPOCHREALTIME
    /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1
    local end=$EPOCHREALTIME
    echo "$start $end $(tail -n 1 "$work/rss")" | awk '{ printf "%.6f %d\n", $2 - $1, $3 }'
}

# Prints "median [min, max]" of the numbers on stdin.
stats() {
    sort -g | awk -v fmt="$1" '{ v[NR] = $1 }
        END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf fmt " [" fmt ", " fmt "]", m, v[1], v[NR] }'
}

# compare LABEL_A LINES_A LABEL_B LINES_B: runs the commands in the arrays
# `a` and `b` in turn and prints time, lines/s and peak RSS of each, then
# the paired ratios A/B of lines/s and of peak RSS.
compare() {
    local label_a=$1 lines_a=$2 label_b=$3 lines_b=$4 pairs="$work/pairs"
    measure "${a[@]}" >/dev/null
    measure "${b[@]}" >/dev/null
    : > "$pairs"
    for _ in $(seq "$runs"); do
        echo "$(measure "${a[@]}") $(measure "${b[@]}")" >> "$pairs"
    done
    echo
    for side in a b; do
        local label=$label_a lines=$lines_a col=1
        [ "$side" = b ] && label=$label_b lines=$lines_b col=3
        printf '%-34s %s s  %s lines/s  %s MiB\n' "$label" \
            "$(awk -v c=$col '{ print $c }' "$pairs" | stats %.3f)" \
            "$(awk -v c=$col -v n="$lines" '{ print n / $c / 1000 }' "$pairs" | stats %.0fk)" \
            "$(awk -v c=$((col + 1)) '{ print $c / 1024 }' "$pairs" | stats %.1f)"
    done
    ratio_lines=$(awk -v na="$lines_a" -v nb="$lines_b" '{ print (na / $1) / (nb / $3) }' "$pairs" | stats %.2f)
    ratio_rss=$(awk '{ print $2 / $4 }' "$pairs" | stats %.2f)
    printf '%-34s %s\n' "lines/s ratio, A/B" "$ratio_lines"
    printf '%-34s %s\n' "peak RSS ratio, A/B" "$ratio_rss"
}

a=("$tissc" compile "$work/big.tiss" -o "$work/a.tbc")
b=(luac5.4 -o "$work/b.luac" "$work/big.lua")
compare "A: tissc compile" "$plan_lines" "B: luac5.4" "$lua_lines"
table="| bench plan (every construct) | $ratio_lines | $ratio_rss |"$'\n'

# The shapes people write (benches/plan_shapes.rs), each against its Lua
# twin from the same loop: the table at the end, one row per shape.
for shape in steps heredoc conditions prompts; do
    target/release/examples/gen_plan 54000 "$shape" > "$work/$shape.tiss"
    target/release/examples/gen_plan 54000 "$shape" --lua > "$work/$shape.lua"
    a=("$tissc" compile "$work/$shape.tiss" -o "$work/a.tbc")
    b=(luac5.4 -o "$work/b.luac" "$work/$shape.lua")
    compare "A: tissc compile, $shape" "$(wc -l < "$work/$shape.tiss")" "B: luac5.4, its twin" "$(wc -l < "$work/$shape.lua")"
    table+="| $shape | $ratio_lines | $ratio_rss |"$'\n'
done

a=("$tissc" compile --strip "$work/big.tiss" -o "$work/a.tbc")
compare "A: tissc compile --strip" "$plan_lines" "B: luac5.4" "$lua_lines"

if [ -n "$baseline" ]; then
    a=("$tissc" compile "$work/big.tiss" -o "$work/a.tbc")
    b=("$baseline" compile "$work/big.tiss" -o "$work/b.tbc")
    compare "A: tissc compile" "$plan_lines" "B: baseline compile" "$plan_lines"
    cmp -s "$work/a.tbc" "$work/b.tbc" && echo "(the two .tbc files are identical)" || echo "(the .tbc files DIFFER)"
    a=("$tissc" check "$work/big.tiss")
    b=("$baseline" check "$work/big.tiss")
    compare "A: tissc check" "$plan_lines" "B: baseline check" "$plan_lines"
    # The plan has 3,002 lint warnings, whose rendering is much of `check`;
    # the same plan with them fixed (a TIMEOUT on each RUN without one, the
    # unused variable renamed) measures the checks and lint themselves.
    sed -E 's/^( *RUN "(make|echo|true)[^"]*")$/\1 TIMEOUT 1m/; s/INTO review_/INTO _review_/' \
        "$work/big.tiss" > "$work/quiet.tiss"
    echo "(the plan with its warnings fixed has $("$tissc" check --error-format json "$work/quiet.tiss" 2>&1 | grep -c '"severity":"warning"') left)"
    a=("$tissc" check "$work/quiet.tiss")
    b=("$baseline" check "$work/quiet.tiss")
    compare "A: tissc check, warnings fixed" "$plan_lines" "B: baseline check" "$plan_lines"
fi
echo
echo "| shape | lines/s, tissc / luac5.4 (goal >= 1.0) | peak RSS, tissc / luac5.4 (goal <= 2.0) |"
echo "|---|---|---|"
printf '%s' "$table"
