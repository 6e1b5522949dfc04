#!/bin/bash
# Proves the atlas's sharding on a real Slurm: starts a one-node cluster on this machine
# (scripts/slurm-cluster.sh: installs slurm-wlm and munge if missing), submits the atlas of two
# variants as an 8-task job array (deploy/slurm/atlas.sbatch) with a dependent merge job, and
# checks that the merged database equals a one-process run game for game (`damspel atlas
# diff`). Exit 0: equal. Run as root (apt-get, daemons). Usage:
#
#   scripts/slurm-atlas-test.sh [path/to/damspel]     (default: target/release/damspel, built)
#
# Environment: ATLAS_GAMES (default 16 per variant), ATLAS_BUDGET (default "--nodes 2000"),
# SLURM_TEST_TIMEOUT (default 1800 s).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
damspel=${1:-}
games=${ATLAS_GAMES:-16}
budget=${ATLAS_BUDGET:---nodes 2000}
variants="turkish international"
shards=8
start_time=$(date +%s)

say() { echo "slurm-atlas-test: $*"; }

# shellcheck source=scripts/slurm-cluster.sh
. "$repo/scripts/slurm-cluster.sh"
slurm_test_binary

name=slurm-atlas
slurm_cluster_up

export DAMSPEL=$damspel ATLAS_DIR=$work/data ATLAS_SHARDS=$shards ATLAS_VARIANTS=$variants \
    ATLAS_GAMES=$games ATLAS_BUDGET=$budget ATLAS_SEED=5 ATLAS_OPENINGS=6
cd "$work"
array=$(sbatch --parsable --array=1-$shards "$repo/deploy/slurm/atlas.sbatch" run)
merge=$(sbatch --parsable --dependency=afterok:"$array" --output=merge-%j.out \
    "$repo/deploy/slurm/atlas.sbatch" merge)
say "submitted array job $array (tasks 1-$shards) and merge job $merge"

# The one-process run, on this machine at the same time (same seed, same budget).
# shellcheck disable=SC2086
"$damspel" atlas run $variants --games "$games" $budget --seed 5 --openings 6 \
    --threads 1 --db "$work/single.db"

slurm_wait "$array,$merge"
cat "$work"/atlas-*.out "$work"/merge-*.out 2>/dev/null | sed 's/^/  job: /'
state=$(scontrol show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z_]*' || true)
say "merge job: ${state:-finished (no longer listed)}"
if [ ! -f "$work/data/atlas.db" ]; then
    say "FAIL: no merged database (see the job output above)"
    tail -20 "$work"/slurm*.out >&2
    exit 1
fi
if "$damspel" atlas diff "$work/single.db" "$work/data/atlas.db"; then
    n=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from games').fetchone()[0])" "$work/data/atlas.db")
    say "PASS: the 8-shard Slurm run merged equals the one-process run ($n games, $(($(date +%s) - start_time)) s in all)"
else
    say "FAIL: the merged database differs from the one-process run"
    exit 1
fi
