#!/usr/bin/env bash
# A profile-guided build of tissc (PGO), measured: tissc built with
# instrumentation into target/pgo/generate, run on training plans (the
# examples and a plan of each shape of benches/plan_shapes.rs at a tenth of
# the size the figures use), built again with the merged profile into
# target/pgo/use (each under the host's triple), then measured by
# benches/compile_vs_luac.sh against luac5.4 on every shape and paired with
# the default release build. The .tbc files of the two builds are compared
# byte for byte first.
#
# Usage: benches/pgo.sh [RUNS]   (default 21 paired runs)
# Needs llvm-profdata of rustc's own LLVM major version (rustc 1.95: LLVM 22,
# Debian's `apt-get install llvm-22`), lua5.4 and GNU time. Two release
# builds of tissc: about nine minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
profdata=llvm-profdata-$major
command -v "$profdata" >/dev/null || {
    echo "$profdata not found: the profile must be merged by rustc's own LLVM ($major; apt-get install llvm-$major)" >&2
    exit 2
}
cargo build -q --release --example gen_plan
cargo build -q --release --bin tissc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/plans" "$work/train"
cp examples/*.tiss "$work/plans/"
target/release/examples/gen_plan 5000 > "$work/plans/bench.tiss"
for shape in steps heredoc conditions prompts; do
    target/release/examples/gen_plan 5400 "$shape" > "$work/plans/$shape.tiss"
done

# Built for the host named as the target, so that the flags reach tissc's
# code only, not the build scripts (whose `main` the profile would name too).
host=$(rustc -vV | sed -n 's/^host: //p')
echo "== the instrumented build (target/pgo/generate)"
RUSTFLAGS="-Cprofile-generate=$work/train" \
    cargo build -q --release --bin tissc --target "$host" --target-dir target/pgo/generate
echo "== training on $(ls "$work/plans" | wc -l) plans"
for plan in "$work"/plans/*.tiss; do
    export LLVM_PROFILE_FILE="$work/train/%m_%p.profraw"
    "target/pgo/generate/$host/release/tissc" compile "$plan" -o "$work/out.tbc" >/dev/null 2>&1 || true
    "target/pgo/generate/$host/release/tissc" check "$plan" >/dev/null 2>&1 || true
    unset LLVM_PROFILE_FILE
done
"$profdata" merge --sparse -o "$work/tissc.profdata" "$work"/train/*.profraw
echo "== the profile-guided build (target/pgo/use)"
RUSTFLAGS="-Cprofile-use=$work/tissc.profdata" \
    cargo build -q --release --bin tissc --target "$host" --target-dir target/pgo/use
pgo="target/pgo/use/$host/release/tissc"

for shape in steps heredoc conditions prompts; do
    target/release/examples/gen_plan 54000 "$shape" > "$work/$shape.tiss"
    target/release/tissc compile "$work/$shape.tiss" -o "$work/a.tbc"
    "$pgo" compile "$work/$shape.tiss" -o "$work/b.tbc"
    cmp -s "$work/a.tbc" "$work/b.tbc" || { echo "the two builds compile $shape to different bytecode" >&2; exit 1; }
done
echo "(the two builds' .tbc files are identical on every shape)"
TISSC=$pgo benches/compile_vs_luac.sh "$runs" target/release/tissc
