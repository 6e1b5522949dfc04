"""pydraughts as a move-generation oracle (driven by ../pydraughts_oracle.rs).

Reads one JSON request per line, {"variant": V, "fen": FEN}, with FEN and squares in pydraughts'
own notation for V (numbers for 'standard' and 'english', a1..h8 for 'russian' and
'brazilian'); answers one JSON line per request: every legal move as its start, end and captured
squares, with the position after it (side to move, white men, white kings, black men, black
kings)."""
import json
import sys

from draughts import Board

ALGEBRAIC = {"russian", "brazilian"}
names = {}


def square_name(variant, board, number):
    """pydraughts' internal square number as written in the variant's FEN."""
    if variant not in ALGEBRAIC:
        return str(number)
    table = names.get(variant)
    if table is None:
        # pydraughts' own conversion, read back from the FEN of a one-man board.
        table = {}
        for n in range(1, 33):
            other = 1 if n != 1 else 2
            fen = Board(variant=variant, fen=f"W:W{n}:B{other}").fen
            table[n] = fen.split(":")[1][1:]
        names[variant] = table
    return table[number]


def pieces(fen):
    side, *parts = fen.split(":")
    out = {"side": side, "wm": [], "wk": [], "bm": [], "bk": []}
    for part in parts:
        color = part[0].lower()
        for item in filter(None, part[1:].split(",")):
            king = item.startswith("K")
            out[color + ("k" if king else "m")].append(item.lstrip("K"))
    for k in ("wm", "wk", "bm", "bk"):
        out[k].sort()
    return out


for line in sys.stdin:
    request = json.loads(line)
    variant, fen = request["variant"], request["fen"]
    board = Board(variant=variant, fen=fen)
    moves = []
    for move in board.legal_moves():
        steps = move.steps_move
        after = board.copy()
        after.push(move)
        moves.append({
            "from": square_name(variant, board, steps[0]),
            "to": square_name(variant, board, steps[-1]),
            "captures": sorted(square_name(variant, board, c) for c in move.captures or []),
            "after": pieces(after.fen),
        })
    print(json.dumps({"moves": moves}), flush=True)
