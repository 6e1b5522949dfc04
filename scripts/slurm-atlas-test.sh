#!/bin/bash
# Proves the atlas's sharding on a real Slurm: installs Debian's slurm-wlm and munge if missing,
# starts a one-node cluster on this machine (munged, slurmctld and slurmd with a minimal
# slurm.conf in a temporary directory, all stopped at the end), submits the atlas of two
# variants as an 8-task job array (deploy/slurm/atlas.sbatch) with a dependent merge job, and
# checks that the merged database equals a one-process run game for game (`damspel atlas
# diff`). Exit 0: equal. Run as root (apt-get, daemons). Usage:
#
#   scripts/slurm-atlas-test.sh [path/to/damspel]     (default: target/release/damspel, built)
#
# Environment: ATLAS_GAMES (default 16 per variant), ATLAS_BUDGET (default "--nodes 2000").
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
damspel=${1:-$repo/target/release/damspel}
games=${ATLAS_GAMES:-16}
budget=${ATLAS_BUDGET:---nodes 2000}
variants="turkish international"
shards=8
start_time=$(date +%s)

say() { echo "slurm-atlas-test: $*"; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
if [ ! -x "$damspel" ]; then
    say "building $damspel"
    (cd "$repo" && cargo build --release -p damspel)
fi
damspel=$(cd "$(dirname "$damspel")" && pwd)/$(basename "$damspel")

work=$(mktemp -d /tmp/slurm-atlas.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "${KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# munge: its own key, socket and files in the work directory (the system's are left alone).
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/data"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" \
    --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
    --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" \
    >"$work/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done

node=$(hostname -s)
cpus=$(nproc)
cat >"$work/slurm.conf" <<CONF
ClusterName=atlastest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=atlas Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
    sleep 0.2
done
sinfo || { cat "$work"/*.out >&2; exit 1; }
say "cluster up after $(($(date +%s) - start_time)) s"

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

deadline=$(($(date +%s) + ${ATLAS_TIMEOUT:-1800}))
while squeue -h -j "$array,$merge" 2>/dev/null | grep -q .; do
    if [ "$(date +%s)" -gt "$deadline" ]; then
        say "timed out waiting for the jobs"
        squeue
        exit 1
    fi
    sleep 1
done
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
