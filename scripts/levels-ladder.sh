#!/bin/sh
# The level ladder of docs/strength.md: level 1 against depth-limited searches, then adjacent
# levels. Usage: scripts/levels-ladder.sh VARIANT GAMES [OUT_DIR] [FIRST_LEVEL]
# One game at a time by default (CONCURRENCY=N plays N at once: levels 1-7 are bounded by nodes,
# so their results do not depend on the machine or its load); level 8 thinks L8_TIME seconds a
# move (default 1, the page's default), so its pair is played one game at a time (L8_CONCURRENCY
# to play more at once, one per free core). LAST=7 stops before level 8;
# SEED (default 7) draws the openings.
set -eu
variant=$1
games=$2
out=${3:-ladder}
first=${4:-1}
bin=${DAMSPEL:-target/release/damspel}
mkdir -p "$out"
run() {
    name=$1
    shift
    start=$(date +%s)
    concurrency=${CONCURRENCY:-1}
    case "$*" in *level=8*) concurrency=${L8_CONCURRENCY:-1} ;; esac
    "$bin" match "$variant" "$@" --games "$games" --concurrency "$concurrency" \
        --seed "${SEED:-7}" --json >"$out/$variant-$name.json"
    echo "$variant $name ($(($(date +%s) - start)) s): $(cat "$out/$variant-$name.json")"
}
if [ "$first" -eq 1 ]; then
    for d in 2 3 4; do
        run "L1-d$d" --engine damspel:level=1 --engine "damspel:depth=$d"
    done
fi
n=$first
while [ "$n" -lt "${LAST:-8}" ]; do
    next="damspel:level=$((n + 1))"
    [ "$n" -eq 7 ] && next="damspel:level=8,time=${L8_TIME:-1}"
    run "L$n-L$((n + 1))" --engine "damspel:level=$n" --engine "$next"
    n=$((n + 1))
done
