#!/usr/bin/env bash
# The border tests' long runs: every property test and oracle of CI with far more cases, one
# after the other, each bounded by a timeout. Prints one Markdown row per run (the table of
# docs/reliability.md) and exits non-zero if any run failed. Meant for a nightly job: CI's few
# hundred cases a property catch what is common; rare bugs (one case in 700,000) need these.
#
#   scripts/long-runs.sh [scale] [filter]
#
# scale (default 1) multiplies every run's cases: 1 takes some 40 minutes on 2 cores. filter, a
# regular expression, keeps the runs whose name matches it (e.g. `notation|protocol`). The
# pydraughts oracle runs where DAMSPEL_PYTHON names a Python with pydraughts (as in .ci/run).
set -uo pipefail
cd "$(dirname "$0")/.."
scale="${1:-1}"
filter="${2:-.}"
limit="${LONG_RUN_TIMEOUT:-3600}"
case "$scale" in
'' | *[!0-9]* | 0)
    echo "scale must be a whole number from 1: $scale" >&2
    exit 2
    ;;
esac

cargo build --release --tests --quiet || exit 2

failed=0
echo "| run | cases | time | result |"
echo "|---|---|---|---|"
# run NAME CASES ENV... -- CARGO TEST ARGUMENTS
run() {
    local name="$1" cases="$2"
    shift 2
    local env=()
    while [ "$1" != "--" ]; do
        env+=("$1")
        shift
    done
    shift
    [[ "$name" =~ $filter ]] || return 0
    local log start status
    log="$(mktemp)"
    start=$(date +%s)
    env "${env[@]}" timeout "$limit" cargo test --release --quiet "$@" >"$log" 2>&1
    status=$?
    local took=$(($(date +%s) - start))
    local result="passed"
    if [ "$status" -eq 124 ]; then
        result="**timed out** after ${limit} s"
        failed=1
    elif [ "$status" -ne 0 ]; then
        # The minimal failing input, where proptest gives one.
        local why
        why="$(grep -m1 -E 'minimal failing input|panicked at' "$log" | cut -c1-200)"
        result="**failed**: ${why:-exit $status} (log: $log)"
        failed=1
    fi
    echo "| $name | $cases | $took s | $result |"
    [ "$status" -eq 0 ] && rm -f "$log"
}

cases=$((100000 * scale))
run "notation (FEN, move text, PDN)" "$cases a property" PROPTEST_CASES=$cases -- \
    -p damspel-notation --test notation
run "protocol border (Hub, DXP)" "$cases a property" PROPTEST_CASES=$cases -- \
    -p damspel-protocol --test border
run "rules and variant files" "$cases a property" PROPTEST_CASES=$cases -- \
    -p damspel-rules --test rules
run "rules core units (trail, reach, parity, quiet)" "$cases a property" \
    PROPTEST_CASES=$cases -- -p damspel-rules --lib
run "reference generator (every built-in variant)" "$((100 * scale)) rounds" \
    DAMSPEL_REFERENCE_ROUNDS=$((100 * scale)) -- -p damspel-conformance --test conformance \
    builtin_variants_agree_with_the_reference
run "kish oracle (Turkish)" "$((30 * scale)) rounds" DAMSPEL_KISH_ROUNDS=$((30 * scale)) -- \
    -p damspel-conformance --test conformance kish_oracle_random_games
if [ -n "${DAMSPEL_PYTHON:-}" ]; then
    run "pydraughts oracle" "$((10 * scale)) rounds" DAMSPEL_ORACLE_ROUNDS=$((10 * scale)) -- \
        -p damspel-conformance --test conformance pydraughts_oracle
fi
run "server API fuzz" "$((400 * scale * 100)) requests" \
    DAMSPEL_API_FUZZ_ROUNDS=$((100 * scale)) -- -p damspel-server --test server fuzz::
run "server tree round trip" "$((20 * scale)) rounds" DAMSPEL_TREE_ROUNDS=$((20 * scale)) -- \
    -p damspel-server --test server tree_round_trip::
run "server restart" "$((100 * scale)) rounds" DAMSPEL_RESTART_ROUNDS=$((100 * scale)) -- \
    -p damspel-server --test server restart::
exit $failed
