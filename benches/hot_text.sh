#!/usr/bin/env bash
# Remakes compiler/link/tissc-hot.txt: the functions a `tissc compile` runs,
# which compiler/build.rs has the linker place together at the start of the
# code (book: performance.md, "the code"). Each line is a symbol's name up to
# its hash (`17h` of a legacy Rust name), or a whole name: a prefix the linker
# matches against the sections `.text.NAME` of that build. Recorded with
# callgrind (valgrind) from a release build compiling the plan of each shape,
# the bench plan, a one-step plan and an examples/ plan; `tissc check` too.
# Usage: benches/hot_text.sh   (needs valgrind; rewrites the list in place)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)" >&2; exit 2; }
cargo build -q --release --bin tissc --example gen_plan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/gen_plan 5000 > "$work/bench.tiss"
for shape in steps heredoc conditions prompts; do
    target/release/examples/gen_plan 5400 "$shape" > "$work/$shape.tiss"
done
printf 'TASK "t"\nSTEP "s" {\n    ASSERT TRUE\n}\n' > "$work/one.tiss"
run() {
    valgrind --tool=callgrind --demangle=no --dump-instr=no \
        --callgrind-out-file="$work/cg.$((++n))" target/release/tissc "$@" >/dev/null 2>&1 || true
}
n=0
for plan in "$work"/*.tiss examples/hello.tiss; do
    run compile "$plan" -o "$work/out.tbc"
done
run check "$work/bench.tiss"
list=$work/list
{
    echo "# The functions \`tissc compile\` runs (benches/hot_text.sh made this list; run it"
    echo "# again after large changes). compiler/build.rs has the linker put them first."
    {
        for f in "$work"/cg.*; do
            # mimalloc's internal functions and main come without their object.
            callgrind_annotate --threshold=100 "$f" | grep -E "target/release/tissc\]|:(_mi_|main ).*\[\?\?\?\]" \
                | sed -E 's/.*:([^ ]+) \[.*/\1/'
        done
        # What runs on the CPU's SHA and carry-less multiply instructions,
        # which valgrind's CPU lacks: the source's hash, the container's CRC.
        nm target/release/tissc | awk '{ print $3 }' | grep -E 'sha2.*sha256.*x86|crc32fast.*specialized'
    } | grep -E '^(_ZN|_R|_?mi_|main$)' | sed -E "s/'[0-9]+$//; s/\.[0-9]+$//; s/^(_ZN.*17h)[0-9a-f]{16}E$/\1/" \
        | LC_ALL=C sort -u
} > "$list"
count=$(grep -vc '^#' "$list")
# A compile runs several hundred; far fewer means a run failed.
if [ "$count" -lt 200 ]; then
    echo "only $count functions recorded: a run failed; the list is left as it was" >&2
    exit 1
fi
mv "$list" compiler/link/tissc-hot.txt
echo "compiler/link/tissc-hot.txt: $count functions"
