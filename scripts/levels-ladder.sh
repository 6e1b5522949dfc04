#!/bin/sh
# The level ladder of docs/strength.md: level 1 against depth-limited searches, then adjacent
# levels. Usage: scripts/levels-ladder.sh VARIANT GAMES [OUT_DIR] [FIRST_LEVEL]
# One game at a time (--concurrency 1). Levels 1-7 are bounded by nodes, so their results do
# not depend on the machine; level 8 thinks L8_TIME seconds a move (default 0.5).
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
    "$bin" match "$variant" "$@" --games "$games" --concurrency 1 --seed 7 --json \
        >"$out/$variant-$name.json"
    echo "$variant $name ($(($(date +%s) - start)) s): $(cat "$out/$variant-$name.json")"
}
if [ "$first" -eq 1 ]; then
    for d in 2 3 4; do
        run "L1-d$d" --engine damspel:level=1 --engine "damspel:depth=$d"
    done
fi
n=$first
while [ "$n" -le 7 ]; do
    next="damspel:level=$((n + 1))"
    [ "$n" -eq 7 ] && next="damspel:level=8,time=${L8_TIME:-0.5}"
    run "L$n-L$((n + 1))" --engine "damspel:level=$n" --engine "$next"
    n=$((n + 1))
done
