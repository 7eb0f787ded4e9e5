#!/usr/bin/env bash
# Typed answers (book: reference/types.md) from a real 135M model: the 24 extraction prompts of
# vm/tests/providers/typed_suite.rs (records, enums, lists, optional fields,
# nested records), each a small plan run by `tissvm run --provider completion`
# against a local llama.cpp server (SmolLM2-135M-Instruct, tools/local-llm-server;
# temperature 0, a fixed seed), twice: with the type's JSON Schema sent as
# llama.cpp's `json_schema` (what the VM sends), and through a loopback proxy
# that takes the schema out of every request, so that the model answers freely
# and the VM's validation and one repair request (also unconstrained) decide.
# Both at the --repeat-penalty the book recommends (guide/models.md) (1.15; PENALTY measures
# another, 1 is off). Per prompt: each answer and why it ended (stop, or
# length: --max-tokens); then the table (valid on the first try, after the
# repair, cut off).
#   benches/typed_answers.sh [PENALTY]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}
# TISS_TYPED_FIGURES runs the constrained half too, for the table.
if [ -n "${1:-}" ]; then export TISS_TYPED_REPEAT_PENALTY=$1; fi
TISS_TYPED_FIGURES=1 exec cargo test -p tiss-vm --test providers \
    typed_suite::an_unconstrained_model_is_validated_and_repaired_once -- --exact --nocapture --test-threads 1
