#!/usr/bin/env python3
"""Opening diversity at later plies, from an atlas database: for each variant, the number of
distinct positions after k plies over the games that reached ply k, for k = the openings' random
plies and a few plies of engine play after them. The report's own metric stops at the random
plies (docs/atlas.md); this replays every stored game with `damspel pdn convert --to fen` (the
FEN of every position of the main line) and counts.

Usage: scripts/atlas-diversity.py ATLAS.db [DAMSPEL] [--after 0,4,10,20] [--variant ID ...]
Prints a Markdown table: variant, games, then "distinct / reached (share)" per k. The two games
of a pair start from the same opening, so right after it the share is at most 0.5.
"""

import argparse
import sqlite3
import subprocess
import sys
import tempfile


def positions_at(damspel, pdn_texts, variant, plies):
    """The FEN after each of `plies` plies of every game (None where a game ended before)."""
    with tempfile.NamedTemporaryFile("w", suffix=".pdn", encoding="utf-8") as f:
        f.write("\n\n".join(pdn_texts))
        f.flush()
        out = subprocess.run(
            [damspel, "pdn", "convert", "--to", "fen", "--variant", variant, f.name],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    games, current = [], None
    for line in out.splitlines():
        if line.startswith("# game "):
            current = []
            games.append(current)
        elif line.strip() and current is not None:
            current.append(line.strip())
    return [[g[k] if k < len(g) else None for k in plies] for g in games]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("damspel", nargs="?", default="target/release/damspel")
    ap.add_argument("--after", default="0,4,10,20", help="plies of engine play after the opening")
    ap.add_argument("--variant", action="append", help="only these variants")
    args = ap.parse_args()
    after = [int(a) for a in args.after.split(",")]
    db = sqlite3.connect(args.db)
    variants = [r[0] for r in db.execute("SELECT DISTINCT variant FROM games ORDER BY variant")]
    if args.variant:
        variants = [v for v in variants if v in args.variant]
    header = None
    for v in variants:
        rows = db.execute(
            "SELECT pdn, opening FROM games WHERE variant = ? ORDER BY pair, game", (v,)
        ).fetchall()
        # `opening` holds the random plies as move text ("1. b3-b4 h6-h5 2. ..."): count moves.
        opening = max(
            (sum(1 for t in r[1].split() if not t.rstrip(".").isdigit()) for r in rows),
            default=0,
        )
        # The FEN list starts with the start position: index k is the position after k plies.
        plies = [opening + a for a in after]
        if header is None:
            cols = " | ".join(f"after opening + {a}" for a in after)
            print(f"| variant | games | {cols} |")
            print("|---|---:|" + "---|" * len(after))
            header = True
        at = positions_at(args.damspel, [r[0] for r in rows], v, plies)
        cells = []
        for i in range(len(plies)):
            reached = [g[i] for g in at if g[i] is not None]
            distinct = len(set(reached))
            share = distinct / len(reached) if reached else 0.0
            cells.append(f"{distinct} / {len(reached)} ({share:.2f})")
        print(f"| {v} | {len(rows)} | " + " | ".join(cells) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
