#!/usr/bin/env python3
"""Time `damspel atlas report` on a large made-up atlas database (the contract's tables, random
but well-formed rows): VARIANTS variants x GAMES games x about PLIES plies each.

    python3 scripts/bench-atlas-report.py [--bin target/release/damspel] [--variants 50]
        [--games 400] [--plies 120] [--dir /tmp/atlas-bench]

Prints the database's size, the rows, and the report's wall time and peak memory (from
/usr/bin/time when present)."""

import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import time

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (variant TEXT NOT NULL, budget TEXT NOT NULL, seed INTEGER NOT NULL,
  opening_plies INTEGER NOT NULL, PRIMARY KEY (variant, budget));
CREATE TABLE games (variant TEXT NOT NULL, budget TEXT NOT NULL, pair INTEGER NOT NULL,
  game INTEGER NOT NULL, opening TEXT NOT NULL, opening_fen TEXT NOT NULL, result TEXT NOT NULL,
  reason TEXT NOT NULL, plies INTEGER NOT NULL, pdn TEXT NOT NULL,
  PRIMARY KEY (variant, budget, pair, game));
CREATE TABLE plies (variant TEXT NOT NULL, budget TEXT NOT NULL, pair INTEGER NOT NULL,
  game INTEGER NOT NULL, ply INTEGER NOT NULL, mover TEXT NOT NULL, legal INTEGER NOT NULL,
  captured INTEGER NOT NULL, promotes INTEGER NOT NULL, eval INTEGER,
  men_first INTEGER NOT NULL, kings_first INTEGER NOT NULL,
  men_second INTEGER NOT NULL, kings_second INTEGER NOT NULL,
  PRIMARY KEY (variant, budget, pair, game, ply));
INSERT INTO meta VALUES ('schema', '1');
"""


def make(path, variants, games, plies, seed=1):
    rng = random.Random(seed)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    rows = 0
    for v in range(variants):
        name, budget = f"variant{v:02}", "nodes=20000"
        db.execute("INSERT INTO runs VALUES (?, ?, 1, 6)", (name, budget))
        for g in range(games):
            pair, game = divmod(g, 2)
            n = max(10, int(rng.gauss(plies, plies / 4)))
            result = rng.choice(["first", "second", "draw", "draw"])
            reason = "no-moves" if result != "draw" else rng.choice(["repetition", "no-progress"])
            db.execute("INSERT INTO games VALUES (?,?,?,?,'',?,?,?,?,'')",
                       (name, budget, pair, game, f"fen{rng.randrange(games)}", result, reason, n))
            mf = ms = 20
            kf = ks = 0
            sign = {"first": 1, "second": -1, "draw": 0}[result]
            batch = []
            for p in range(n):
                cap = rng.choice([0, 0, 0, 0, 1, 1, 2])
                if p % 2 == 0:
                    ms = max(1, ms - cap)
                else:
                    mf = max(1, mf - cap)
                prom = int(p > 40 and rng.random() < 0.03)
                if prom:
                    if p % 2 == 0 and mf > 1:
                        mf, kf = mf - 1, kf + 1
                    elif ms > 1:
                        ms, ks = ms - 1, ks + 1
                ev = None if p < 6 else sign * p * 2 + (mf - ms) * 100 + (kf - ks) * 300 + rng.randrange(-40, 40)
                batch.append((name, budget, pair, game, p, "first" if p % 2 == 0 else "second",
                              rng.randrange(1, 20), cap, prom, ev, mf, kf, ms, ks))
            db.executemany("INSERT INTO plies VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", batch)
            rows += n
        db.commit()
    db.close()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/damspel")
    ap.add_argument("--variants", type=int, default=50)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--plies", type=int, default=120)
    ap.add_argument("--dir", default="/tmp/atlas-bench")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    db = os.path.join(a.dir, "atlas.db")
    t = time.time()
    rows = make(db, a.variants, a.games, a.plies)
    print(f"made {db}: {a.variants} variants x {a.games} games, {rows} plies, "
          f"{os.path.getsize(db) / 1e6:.0f} MB in {time.time() - t:.0f} s")
    out = os.path.join(a.dir, "report")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [a.bin, "atlas", "report", "--db", db, "--out", out]
    if os.path.exists("/usr/bin/time"):
        cmd = ["/usr/bin/time", "-f", "peak memory %M KiB"] + cmd
    t = time.time()
    subprocess.run(cmd, check=True)
    print(f"report: {time.time() - t:.1f} s wall, {len(os.listdir(out))} files")


if __name__ == "__main__":
    main()
