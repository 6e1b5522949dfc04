#!/bin/sh
# The level ladder of docs/strength.md: adjacent levels, and level 1 against depth-limited
# searches. Usage: scripts/levels-ladder.sh VARIANT GAMES [OUT_DIR]
# One game at a time (--concurrency 1): the numbers do not depend on the machine (levels 1-7
# are bounded by nodes; level 8 thinks 0.1 s a move, the match's default).
set -eu
variant=$1
games=$2
out=${3:-ladder}
bin=${DAMSPEL:-target/release/damspel}
mkdir -p "$out"
run() {
    name=$1; shift
    "$bin" match "$variant" "$@" --games "$games" --concurrency 1 --seed 7 --json \
        >"$out/$variant-$name.json"
    echo "$variant $name: $(cat "$out/$variant-$name.json")"
}
for d in 2 3 4; do
    run "L1-d$d" --engine damspel:level=1 --engine "damspel:depth=$d"
done
for n in 1 2 3 4 5 6 7; do
    run "L$n-L$((n + 1))" --engine "damspel:level=$n" --engine "damspel:level=$((n + 1))"
done
