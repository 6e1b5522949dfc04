#!/usr/bin/env python3
"""kill -9 during moves: every acknowledged move survives. Starts its own `damspel serve`
(DAMSPEL_BIN or target/release/damspel) on loopback with a fresh database; each round, clients
play moves in several games at once, the server is killed with SIGKILL at a random moment,
restarted on the same database, and every game must hold every move that was answered 200
(a move in flight when the server died may be there or not). Bounded: --rounds (default 10).

    python3 scripts/kill9.py [--rounds 10] [--games 8]
"""

import argparse
import random
import threading
import time

from serverlib import Server


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--games", type=int, default=8)
    a = ap.parse_args()
    server = Server()
    games = {}  # id -> (seat header, acknowledged moves)
    lost = 0
    acknowledged = 0
    try:
        for _ in range(a.games):
            state, seat = server.new_game("international", white="human", black="human")
            games[state["id"]] = (seat, [])
        for rnd in range(a.rounds):
            stop = threading.Event()

            def player(gid):
                seat, acked = games[gid]
                while not stop.is_set():
                    try:
                        status, state = server.request("GET", f"/api/games/{gid}", timeout=5)
                        if status != 200 or state["outcome"] or not state["legal"]:
                            return
                        mv = random.choice(state["legal"])["full"]
                        status, after = server.request("POST", f"/api/games/{gid}/move",
                                                       {"move": mv}, {"X-Damspel-Seat": seat},
                                                       timeout=5)
                    except OSError:
                        return  # the server is gone
                    if status == 200:
                        acked[:] = [h["full"] for h in after["history"]]

            start_len = {g: len(acked) for g, (_, acked) in games.items()}
            threads = [threading.Thread(target=player, args=(g,)) for g in games]
            for t in threads:
                t.start()
            time.sleep(random.uniform(0.2, 1.5))
            server.kill9()
            stop.set()
            for t in threads:
                t.join()
            server.start()
            for gid, (seat, acked) in games.items():
                status, state = server.request("GET", f"/api/games/{gid}")
                stored = [h["full"] for h in state["history"]] if status == 200 else []
                acknowledged += len(acked) - start_len[gid]
                if stored[: len(acked)] != acked:
                    lost += 1
                    print(f"round {rnd + 1}: game {gid} lost moves: acknowledged {len(acked)}, "
                          f"stored {len(stored)}")
                # Start the next round from what is stored (a move in flight may have landed).
                acked[:] = stored
        print(f"{a.rounds} rounds of kill -9 with {a.games} games played at once: "
              f"{acknowledged} moves acknowledged and found after the restarts, {lost} games with lost "
              f"moves")
    finally:
        server.stop()
    raise SystemExit(1 if lost else 0)


if __name__ == "__main__":
    main()
