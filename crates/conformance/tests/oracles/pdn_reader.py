"""A peer's PDN reader replaying Damspel's exports (driven by ../pdn_round_trip.rs).

Works with either library that imports as `draughts`: pydraughts (PyPI `pydraughts`) or
py-draughts (PyPI `py-draughts`), each in its own virtual environment. Reads one JSON request per
line, {"variant": DAMSPEL_ID, "pdn": TEXT}, reads the game with the peer's own PDN reader,
replays it with the peer's rules, and answers one JSON line: {"peer", "variant" (the peer's
variant, as it inferred or was given), "moves" (plies replayed), "fen" (the peer's final FEN,
its own square names), "result"} or {"error": why} or {"skip": why}.
"""
import json
import sys
import traceback

import draughts

PYDRAUGHTS = hasattr(draughts, "Board") and not hasattr(draughts, "RussianBoard")


def pydraughts(variant, text):
    from draughts.PDN import PDNReader
    from draughts import Board, Move

    games = PDNReader(pdn_text=text).games
    game = games[0]
    fen = game.tags.get("FEN", "startpos")
    moves = game.moves
    # pydraughts 0.6.7's reader gives the first move twice when the FEN has Black to move
    # (`1... 12-16` becomes 12-16, 12-16): a bug of its own (docs/pdn-export.md), undone here so
    # that the rest of the game is still checked.
    if game.variant == "english" and fen.startswith("B"):
        # In American checkers Black moves first, so `1. 10x17 31-26` from a FEN with Black to
        # move is a whole pair; pydraughts 0.6.7 keeps only its first move and drops White's.
        return {"skip": "pydraughts 0.6.7 drops White's reply in the first numbered pair of an "
                        "American game whose FEN has Black (the first player) to move"}
    doubled = fen.startswith("B") and len(moves) > 1 and moves[0] == moves[1]
    if doubled:
        moves = moves[1:]
    board = Board(variant=game.variant, fen=fen)
    for move in moves:
        board.push(Move(board, pdn_move=move))
    return {
        "peer": "pydraughts " + draughts.__version__,
        "variant": game.variant,
        "games": len(games),
        "moves": len(moves),
        "fen": board.fen,
        "result": game.game_ending,
        "first_move_doubled": doubled,
    }


PY_DRAUGHTS_BOARDS = {
    "international": "StandardBoard",
    "russian": "RussianBoard",
    "brazilian": "BrazilianBoard",
}


def py_draughts(variant, text):
    name = PY_DRAUGHTS_BOARDS.get(variant)
    if name is None:
        return {"skip": f"py-draughts {draughts.__version__} has no board for {variant} here"}
    board = getattr(draughts, name).from_pdn(text)
    fen = board.fen
    if fen.startswith("[FEN"):
        fen = fen.split('"')[1]
    return {
        "peer": "py-draughts " + draughts.__version__,
        "variant": name,
        "games": 1,
        "moves": len(board._moves_stack),
        "fen": fen,
        "result": None,
    }


for line in sys.stdin:
    request = json.loads(line)
    try:
        read = pydraughts if PYDRAUGHTS else py_draughts
        answer = read(request["variant"], request["pdn"])
    except Exception as e:  # the peer refused the game: say why, keep serving
        answer = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=3)}
    print(json.dumps(answer), flush=True)
