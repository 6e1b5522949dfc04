#!/usr/bin/env bash
# Search speed of Damspel against dame-rs from the International start position, measured in the
# same run: both search to a fixed depth, alternating, several times; prints each engine's
# median nodes per second and the ratio. Installs dame-rs into target/bench-venv if needed.
#
#   scripts/bench-search.sh [RUNS] [DEPTH]      # defaults: 5 runs, depth 13
#
# The engines count nodes differently (Damspel: every position visited, quiescence included),
# so the ratio compares speed, not work.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
runs="${1:-5}"
depth="${2:-13}"
venv="${BENCH_VENV:-$root/target/bench-venv}"
if [ ! -x "$venv/bin/dame" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet dame-rs==0.2.0
fi
cargo build --release --quiet
damspel="$root/target/release/damspel"
ours=(); theirs=()
for i in $(seq "$runs"); do
    # Damspel: the final JSON line has nodes and time.
    line=$("$damspel" analyze international --depth "$depth" --json | tail -1)
    nps=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(int(d["nodes"]/d["time"]))' "$line")
    ours+=("$nps")
    # dame: "bestmove ... (1.68 Mnps)".
    out=$("$venv/bin/dame" search --depth "$depth" | tail -1)
    mnps=$(sed -E 's/.*\(([0-9.]+) Mnps\).*/\1/' <<<"$out")
    theirs+=("$(python3 -c "print(int(float('$mnps')*1e6))")")
    echo "run $i: damspel ${ours[-1]} nodes/s, dame ${theirs[-1]} nodes/s" >&2
done
python3 - "${ours[*]}" "${theirs[*]}" <<'PY'
import statistics, sys
ours = [int(x) for x in sys.argv[1].split()]
theirs = [int(x) for x in sys.argv[2].split()]
a, b = statistics.median(ours), statistics.median(theirs)
print(f"damspel median {a/1e6:.2f} M nodes/s, dame median {b/1e6:.2f} M nodes/s, ratio {a/b:.2f}")
PY
