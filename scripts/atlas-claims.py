#!/usr/bin/env python3
"""The seeds' character claims (docs/atlas.md), measured on an atlas database.

Reads the table of `cargo run --release -p damspel-atlas-report --example atlas_table -- DB`
on stdin and prints one Markdown row per claim: the compared variants, the figures with their
95% intervals, the games, and the verdict by a fixed rule:

- a claim of a difference ("fewer draws", "earlier promotions") is *supported* when the two
  intervals separate in the claimed direction, *not supported* when they separate the other
  way, and *undecided at this sample size* when they overlap;
- a claim of no difference ("does not change the character much") is *not supported* when
  any of its figures' intervals separate, and *supported at this precision* otherwise.

Usage: atlas_table atlas.db | scripts/atlas-claims.py
"""
import re
import sys

rows = {}
header = None
for line in sys.stdin:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if header is None and cells and cells[0] == "variant":
        header = cells
        continue
    if header is None or len(cells) != len(header) or cells[0].startswith("-"):
        continue
    rows[cells[0]] = dict(zip(header, cells))


def figure(variant, metric):
    text = rows[variant][metric]
    m = re.match(r"(-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\]", text)
    if not m:
        return None
    return tuple(float(x) for x in m.groups())


def compare(a, b, metric, direction):
    """direction: -1 if the claim says a < b, +1 if a > b, 0 if about equal."""
    fa, fb = figure(a, metric), figure(b, metric)
    text = f"{metric} {rows[a][metric]} vs {rows[b][metric]}"
    if fa is None or fb is None:
        return text, "undecided (no estimate)"
    if fa[2] < fb[1]:
        sep = -1
    elif fa[1] > fb[2]:
        sep = 1
    else:
        sep = 0
    if direction == 0:
        return text, "differ" if sep else "alike"
    if sep == direction:
        return text, "supported"
    if sep == -direction:
        return text, "not supported"
    return text, "undecided"


CLAIMS = [
    # (claim, seed, a, b, [(metric, direction)], kind)
    ('Deferred backwards capture "vouches for a less drawish game", "a significant improvement"',
     "004", "deferred", "international", [("draw rate", -1)], "diff"),
    ('Killer rule (4.03) "an overly radical departure from the standard rules" (measurable part: far fewer draws than without it)',
     "004", "deferred-killer", "deferred", [("draw rate", -1)], "diff"),
    ('Killer light (4.04) "would definitely solve the draw problem"',
     "004", "deferred-killer-light", "international", [("draw rate", -1)], "diff"),
    ('Sequential halt rule II (4.06) "would definitely solve the draw problem"',
     "004", "deferred-halt-2", "international", [("draw rate", -1)], "diff"),
    ('With halt rule II "middlegame play is hardly affected"',
     "004", "deferred-halt-2", "deferred",
     [("branching", 0), ("captures per ply", 0), ("plies", 0)], "same"),
    ('The sequential halt rule (4.05) "reduces the power of the King too much during the middlegame"',
     "004", "deferred-halt", "deferred", [("a king in men", -1)], "diff"),
    ('Modified Turkish "allows many more opening strategies"',
     "000", "modified-turkish", "turkish", [("branching", 1)], "diff"),
    ('Modified Turkish "creates greater variance"',
     "000", "modified-turkish", "turkish", [("draw rate", -1)], "diff"),
    ('Modified Gothic "accelerates the development of the Men"',
     "000", "modified-gothic", "gothic", [("first promotion ply", -1)], "diff"),
    ('Modified Gothic "increases variance"',
     "000", "modified-gothic", "gothic", [("draw rate", -1)], "diff"),
    ('Bosnian\'s backward jump "does not seem to change the character of the game much"',
     "000", "bosnian", "turkish",
     [("plies", 0), ("lead changes", 0), ("branching", 0), ("captures per ply", 0)], "same"),
    ('Babylonian "is very good" (measurable part: fewer draws than International)',
     "001", "babylonian", "international", [("draw rate", -1)], "diff"),
]

print("| claim (seed) | compared | games | measured (95% intervals) | verdict |")
print("|---|---|---|---|---|")
for claim, seed, a, b, metrics, kind in CLAIMS:
    if a not in rows or b not in rows:
        print(f"| {claim} ({seed}) | {a} vs {b} | – | not in the database | – |")
        continue
    texts, verdicts = [], []
    for metric, direction in metrics:
        t, v = compare(a, b, metric, direction)
        texts.append(t)
        verdicts.append(v)
    if kind == "same":
        differ = [m for (m, _), v in zip(metrics, verdicts) if v == "differ"]
        verdict = ("not supported: " + ", ".join(differ) + " differ (the intervals separate)"
                   if differ else "supported at this precision: every interval overlaps")
    else:
        verdict = {"supported": "supported: the intervals separate in the claimed direction",
                   "not supported": "not supported: the intervals separate the other way",
                   "undecided": "undecided at this sample size: the intervals overlap"}.get(
                       verdicts[0], verdicts[0])
    games = f"{rows[a]['games']} + {rows[b]['games']}"
    print(f"| {claim} ({seed}) | {a} vs {b} | {games} | {'; '.join(texts)} | {verdict} |")
