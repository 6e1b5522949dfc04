#!/bin/bash
# A one-node Slurm cluster on this machine for the batch tests (sourced, not run):
# installs Debian's slurm-wlm and munge if missing, starts munged (its own key and socket),
# slurmctld and slurmd with a minimal slurm.conf in a temporary directory (one node: this
# machine, free ports, no accounting, no cgroups), exports SLURM_CONF and stops everything on
# exit (`KEEP=1` keeps the directory). Run as root (apt-get, daemons). Usage:
#
#   name=my-test; . scripts/slurm-cluster.sh; slurm_test_binary; slurm_cluster_up  # sets $work
#
# The caller defines say(), repo and start_time first.

# The damspel binary of the test: $damspel if given, else target/release/damspel (built if
# missing); made absolute (the jobs run in other directories). Needs $repo.
slurm_test_binary() {
    damspel=${damspel:-$repo/target/release/damspel}
    if [ ! -x "$damspel" ]; then
        say "building $damspel"
        (cd "$repo" && cargo build --release -p damspel)
    fi
    damspel=$(cd "$(dirname "$damspel")" && pwd)/$(basename "$damspel")
}

slurm_cluster_up() {
    if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
        say "installing slurm-wlm and munge"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
    fi
    work=$(mktemp -d "/tmp/${name:-slurm-test}.XXXXXX")
    chmod 755 "$work"
    slurm_pids=()
    trap slurm_cluster_down EXIT

    # munge: its own key, socket and files in the work directory (the system's are left alone).
    mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/data"
    chmod 700 "$work/munge"
    dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$work/munge/munge.key"
    munged --foreground --force --key-file="$work/munge/munge.key" \
        --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
        --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" \
        >"$work/munged.out" 2>&1 &
    slurm_pids+=($!)
    for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done

    local node cpus
    node=$(hostname -s)
    # The tests' tasks are small (a few tables, an atlas shard of a few games) and slurmctld
    # starts jobs on its one-second tick: a node of the machine's 2 CPUs ran a wave of five
    # tasks in three rounds. It offers 16 (`SLURM_TEST_CPUS`; config_overrides: slurmd takes
    # the configured count instead of draining the node for having fewer), so that a wave
    # starts at once.
    cpus=$(( $(nproc) > ${SLURM_TEST_CPUS:-16} ? $(nproc) : ${SLURM_TEST_CPUS:-16} ))
    # batch_sched_delay=0: a batch job starts within the scheduler's next second, not up to 3 s
    # later (the tablebase test's waves each waited for it: 29 s of its 30).
    cat >"$work/slurm.conf" <<CONF
ClusterName=damspeltest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
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
SchedulerParameters=batch_sched_delay=0
SlurmdParameters=config_overrides
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$work/slurm.conf
    slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
    slurm_pids+=($!)
    slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
    slurm_pids+=($!)
    for _ in $(seq 100); do
        sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
        sleep 0.2
    done
    sinfo || { cat "$work"/*.out >&2; exit 1; }
    say "cluster up after $(($(date +%s) - start_time)) s"
}

slurm_cluster_down() {
    for pid in "${slurm_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${slurm_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "${KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}

slurm_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Waits until none of the given jobs (comma-separated ids; all jobs if empty) is queued or
# running, at most SLURM_TEST_TIMEOUT seconds (default 1800); fails as soon as a job waits on
# one that failed.
slurm_wait() {
    local deadline=$(($(date +%s) + ${SLURM_TEST_TIMEOUT:-1800}))
    local jobs=()
    if [ -n "${1:-}" ]; then jobs=(-j "$1"); fi
    while squeue -h "${jobs[@]}" 2>/dev/null | grep -q .; do
        if squeue -h "${jobs[@]}" -o %r 2>/dev/null | grep -q DependencyNeverSatisfied; then
            say "a job failed: the jobs after it can never start"
            squeue
            cat "$work"/*-*.out >&2 2>/dev/null || true
            exit 1
        fi
        if [ "$(date +%s)" -gt "$deadline" ]; then
            say "timed out waiting for the jobs"
            squeue
            exit 1
        fi
        sleep 1
    done
}
