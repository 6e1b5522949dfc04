#!/usr/bin/env python3
"""Load on loopback: how fast GETs answer while engine searches, PDN imports and costly move
generation run. Starts its own `damspel serve` (DAMSPEL_BIN or target/release/damspel) with a
fresh database, runs for --seconds (default 20), prints latency percentiles, and stops.

    python3 scripts/load.py [--seconds 20] [--readers 8] [--searchers 4] [--importers 2]
"""

import argparse
import random
import threading

from serverlib import Server, now, percentiles

# Universal checkers, 20 black kings: costly capture generation with the generator the audit
# of issue 10 measured (about a second); milliseconds with a generator that merges states.
SLOW_FEN = "W:WKb7:BKa3,Ka6,Kb6,Kb8,Kc1,Kc2,Kc5,Kc6,Kd2,Kd7,Ke1,Ke2,Ke3,Ke4,Ke6,Kf2,Kf5,Kg2,Kg3,Kg5"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--readers", type=int, default=8)
    ap.add_argument("--searchers", type=int, default=4)
    ap.add_argument("--importers", type=int, default=2)
    ap.add_argument("--slow", type=int, default=2, help="clients creating costly positions")
    a = ap.parse_args()
    server = Server("--searches", "2")
    try:
        # A game of 60 plies to read and to import again and again.
        state, seat = server.new_game("international", white="human", black="human")
        gid = state["id"]
        for _ in range(60):
            if state["outcome"] or not state["legal"]:
                break
            mv = random.choice(state["legal"])["full"]
            _, state = server.request("POST", f"/api/games/{gid}/move", {"move": mv},
                                      {"X-Damspel-Seat": seat})
        _, pdn = server.request("GET", f"/api/games/{gid}/pdn")
        stop_at = now() + a.seconds
        lat = {"GET game": [], "GET variants": []}
        counts = {"search": 0, "import": 0, "slow": 0, "errors": 0, "busy (503)": 0}
        lock = threading.Lock()

        def reader(i):
            while now() < stop_at:
                path, key = ((f"/api/games/{gid}", "GET game") if i % 2 == 0
                             else ("/api/variants", "GET variants"))
                t = now()
                status, _ = server.request("GET", path)
                with lock:
                    lat[key].append((now() - t) * 1000)
                    if status != 200:
                        counts["errors"] += 1

        def searcher():
            st, s = server.new_game("international", white="human", black="human")
            while now() < stop_at:
                status, _ = server.request("POST", f"/api/games/{st['id']}/hint", {"time": 1.0},
                                           {"X-Damspel-Seat": s})
                with lock:
                    counts["search" if status == 200 else "busy (503)" if status == 503
                           else "errors"] += 1

        def importer():
            while now() < stop_at:
                status, _ = server.request("POST", "/api/games/import",
                                           {"variant": "international", "pdn": pdn})
                with lock:
                    counts["import" if status == 201 else "busy (503)" if status == 503
                           else "errors"] += 1

        def slow():
            while now() < stop_at:
                status, _ = server.request("POST", "/api/games",
                                           {"variant": "universal", "fen": SLOW_FEN}, timeout=120)
                with lock:
                    counts["slow" if status == 201 else "busy (503)" if status == 503
                           else "errors"] += 1

        threads = ([threading.Thread(target=reader, args=(i,)) for i in range(a.readers)]
                   + [threading.Thread(target=searcher) for _ in range(a.searchers)]
                   + [threading.Thread(target=importer) for _ in range(a.importers)]
                   + [threading.Thread(target=slow) for _ in range(a.slow)])
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"{a.seconds:.0f} s, {a.readers} readers, {a.searchers} searchers (1 s hints, "
              f"--searches 2), {a.importers} importers (60-ply PDN), {a.slow} costly positions")
        for key, values in lat.items():
            p = percentiles(values)
            print(f"{key:13} n={len(values):6}  p50 {p[50]:7.1f} ms  p90 {p[90]:7.1f} ms  "
                  f"p99 {p[99]:7.1f} ms  max {max(values, default=float('nan')):7.1f} ms")
        print("completed:", ", ".join(f"{k} {v}" for k, v in counts.items()))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
