#!/usr/bin/env bash
# How many of a fixed set of goals `tissc generate` turns into plans that
# compile, with a real local model (SmolLM2-135M-Instruct on llama.cpp,
# tools/local-llm-server), with and without the TissLang grammar: on the first
# attempt, and after up to MAX_REPAIRS repairs; and how many of those have a
# STEP holding a statement (a plan of a TASK and comments compiles, and does
# nothing), read from `tissc parse --emit ast-json`. Each goal's
# JSON result is kept in OUT_DIR; the last lines are the summary. MODES (an
# environment variable, default "grammar no-grammar") picks the runs.
#   benches/generate_rate.sh [GOALS] [MAX_TOKENS] [MAX_REPAIRS] [TISSC] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
GOALS=${1:-benches/generate_goals.txt}
MAX_TOKENS=${2:-384}
MAX_REPAIRS=${3:-3}
TISSC=${4:-target/debug/tissc}
OUT=${5:-$(mktemp -d)}
MODES=${MODES:-grammar no-grammar}
mkdir -p "$OUT"
pidfile=$(mktemp)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
trap 'bash tools/local-llm-server stop "$pidfile"' EXIT
url=$(bash tools/local-llm-server start "$port" "$pidfile")
echo "model: SmolLM2-135M-Instruct (Q4_1) on llama.cpp at $url; --max-tokens $MAX_TOKENS --max-repairs $MAX_REPAIRS"

for mode in $MODES; do
    flag=()
    [ "$mode" = no-grammar ] && flag=(--no-grammar)
    first=0 repaired=0 stepped=0 total=0
    n=0
    while IFS= read -r goal; do
        case "$goal" in ''|'#'*) continue ;; esac
        n=$((n + 1))
        result="$OUT/$mode-$n.json"
        start=$(date +%s)
        "$TISSC" generate "$goal" --provider completion --template chatml --base-url "$url" \
            --max-tokens "$MAX_TOKENS" --max-repairs "$MAX_REPAIRS" "${flag[@]}" \
            --output-format json >"$result" 2>"$OUT/$mode-$n.stderr" || true
        read -r status attempts first_errors < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
a = r["attempts"]
print(r["status"], len(a), len(a[0]["errors"]) if a else -1)' "$result")
        has_step=no
        if [ "$status" = compiled ]; then
            python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["plan"], end="")' "$result" >"$OUT/$mode-$n.tiss"
            "$TISSC" parse --emit ast-json "$OUT/$mode-$n.tiss" | python3 -c '
import json, sys
items = json.load(sys.stdin)
sys.exit(0 if any(i["type"] == "STEP" and i["body"]["commands"] for i in items) else 1)' && has_step=yes
        fi
        total=$((total + 1))
        [ "$status" = compiled ] && repaired=$((repaired + 1))
        [ "$status" = compiled ] && [ "$attempts" = 1 ] && first=$((first + 1))
        [ "$has_step" = yes ] && stepped=$((stepped + 1))
        printf '%-10s goal %2d: %-14s after %d attempt(s), first attempt %s errors, a STEP with statements: %s, %ss\n' \
            "$mode" "$n" "$status" "$attempts" "$first_errors" "$has_step" "$(( $(date +%s) - start ))"
    done < "$GOALS"
    echo "$mode: $first/$total compile on the first attempt, $repaired/$total after up to $MAX_REPAIRS repairs ($stepped with a STEP holding statements)"
done
echo "results: $OUT"
