#!/bin/bash
# Builds (and verifies) the tablebase set of every variant up to PIECES pieces and prints one
# Markdown row per variant: positions (slots), bytes, build seconds (wall clock and CPU),
# positions per CPU-second (the speed per core, whatever else loads the machine), verify. Usage: scripts/tablebase-figures.sh [PIECES] [THREADS] [VARIANT...]
# VERIFY=0 skips the verification (it costs as much as the build). Tables go to $TB_DIR (default /tmp/damspel-tb-figures). Numbers depend on the load of the
# machine: say what else was running when you quote them.
set -euo pipefail
PIECES=${1:-4}
THREADS=${2:-2}
shift 2 || true
DAMSPEL=${DAMSPEL:-target/release/damspel}
TB_DIR=${TB_DIR:-/tmp/damspel-tb-figures}
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
    mapfile -t variants < <($DAMSPEL variants | awk 'NR > 1 {print $1}')
fi
echo "| variant | pieces | positions | bytes | build s (wall) | build s (cpu) | positions/cpu-s | verify |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for v in "${variants[@]}"; do
    times=$(mktemp)
    summary=$(/usr/bin/time -f "%e %U %S" -o "$times" $DAMSPEL tablebase build "$v" --pieces "$PIECES" --threads "$THREADS" --tb-dir "$TB_DIR" 2>/dev/null | tail -n 1)
    read -r wall user sys < "$times"
    rm -f "$times"
    positions=$(echo "$summary" | sed -n 's/.* tables, \([0-9]*\) positions, \([0-9]*\) bytes.*/\1/p')
    bytes=$(echo "$summary" | sed -n 's/.* tables, \([0-9]*\) positions, \([0-9]*\) bytes.*/\2/p')
    cpu=$(echo "$user + $sys" | bc)
    rate=$(echo "$positions / $cpu" | bc)
    if [ "${VERIFY:-1}" = 0 ]; then
        ok="not run"
    elif $DAMSPEL tablebase verify "$v" --pieces "$PIECES" --threads "$THREADS" --samples 20 --depth 4 --tb-dir "$TB_DIR" >/dev/null 2>&1; then
        ok=ok
    else
        ok=FAILED
    fi
    echo "| $v | $PIECES | $positions | $bytes | $wall | $cpu | $rate | $ok |"
done
