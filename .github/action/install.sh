#!/usr/bin/env bash
# The action's install step: tissc and tissvm of the action's own checkout
# (TISS_SOURCE: the version the workflow pinned with `uses: …@TAG`).
set -euo pipefail
echo "Installing the TissLang toolchain from ${TISS_SOURCE:?}"
cargo install --locked --path "$TISS_SOURCE/compiler" --bin tissc
cargo install --locked --path "$TISS_SOURCE/vm" --bin tissvm
tissvm --version
