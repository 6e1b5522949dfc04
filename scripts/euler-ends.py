#!/usr/bin/env python3
"""Where can a capture that takes every piece end? An Euler-balance test, for study.

A research tool, not run by CI (it needs scipy: `pip install scipy`). For a flying king on an
8x8 board of all squares that captures in all eight directions under deferred removal (Universal
checkers, 1.22 in the rule book), it asks, for every empty square, whether some choice of one
jump over each piece to be taken (a direction, a square before the piece, a square behind it,
on the board as it stands: under deferred removal nothing leaves it during a capture) leaves
every square as often as it enters it, except the start (left once more) and the end (entered
once more). Every capture is such a choice (its jumps form a trail), so a square where none
exists is not an end of any capture taking those pieces. Connectivity is not asked, so the
test can allow too much, never too little.

On the audit's positions with one king more (crates/conformance/data/worst-captures.tsv,
`audit + black king h1` and `... b3`) it allows exactly the ends the generator lists (8 and
10), where the parity test (crates/rules/src/movegen/parity.rs) allows 41: the generator's
walk spends 96 % of its time proving the other 33 impossible (docs/capture-trials.md). With
`--lp` the integrality is dropped: the relaxation allows every end, so no linear programme or
flow gives the test cheaply.

    python3 scripts/euler-ends.py 'W:WKb7:BKa3,...,Kh1' --skip h1
"""

import argparse
import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import lil_matrix

DIRECTIONS = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]


def square(name):
    return (int(name[1:]) - 1) * 8 + (ord(name[0]) - ord("a"))


def name(sq):
    return chr(ord("a") + sq % 8) + str(sq // 8 + 1)


def ray(sq, d):
    f, r = sq % 8, sq // 8
    while True:
        f, r = f + d[0], r + d[1]
        if not (0 <= f < 8 and 0 <= r < 8):
            return
        yield r * 8 + f


def empty_run(sq, d, occupied):
    out = []
    for s in ray(sq, d):
        if s in occupied:
            break
        out.append(s)
    return out


def may_end(start, occupied, needed, end, integral=True):
    """Whether the balance test allows a capture from `start` taking `needed` to end on `end`."""
    # Per piece and direction: the squares before it and behind it a king can jump from / to.
    jumps = []
    for u in needed:
        for d in DIRECTIONS:
            before = empty_run(u, (-d[0], -d[1]), occupied)
            behind = empty_run(u, d, occupied)
            if before and behind:
                jumps.append((u, before, behind))
    # Variables: per jump, whether it is chosen (z), its square before (a) and behind (b).
    index = {}
    for j, (_, before, behind) in enumerate(jumps):
        index[("z", j)] = len(index)
        for x in before:
            index[("a", j, x)] = len(index)
        for y in behind:
            index[("b", j, y)] = len(index)
    rows, low, high = [], [], []

    def row(coefficients, value):
        rows.append(coefficients)
        low.append(value)
        high.append(value)

    for j, (_, before, behind) in enumerate(jumps):
        row({index[("z", j)]: -1, **{index[("a", j, x)]: 1 for x in before}}, 0)
        row({index[("z", j)]: -1, **{index[("b", j, y)]: 1 for y in behind}}, 0)
    for u in needed:
        chosen = {index[("z", j)]: 1 for j, (v, _, _) in enumerate(jumps) if v == u}
        if not chosen:
            return False
        row(chosen, 1)
    for s in range(64):
        if s in occupied:
            continue
        balance = {}
        for j, (_, before, behind) in enumerate(jumps):
            if s in before:
                balance[index[("a", j, s)]] = 1
            if s in behind:
                balance[index[("b", j, s)]] = -1
        want = (s == start) - (s == end)
        if not balance:
            if want:
                return False
            continue
        row(balance, want)
    matrix = lil_matrix((len(rows), len(index)))
    for i, coefficients in enumerate(rows):
        for k, v in coefficients.items():
            matrix[i, k] = v
    answer = milp(
        c=np.zeros(len(index)),
        constraints=LinearConstraint(matrix.tocsr(), low, high),
        integrality=np.ones(len(index)) if integral else np.zeros(len(index)),
        bounds=Bounds(0, 1),
    )
    return answer.status == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fen", help="W:WK<king>:B<pieces>, White's first piece the capturing king")
    parser.add_argument("--skip", nargs="*", default=[], help="pieces the capture does not take")
    parser.add_argument("--lp", action="store_true", help="drop integrality (the relaxation)")
    args = parser.parse_args()
    _, white, black = args.fen.split(":")
    white = [p.lstrip("K") for p in white[1:].split(",")]
    black = [p.lstrip("K") for p in black[1:].split(",")]
    start = square(white[0])
    occupied = {square(p) for p in black + white[1:]}
    needed = [square(p) for p in black if p not in args.skip]
    began = time.time()
    ends = [
        name(e)
        for e in range(64)
        if e not in occupied and may_end(start, occupied, needed, e, not args.lp)
    ]
    print(f"{len(ends)} possible ends: {' '.join(ends)} ({time.time() - began:.1f} s)")


if __name__ == "__main__":
    main()
