#!/usr/bin/env bash
# Reproduces the perft benchmark (crates/conformance/benches/perft.rs) with one command:
# Damspel against kish (Turkish perft(8), paths) and against dame-rs (International perft(9),
# dedup). Creates a venv under target/bench-venv, installs dame-rs from PyPI into it (once), and
# runs the benchmark with DAME_BIN pointing at its `dame`.
#
#   scripts/bench-perft.sh            # 5 runs per contender
#   scripts/bench-perft.sh 9          # 9 runs per contender (or PERFT_RUNS=9)
#
# Environment: PYTHON (default python3), DAME_RS_VERSION (pin a version, e.g. 0.2.0; default
# the latest), BENCH_VENV (default target/bench-venv).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

python="${PYTHON:-python3}"
venv="${BENCH_VENV:-$root/target/bench-venv}"
spec="dame-rs${DAME_RS_VERSION:+==$DAME_RS_VERSION}"

if [ ! -x "$venv/bin/dame" ]; then
    echo "creating $venv and installing $spec from PyPI" >&2
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet "$spec"
elif [ -n "${DAME_RS_VERSION:-}" ]; then
    "$venv/bin/python" -m pip install --quiet "$spec"
fi
"$venv/bin/python" -m pip show dame-rs 2>/dev/null | grep -E '^(Name|Version):' >&2 || true

export DAME_BIN="$venv/bin/dame"
if [ $# -gt 0 ]; then
    export PERFT_RUNS="$1"
fi
exec cargo bench -p damspel-conformance --bench perft
