#!/usr/bin/env bash
# The debug adapter's latency (book: cookbook/debugging.md): on a plan of 2,000 statements, the
# mean round trip of 200 consecutive `next` requests (request written to
# `stopped` event read) and of a `continue` to a breakpoint over 10,000
# instructions on, measured on an optimised `tissvm dap` over its pipes by
# vm/tests/dap/latency.rs (goal: 20 ms each).
#   benches/dap_latency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test --release -p tiss-vm --test dap latency -- --nocapture --test-threads 1
