#!/usr/bin/env bash
# Damspel against Scan (Fabien Letouzey's draughts engine, the author of the Hub protocol and a
# reference DXP program) over both protocols, loopback only, bounded in time:
#
#   1. Hub: `damspel match` drives `scan hub` for GAMES games of International and of Killer
#      draughts (Scan's `normal` and `killer`); no game may be forfeited (an illegal move either
#      way, or a protocol fault, forfeits it).
#   2. DXP, Scan listening and following: `damspel dxp --connect` plays one game to the end.
#   3. DXP match: `damspel match --engine dxp:ADDR` against Scan following, GAMES games from
#      random openings (set-up GAMEREQs) on one connection; no game may be forfeited.
#   4. DXP, Damspel listening: Scan initiates its endless match (a game request after every
#      game, colours switched, 40 moves a game so that both the rules' ends and the move limit
#      come up) until Damspel has logged GAMES results.
#
# Usage: scripts/scan-interop.sh SCAN_DIR [GAMES]
#
# SCAN_DIR holds a built Scan 3.1 (`scan`), its `data/` and `scan.ini`, as its distribution
# does (Scan's site, or a mirror of its sources built with its Makefile: nothing here builds or
# fetches it). Each check runs in a copy of SCAN_DIR, its scan.ini rewritten. Prints a line per
# check; exits 1 on the first failure, with the logs' last lines.
set -euo pipefail

SCAN_DIR=${1:?usage: scripts/scan-interop.sh SCAN_DIR [GAMES]}
GAMES=${2:-10}
SCAN_DIR=$(cd "$SCAN_DIR" && pwd)
[ -x "$SCAN_DIR/scan" ] || { echo "no executable $SCAN_DIR/scan" >&2; exit 2; }
[ -f "$SCAN_DIR/scan.ini" ] || { echo "no $SCAN_DIR/scan.ini" >&2; exit 2; }

cd "$(dirname "$0")/.."
cargo build --release --quiet --bin damspel
DAMSPEL=$PWD/target/release/damspel
WORK=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $1" >&2
    shift
    for log in "$@"; do echo "--- $log" >&2; tail -20 "$log" >&2; done
    exit 1
}

# A copy of Scan whose scan.ini sets the given `name = value` pairs.
scan_copy() {
    local dir=$WORK/$1
    shift
    mkdir -p "$dir"
    cp -r "$SCAN_DIR/scan" "$SCAN_DIR/data" "$dir/"
    cp "$SCAN_DIR/scan.ini" "$dir/scan.ini"
    while [ $# -gt 0 ]; do
        sed -i "s/^$1 *=.*/$1 = $2/" "$dir/scan.ini"
        shift 2
    done
    echo "$dir"
}

# A free TCP port on loopback.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Says what the match of `damspel match --json` output FILE gave (under LABEL); fails unless
# it played GAMES games and none was forfeited.
match_played() {
    python3 - "$1" "$2" "$GAMES" <<'EOF'
import json, sys
label, result, games = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3])
print(f"{label}: {result['games']} games against Scan ({result['variant']}), "
      f"Damspel +{result['wins']} ={result['draws']} -{result['losses']}, "
      f"{len(result['forfeits'])} forfeited")
sys.exit(0 if result["games"] == games and not result["forfeits"] else 1)
EOF
}

# 1. Hub.
hub_dir=$(scan_copy hub)
printf '#!/bin/sh\ncd "%s" && exec ./scan hub\n' "$hub_dir" > "$WORK/scan-hub"
chmod +x "$WORK/scan-hub"
for variant in international killer; do
    log=$WORK/hub-$variant.json
    timeout 1800 "$DAMSPEL" match "$variant" --engine damspel:depth=3 --engine "hub:$WORK/scan-hub" \
        --games "$GAMES" --time 0.05 --openings 8 --json > "$log" 2> "$WORK/hub-$variant.err" \
        || fail "hub $variant: the match failed" "$log" "$WORK/hub-$variant.err"
    match_played "hub $variant" "$log" || fail "hub $variant: games forfeited or missing" "$log"
done

# 2. DXP, Scan listening and following.
port=$(free_port)
dir=$(scan_copy follow dxp-server true dxp-initiator false dxp-port "$port")
(cd "$dir" && exec timeout 600 ./scan dxp > "$WORK/scan-follow.log" 2>&1) &
PIDS+=($!)
sleep 1
timeout 600 "$DAMSPEL" dxp --connect "127.0.0.1:$port" --time 0.05 > "$WORK/damspel-connect.log" 2>&1 \
    || fail "dxp: damspel --connect against Scan failed" "$WORK/damspel-connect.log" "$WORK/scan-follow.log"
grep -q "^dxp: result " "$WORK/damspel-connect.log" \
    || fail "dxp: no result logged" "$WORK/damspel-connect.log" "$WORK/scan-follow.log"
echo "dxp, Scan following: $(grep -c ' (peer)$' "$WORK/damspel-connect.log") moves of Scan's, $(grep '^dxp: result ' "$WORK/damspel-connect.log")"

# 3. A DXP match, Scan following.
port=$(free_port)
dir=$(scan_copy match dxp-server true dxp-initiator false dxp-port "$port")
(cd "$dir" && exec timeout $((120 * GAMES)) ./scan dxp > "$WORK/scan-match.log" 2>&1) &
PIDS+=($!)
sleep 1
log=$WORK/dxp-match.json
timeout $((120 * GAMES)) "$DAMSPEL" match international --engine damspel:depth=3 \
    --engine "dxp:127.0.0.1:$port" --games "$GAMES" --time 0.05 --openings 4 --json \
    > "$log" 2> "$WORK/dxp-match.err" \
    || fail "dxp match: the match failed" "$log" "$WORK/dxp-match.err" "$WORK/scan-match.log"
match_played "dxp match, Scan following" "$log" \
    || fail "dxp match: games forfeited or missing" "$log" "$WORK/scan-match.log"

# 4. DXP, Damspel listening, Scan initiating game after game.
port=$(free_port)
"$DAMSPEL" dxp --listen "127.0.0.1:$port" --keep-listening --time 0.05 > "$WORK/damspel-listen.log" 2>&1 &
PIDS+=($!)
sleep 0.5
dir=$(scan_copy init dxp-server false dxp-initiator true dxp-port "$port" dxp-time 1 dxp-moves 40)
(cd "$dir" && exec ./scan dxp > "$WORK/scan-init.log" 2>&1) &
PIDS+=($!)
deadline=$((SECONDS + 120 * GAMES))
while [ "$(grep -c '^dxp: result ' "$WORK/damspel-listen.log")" -lt "$GAMES" ]; do
    [ $SECONDS -lt $deadline ] || fail "dxp: fewer than $GAMES results in time" "$WORK/damspel-listen.log" "$WORK/scan-init.log"
    if grep -q "error" "$WORK/damspel-listen.log"; then
        fail "dxp: Damspel logged an error" "$WORK/damspel-listen.log" "$WORK/scan-init.log"
    fi
    sleep 1
done
echo "dxp, Scan initiating: $GAMES games, $(grep -c 'the limit of\|without a reason' "$WORK/damspel-listen.log") ended at the move limit, $(grep -c ' (peer)$' "$WORK/damspel-listen.log") moves of Scan's, no error"
echo "all checks passed"
