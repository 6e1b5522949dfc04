#!/usr/bin/env python3
"""Drives `damspel hub` through complete International games with pydraughts' Hub client.

Usage: python scripts/hub_pydraughts.py PATH/TO/damspel [GAMES]

pydraughts (PyPI `pydraughts`) is an independent implementation of the Hub protocol (GUI side)
and of the International rules. Each game is played by two `damspel hub` processes, one per
colour, one limited by time per move and one by depth. Every answer must parse as a legal move
of pydraughts' own move generator (it raises otherwise), every search must report `info`
(depth, score, nodes, pv), and the game must end by pydraughts' rules (a win or a draw) within
the ply limit. Exit status 0 on success; a failure prints why and exits 1.
"""

import sys
import time

try:
    import draughts
    from draughts.engine import HubEngine, Limit
except ImportError as e:  # pragma: no cover - the Rust test reports this
    print(f"pydraughts is not installed: {e}", file=sys.stderr)
    sys.exit(2)

MAX_PLIES = 600


def fail(message: str) -> None:
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def start_engine(binary: str) -> HubEngine:
    engine = HubEngine([binary, "hub"])
    if engine.id.get("name") != "Damspel":
        fail(f"id name is {engine.id.get('name')!r}, not Damspel")
    if "international" not in engine.variants:
        fail(f"the variant parameter does not list international: {sorted(engine.variants)}")
    for option in ("variant", "threads", "hash"):
        if option not in engine.options:
            fail(f"parameter {option} is not declared: {sorted(engine.options)}")
    engine.configure({"variant": "international", "hash": "16"})
    engine.init()
    engine.ping()
    return engine


def play_game(binary: str, number: int) -> str:
    engines = {draughts.WHITE: start_engine(binary), draughts.BLACK: start_engine(binary)}
    limits = {draughts.WHITE: Limit(movetime=0.05), draughts.BLACK: Limit(depth=4)}
    board = draughts.Board(variant="standard")
    infos = 0
    try:
        while not board.is_over():
            if len(board.move_stack) >= MAX_PLIES:
                fail(f"game {number}: not over after {MAX_PLIES} plies; fen {board.fen}")
            side = board.turn
            legal = {m.hub_move for m in board.legal_moves()}
            try:
                result = engines[side].play(board, limits[side], ponder=False)
            except (KeyError, IndexError, ValueError) as e:
                fail(f"game {number}: pydraughts could not read the engine's move ({e!r}); "
                     f"fen {board.fen}")
            move = result.move
            if move is None or move.hub_move not in legal:
                fail(f"game {number}: {move and move.hub_move} is not among {sorted(legal)}")
            info = result.info or {}
            if all(k in info for k in ("depth", "score", "nodes", "pv")):
                infos += 1
            board.push(move)
        if infos * 2 < len(board.move_stack):
            fail(f"game {number}: only {infos} of {len(board.move_stack)} searches sent a full info")
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
    result = {draughts.WHITE: "2-0", draughts.BLACK: "0-2", 0: "1-1"}[winner]
    moves = " ".join(m.pdn_move for m in board.move_stack)
    print(f"game {number}: {len(board.move_stack)} plies, result {result}")
    print(f"  {moves}")
    return result


def main() -> None:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    binary = sys.argv[1]
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    start = time.time()
    results = [play_game(binary, n + 1) for n in range(games)]
    print(f"{len(results)} complete games ({', '.join(results)}) in {time.time() - start:.1f} s")


if __name__ == "__main__":
    main()
