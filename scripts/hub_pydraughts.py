#!/usr/bin/env python3
"""Drives `damspel hub` through complete games with pydraughts' Hub client.

Usage: python scripts/hub_pydraughts.py PATH/TO/damspel [GAMES] [VARIANT ...]

VARIANT is a pydraughts variant name (default: standard); the variants pydraughts and Damspel
share are standard (International), russian, brazilian, english (American checkers) and
turkish. GAMES games are played in each (default 1).

pydraughts (PyPI `pydraughts`) is an independent implementation of the Hub protocol (GUI side)
and of the rules of these variants. Each game is played by two `damspel hub` processes, one per
colour, one limited by time per move and one by depth (the colours swap from game to game).
The engines are told the variant as a pydraughts user does (`configure({"variant": NAME})`,
with pydraughts' own name). In the second game of each pair pydraughts restarts its board from
its own FEN of the current position every REROOT plies up to ply REROOT_UNTIL, so that the
engines also get `pos` positions other than the start (kings among them, once there are kings);
not later, because a board made from a FEN starts its draw counts afresh (International's
16- and 25-move rules, Russian's 15-move rule), and an endgame rerooted every 20 plies never
ends. Every answer must parse as a legal move of pydraughts' own move
generator (it raises otherwise), the engine must accept every move pydraughts sends (an
`error` line fails the run), every search must report `info` (depth, score, nodes, pv), and the
game must end by pydraughts' rules (`Board.is_over()`: a win or a draw) within the ply limit.
Exit status 0 on success; a failure prints why and exits 1.
"""

import logging
import sys
import time

try:
    import draughts
    from draughts.engine import HubEngine, Limit
except ImportError as e:  # pragma: no cover - the Rust test reports this
    print(f"pydraughts is not installed: {e}", file=sys.stderr)
    sys.exit(2)

MAX_PLIES = 600
REROOT = 20
REROOT_UNTIL = 200
# A short move time: the point is the conversation, not the play.
MOVE_TIME = 0.02
DEPTH = 4


class EngineErrors(logging.Handler):
    """pydraughts logs every line it did not expect (`error message=...` among them) as a
    warning of its "pydraughts" logger: collect them so that the run fails on any."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


ERRORS = EngineErrors()
logging.getLogger("pydraughts").addHandler(ERRORS)


def fail(message: str) -> None:
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def start_engine(binary: str, variant: str) -> HubEngine:
    engine = HubEngine([binary, "hub"])
    if engine.id.get("name") != "Damspel":
        fail(f"id name is {engine.id.get('name')!r}, not Damspel")
    for option in ("variant", "threads", "hash"):
        if option not in engine.options:
            fail(f"parameter {option} is not declared: {sorted(engine.options)}")
    engine.configure({"variant": variant, "hash": "16"})
    engine.init()
    engine.ping()
    return engine


def play_game(binary: str, variant: str, number: int) -> str:
    board = draughts.Board(variant=variant)
    first, second = board.turn, 3 - board.turn
    if number % 2 == 0:
        first, second = second, first
    engines = {first: start_engine(binary, variant), second: start_engine(binary, variant)}
    limits = {first: Limit(movetime=MOVE_TIME), second: Limit(depth=DEPTH)}
    name = f"{variant} game {number}"
    infos = 0
    plies = 0
    played = []
    try:
        while not board.is_over():
            if plies >= MAX_PLIES:
                fail(f"{name}: not over after {MAX_PLIES} plies; fen {board.fen}")
            if (number % 2 == 0 and board.move_stack and len(board.move_stack) % REROOT == 0
                    and plies < REROOT_UNTIL):
                board = draughts.Board(variant=variant, fen=board.fen)
            side = board.turn
            legal = {m.hub_move for m in board.legal_moves()}
            try:
                result = engines[side].play(board, limits[side], ponder=False)
            except (KeyError, IndexError, ValueError) as e:
                fail(f"{name}: pydraughts could not read the engine's move ({e!r}) after "
                     f"{' '.join(m.hub_move for m in board.move_stack)!r}; fen {board.fen}; "
                     f"engine said {ERRORS.lines}")
            if ERRORS.lines:
                fail(f"{name}: the engine answered {ERRORS.lines} after "
                     f"{' '.join(m.hub_move for m in board.move_stack)!r}")
            move = result.move
            if move is None or move.hub_move not in legal:
                fail(f"{name}: {move and move.hub_move} is not among {sorted(legal)}")
            info = result.info or {}
            if all(k in info for k in ("depth", "score", "nodes", "pv")):
                infos += 1
            board.push(move)
            played.append(move.hub_move)
            plies += 1
        if infos * 2 < plies:
            fail(f"{name}: only {infos} of {plies} searches sent a full info")
    finally:
        for engine in engines.values():
            engine.quit()
            try:
                engine.p.wait(timeout=5)
            except Exception:  # noqa: BLE001 - a stuck engine is a failure below
                engine.kill_process()
                fail("the engine did not quit within 5 s of `quit`")
            engine.p.stdin.close()
            engine.p.stdout.close()
    winner = board.winner()
    result = {draughts.WHITE: "white wins", draughts.BLACK: "black wins", 0: "draw"}[winner]
    print(f"{name}: {plies} plies, {result}")
    print(f"  {' '.join(played)}")
    return result


def main() -> None:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    binary = sys.argv[1]
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    variants = sys.argv[3:] or ["standard"]
    start = time.time()
    results = [play_game(binary, v, n + 1) for v in variants for n in range(games)]
    print(f"{len(results)} complete games ({', '.join(results)}) in {time.time() - start:.1f} s")


if __name__ == "__main__":
    main()
