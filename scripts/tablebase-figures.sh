#!/bin/bash
# Builds (and verifies) the tablebase set of every variant up to PIECES pieces and prints one
# Markdown row per variant: positions (slots), bytes, build seconds (wall clock and CPU),
# positions per CPU-second (the speed per core, whatever else loads the machine), verify. Usage: scripts/tablebase-figures.sh [PIECES] [THREADS] [VARIANT...]
# VERIFY=0 skips the verification (it costs as much as the build). Tables go to $TB_DIR (default /tmp/damspel-tb-figures). Numbers depend on the load of the
# machine: say what else was running when you quote them.
# A variant whose build fails (an unknown id, memory refused, a full disk) gets a row that says
# so and its error on stderr; the others go on, and the script exits non-zero at the end.
set -euo pipefail
PIECES=${1:-4}
THREADS=${2:-2}
# Only the arguments given: with one (PIECES alone), `shift 2` failed and left it as a variant.
shift $(($# < 2 ? $# : 2))
DAMSPEL=${DAMSPEL:-target/release/damspel}
TB_DIR=${TB_DIR:-/tmp/damspel-tb-figures}
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
    mapfile -t variants < <("$DAMSPEL" variants | awk 'NR > 1 {print $1}')
fi
failed=0
echo "| variant | pieces | positions | bytes | build s (wall) | build s (cpu) | positions/cpu-s | verify |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for v in "${variants[@]}"; do
    times=$(mktemp)
    errors=$(mktemp)
    if ! summary=$(/usr/bin/time -f "%e %U %S" -o "$times" "$DAMSPEL" tablebase build "$v" --pieces "$PIECES" --threads "$THREADS" --tb-dir "$TB_DIR" 2>"$errors" | tail -n 1); then
        echo "tablebase-figures: $v: $(grep -v '^Command exited' "$errors" | tail -n 1)" >&2
        echo "| $v | $PIECES | – | – | – | – | – | build failed |"
        rm -f "$times" "$errors"
        failed=1
        continue
    fi
    read -r wall user sys < "$times"
    rm -f "$times" "$errors"
    positions=$(echo "$summary" | sed -n 's/.* tables, \([0-9]*\) positions, \([0-9]*\) bytes.*/\1/p')
    bytes=$(echo "$summary" | sed -n 's/.* tables, \([0-9]*\) positions, \([0-9]*\) bytes.*/\2/p')
    cpu=$(echo "$user + $sys" | bc)
    # Under the clock's 0.01 s a build has no CPU time to divide by.
    if [ "$(echo "$cpu > 0" | bc)" = 1 ]; then rate=$(echo "$positions / $cpu" | bc); else rate="–"; fi
    if [ "${VERIFY:-1}" = 0 ]; then
        ok="not run"
    elif "$DAMSPEL" tablebase verify "$v" --pieces "$PIECES" --threads "$THREADS" --samples 20 --depth 4 --tb-dir "$TB_DIR" >/dev/null 2>&1; then
        ok=ok
    else
        ok=FAILED
        failed=1
    fi
    echo "| $v | $PIECES | $positions | $bytes | $wall | $cpu | $rate | $ok |"
done
exit "$failed"
