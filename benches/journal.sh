#!/usr/bin/env bash
# The journal's figures (book: cookbook/journal.md, issue 27), all from one run of this
# script, alternated round by round so a drifting machine still gives fair
# ratios (medians of ROUNDS rounds):
# - replay speed: a plan of N `RUN "sleep 0.01"` run live with --journal,
#   against `tissvm replay` of that journal (goal: replay ≥ 20× faster);
# - journaling cost: N `RUN "true"` with and without --journal (goal ≤ 1.15×);
# - memory: `tissvm replay` of a journal holding MB megabytes of recorded
#   output (RUNs of 1 MiB on each stream, what a RUN keeps of its output),
#   its peak RSS (GNU time): the journal is streamed, never loaded whole.
# Usage: benches/journal.sh [N] [ROUNDS] [MB]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300}
rounds=${2:-5}
mb=${3:-1024}
target=${CARGO_TARGET_DIR:-target}
cargo build -q --release --bin tissvm
vm="$PWD/$target/release/tissvm"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ws"
plan() { # NAME COMMAND COUNT
    { echo "TASK \"$1\""; echo 'STEP "s" {'; for _ in $(seq "$3"); do echo "    RUN \"$2\" TIMEOUT 30s"; done; echo '}'; } > "$work/$1.tiss"
}
plan sleeps "sleep 0.01" "$n"
plan trues "true" "$n"
now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > "$work/live"; : > "$work/replay"; : > "$work/plain"; : > "$work/journaled"
for r in $(seq "$rounds"); do
    rm -f "$work/s.journal" "$work/t.journal"
    t0=$(now); "$vm" run "$work/sleeps.tiss" --workdir "$work/ws" --journal "$work/s.journal" >/dev/null; t1=$(now)
    "$vm" replay "$work/s.journal" >/dev/null; t2=$(now)
    echo $((t1 - t0)) >> "$work/live"; echo $((t2 - t1)) >> "$work/replay"
    # Alternated: which goes first changes round by round.
    for order in $(if [ $((r % 2)) = 0 ]; then echo plain journaled; else echo journaled plain; fi); do
        rm -f "$work/t.journal"
        extra=(); [ "$order" = journaled ] && extra=(--journal "$work/t.journal")
        t0=$(now); "$vm" run "$work/trues.tiss" --workdir "$work/ws" "${extra[@]}" >/dev/null; t1=$(now)
        echo $((t1 - t0)) >> "$work/$order"; [ -n "${JOURNAL_BENCH_VERBOSE:-}" ] && echo "$order $(( (t1 - t0) / 1000000 )) ms" >&2 || true
    done
done
live=$(median < "$work/live"); replay=$(median < "$work/replay")
plain=$(median < "$work/plain"); journaled=$(median < "$work/journaled")
awk -v l="$live" -v r="$replay" -v n="$n" 'BEGIN {printf "replay: %d x RUN \"sleep 0.01\": live %.0f ms, replay %.1f ms: %.1fx faster (goal >= 20x)\n", n, l/1e6, r/1e6, l/r}'
awk -v p="$plain" -v j="$journaled" -v n="$n" 'BEGIN {printf "journaling: %d x RUN \"true\": %.0f ms without, %.0f ms with: %.3fx (goal <= 1.15x)\n", n, p/1e6, j/1e6, j/p}'
# Memory: MB megabytes of recorded output, 2 MiB a RUN (1 MiB on each
# stream: what a RUN keeps of its output).
runs=$(( (mb + 1) / 2 ))
plan big "head -c 1048576 /dev/zero; head -c 1048576 /dev/zero >&2" "$runs"
rm -f "$work/b.journal"
"$vm" run "$work/big.tiss" --workdir "$work/ws" --journal "$work/b.journal" --sandbox-profile none >/dev/null
size=$(stat -c %s "$work/b.journal")
if command -v /usr/bin/time >/dev/null; then
    /usr/bin/time -f "%M" -o "$work/rss" "$vm" replay "$work/b.journal" >/dev/null
    awk -v s="$size" -v k="$(cat "$work/rss")" 'BEGIN {printf "memory: replay of a %.0f MiB journal peaks at %.0f MiB\n", s/1048576, k/1024}'
else
    echo "memory: GNU time is not installed (apt-get install time); skipped"
fi
