#!/usr/bin/env bash
# Remakes compiler/link/tissc-hot.txt and vm/link/tissvm-hot.txt: the
# functions a `tissc compile` runs and those a `tissvm run` runs, which
# compiler/build.rs has the linker place first in each binary's code (book:
# performance.md, "the code"). Each line is a symbol's name up to its hash
# (`17h` of a legacy Rust name), or a whole name: a prefix the linker matches
# against the sections `.text.NAME` of that build. Recorded with callgrind
# (valgrind) from release builds: tissc compiling the plan of each shape, the
# bench plan, a one-step plan and an example, and checking one; tissvm running
# a one-step plan (the start-up figure) and a plan with a RUN.
# Usage: benches/hot_text.sh   (needs valgrind; rewrites both lists in place)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)" >&2; exit 2; }
cargo build -q --release --bin tissc --bin tissvm --example gen_plan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
record() {
    local binary=$1
    shift
    valgrind --tool=callgrind --demangle=no --dump-instr=no \
        --callgrind-out-file="$work/cg.$binary.$((++n))" "target/release/$binary" "$@" >/dev/null 2>&1 || true
}

target/release/examples/gen_plan 5000 > "$work/bench.tiss"
for shape in steps heredoc conditions prompts; do
    target/release/examples/gen_plan 5400 "$shape" > "$work/$shape.tiss"
done
printf 'TASK "t"\nSTEP "s" {\n    ASSERT TRUE\n}\n' > "$work/one.tiss"
printf 'TASK "t"\nSTEP "s" {\n    RUN "true"\n    ASSERT LAST_RUN.EXIT_CODE == 0\n}\n' > "$work/run.tiss"
for plan in "$work"/*.tiss examples/hello.tiss; do
    record tissc compile "$plan" -o "$work/out.tbc"
done
record tissc check "$work/bench.tiss"
mkdir "$work/ws"
for plan in one run; do
    target/release/tissc compile "$work/$plan.tiss" -o "$work/$plan.tbc"
    record tissvm run "$work/$plan.tbc" --workdir "$work/ws"
done

# normal: the names read on stdin that the linker script can match (a symbol's
# name up to the hash Rust appends), each once.
normal() {
    grep -E '^(_ZN|_R|_?mi_|main$)' \
        | sed -E "s/'[0-9]+$//; s/\.[0-9]+$//; s/^(_ZN.*17h)[0-9a-f]{16}E$/\1/" \
        | LC_ALL=C sort -u
}

# list BINARY OUT: the functions the binary's recorded runs ran, into OUT, those
# more runs ran first (then by name): the code every compile runs lies together
# at the front, what one shape or command runs after it, so each run touches
# fewer of the 64 KiB chunks the kernel maps around a page it needs.
list() {
    local binary=$1 out=$2 tmp=$work/list
    # What runs on the CPU's SHA and carry-less multiply instructions, which
    # valgrind's CPU lacks: hashes, the container's CRC, run by every run.
    nm "target/release/$binary" | awk '{ print $3 }' | grep -E 'sha2.*sha256.*x86|crc32fast.*specialized' \
        | normal > "$work/native" || true
    {
        echo "# The functions \`$binary\` runs, those more of the recorded runs ran first"
        echo "# (benches/hot_text.sh made this list; run it again after large changes)."
        echo "# compiler/build.rs has the linker put them first, in this order."
        {
            for f in "$work"/cg."$binary".*; do
                # mimalloc's internal functions and main come without their object.
                callgrind_annotate --threshold=100 "$f" \
                    | grep -E "target/release/$binary\\]|:(_mi_|main ).*\\[\\?\\?\\?\\]" \
                    | sed -E 's/.*:([^ ]+) \[.*/\1/' | normal
                cat "$work/native"
            done
        } | LC_ALL=C sort | uniq -c | LC_ALL=C sort -k1,1nr -k2,2 | awk '{ print $2 }'
    } > "$tmp"
    local count
    count=$(grep -vc '^#' "$tmp")
    # A run goes through several hundred; far fewer means one failed.
    if [ "$count" -lt 200 ]; then
        echo "$binary: only $count functions recorded: a run failed; $out is left as it was" >&2
        exit 1
    fi
    mv "$tmp" "$out"
    echo "$out: $count functions"
}
list tissc compiler/link/tissc-hot.txt
mkdir -p vm/link
list tissvm vm/link/tissvm-hot.txt
