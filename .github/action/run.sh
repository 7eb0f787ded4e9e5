#!/usr/bin/env bash
# The action's run step: every plan of TISS_PLANS (words: files or
# directories), with TISS_ARGS (further `tissvm run` options, words),
# annotated for GitHub (`--output-format github`; the job summary goes to
# GITHUB_STEP_SUMMARY when the runner sets it), each report kept in
# TISS_REPORT_DIR. The step's exit status is the worst plan's.
set -euo pipefail
read -r -a plans <<<"${TISS_PLANS:?the action needs plans}"
read -r -a args <<<"${TISS_ARGS:-}"
mkdir -p "${TISS_REPORT_DIR:=tiss-reports}"
exec tissvm run "${plans[@]}" --report-dir "$TISS_REPORT_DIR" --output-format github "${args[@]}"
