#!/bin/bash
# Proves the tablebase's batch route on a real Slurm: starts a one-node cluster on this machine
# (scripts/slurm-cluster.sh: installs slurm-wlm and munge if missing), runs the driver of
# deploy/slurm/tablebase.sbatch for a 3-piece set (every wave a job array, each wave after the
# previous one with afterok), builds the same set in one process meanwhile, and checks that
# every table file is byte-identical. Exit 0: identical. Run as root. Usage:
#
#   scripts/slurm-tablebase-test.sh [path/to/damspel]     (default: target/release/damspel, built)
#
# Environment: TB_VARIANT (default russian), TB_PIECES (default 3), SLURM_TEST_TIMEOUT.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
damspel=${1:-}
variant=${TB_VARIANT:-russian}
pieces=${TB_PIECES:-3}
start_time=$(date +%s)

say() { echo "slurm-tablebase-test: $*"; }

# shellcheck source=scripts/slurm-cluster.sh
. "$repo/scripts/slurm-cluster.sh"
slurm_test_binary

name=slurm-tablebase
slurm_cluster_up

cd "$work"
# The test node has 16 CPUs (or the machine's, if more) and no memory configured: one CPU per
# task, any memory.
VARIANT=$variant PIECES=$pieces TB_DIR=$work/data DAMSPEL=$damspel \
    TB_SBATCH_OPTS="--cpus-per-task=1 --mem=0" \
    bash "$repo/deploy/slurm/tablebase.sbatch" | sed 's/^/  driver: /'
waves=$("$damspel" tablebase plan "$variant" --pieces "$pieces" | awk '{print $1}' | uniq | wc -l)
signatures=$("$damspel" tablebase plan "$variant" --pieces "$pieces" | wc -l)
say "submitted $waves waves ($signatures signatures)"

# The one-process build, at the same time.
"$damspel" tablebase build "$variant" --pieces "$pieces" --threads 1 --tb-dir "$work/whole" \
    | tail -n 1

slurm_wait ""
failed=$(grep -l -i -E "error|panicked" "$work"/damspel-tb-*.out 2>/dev/null || true)
if [ -n "$failed" ]; then
    say "FAIL: a task failed"
    cat $failed >&2
    exit 1
fi
tasks=$(find "$work" -maxdepth 1 -name 'damspel-tb-*.out' | wc -l)
sliced=$(find "$work/data/$variant" -name '*.dtb' | wc -l)
whole=$(find "$work/whole/$variant" -name '*.dtb' | wc -l)
if [ "$sliced" -ne "$whole" ] || [ "$whole" -ne "$signatures" ]; then
    say "FAIL: $sliced tables from Slurm, $whole from one process, $signatures planned"
    exit 1
fi
if diff -r "$work/whole/$variant" "$work/data/$variant" >/dev/null; then
    say "PASS: $waves waves as Slurm job arrays ($tasks tasks) built $sliced tables byte-identical to the one-process build ($(($(date +%s) - start_time)) s in all)"
else
    say "FAIL: the tables built by Slurm differ from the one-process build"
    diff -r "$work/whole/$variant" "$work/data/$variant" >&2 || true
    exit 1
fi
