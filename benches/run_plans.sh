# Sourced by benches/run_overhead.sh and benches/run_cpu.sh: the plans both
# time, written into DIR (with an empty workspace DIR/ws):
#   runs.tiss        N × RUN "/bin/true"  (the fast path: no shell)
#   shell_runs.tiss  N × RUN "true"       (a shell builtin: `sh -c true`)
#   empty.tiss       no RUN               (start-up, subtracted)
# Usage: write_run_plans DIR N

# A plan of N copies of `RUN "COMMAND"`.
run_plan() {
    printf 'TASK "runs"\nSTEP "s" {\n'
    for _ in $(seq "$1"); do printf '    RUN "%s"\n' "$2"; done
    printf '}\n'
}

write_run_plans() {
    mkdir -p "$1/ws"
    run_plan "$2" /bin/true > "$1/runs.tiss"
    run_plan "$2" true > "$1/shell_runs.tiss"
    printf 'TASK "none"\nSTEP "s" {\n    LOG "no RUN"\n}\n' > "$1/empty.tiss"
}
