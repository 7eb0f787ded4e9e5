#!/usr/bin/env bash
# Remakes compiler/link/tissc-hot.txt and vm/link/tissvm-hot.txt: the
# functions a `tissc compile` runs and those a `tissvm run` runs, which
# compiler/build.rs has the linker place first in each binary's code (book:
# performance.md, "the code"). Each line is a symbol's name up to its hash
# (`17h` of a legacy Rust name), or a whole name: a prefix the linker matches
# against the sections `.text.NAME` of that build. Recorded with callgrind
# (valgrind) from release builds: tissc compiling the plan of each shape, the
# bench plan, a one-step plan and an example, and checking one; tissvm running
# a one-step plan (the start-up figure) and a plan with a RUN. The list ends
# with the sections of read-only data those runs read (recorded with
# valgrind's lackey, every load of a smaller run of each, and the linker's
# map), which build.rs puts first in `.rodata` and `.data.rel.ro`.
# Usage: benches/hot_text.sh   (needs valgrind; rewrites both lists in place)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Each binary built alone, as `cargo install --path compiler` (or `vm`) and
# the benches build it: built together with other packages, the crates they
# share may be built with more features, which renames their constants'
# sections. With the linker's maps (compiler/build.rs), for the data below;
# the next build without TISS_LINK_MAP links the binaries again as they were.
cargo build -q --release --example gen_plan
TISS_LINK_MAP=$work cargo build -q --release --bin tissc
TISS_LINK_MAP=$work cargo build -q --release --bin tissvm
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

# record_data BINARY ARGS...: the input sections of read-only data a run of
# BINARY with ARGS reads, into $work/data.BINARY: every load it makes
# (valgrind's lackey), each mapped to the section holding its address by the
# linker's map of the build ($work/BINARY.map, lld's format), a Rust name cut
# at its hash. The constants every build merges are first anyway.
record_data() {
    local binary=$1
    shift
    valgrind --tool=lackey --trace-mem=yes --log-file="$work/lackey" \
        "target/release/$binary" "$@" >/dev/null 2>&1 || true
    python3 - "$work/$binary.map" "$work/lackey" >> "$work/data.$binary" <<'PY'
import bisect, re, sys
sections = []
for line in open(sys.argv[1]):
    words = line.split()
    found = re.search(r":\((\.(?:rodata|data\.rel\.ro)\..+)\)$", words[-1]) if len(words) >= 5 else None
    if found and not words[-1].startswith("<internal>"):
        sections.append((int(words[0], 16), int(words[2], 16), found.group(1)))
sections.sort()
starts = [s[0] for s in sections]
read = set()
for line in open(sys.argv[2]):
    if line[:2] not in (" L", " M"):
        continue
    address = int(line[3:].split(",")[0], 16)
    i = bisect.bisect_right(starts, address) - 1
    if i >= 0 and address < sections[i][0] + sections[i][1]:
        read.add(re.sub(r"17h[0-9a-f]{16}E$", "17h", sections[i][2]))
print("\n".join(sorted(read)))
PY
}

# normal: the names read on stdin that the linker script can match (a symbol's
# name up to the hash Rust appends, or a C function's), each once.
normal() {
    grep -E '^(_ZN|_R|[A-Za-z_][A-Za-z0-9_.]*$)' \
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
        echo "# The read-only data they read, by input section (build.rs puts it first)."
        LC_ALL=C sort -u "$work/data.$binary"
    } > "$tmp"
    local count sections
    count=$(grep -v '^#' "$tmp" | grep -vc '^\.' || true)
    sections=$(grep -c '^\.' "$tmp" || true)
    # A run goes through several hundred; far fewer means one failed.
    if [ "$count" -lt 200 ]; then
        echo "$binary: only $count functions recorded: a run failed; $out is left as it was" >&2
        exit 1
    fi
    mv "$tmp" "$out"
    echo "$out: $count functions, $sections sections of data"
}
# The statics, from smaller runs: lackey logs every load.
for shape in steps heredoc conditions prompts; do
    target/release/examples/gen_plan 540 "$shape" > "$work/small-$shape.tiss"
    record_data tissc compile "$work/small-$shape.tiss" -o "$work/out.tbc"
done
record_data tissvm run "$work/one.tbc" --workdir "$work/ws"
record_data tissvm run "$work/run.tbc" --workdir "$work/ws"
list tissc compiler/link/tissc-hot.txt
mkdir -p vm/link
list tissvm vm/link/tissvm-hot.txt
