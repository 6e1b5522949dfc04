#!/usr/bin/env python3
"""Drives `damspel dxp --listen --keep-listening` through complete games with pydraughts' DXP
client.

Usage: python scripts/dxp_pydraughts.py PATH/TO/damspel [GAMES] [--at-once]

pydraughts (PyPI `pydraughts`) holds an independent DXP client (`DXPEngine`, adapted from
akalverboer's DXC100) and independent rules of International draughts; draughts bots (such as
lidraughts-bot) use it to play engines that listen for DXP, as Kingsrow and Scan do: a new
`DXPEngine`, and so a new connection, for every game, ended by a GAMEEND with stop code 1.
So one `damspel dxp --listen 127.0.0.1:0 --keep-listening` serves all the games
here, each from a new connection made the way those users make it (`engine.play(board)`
whenever it is the engine's turn). Damspel plays White in odd games and Black in even ones;
from the third game on, the game starts from a position reached by random play (the client
then sends it in its GAMEREQ). The client's own moves are drawn at random among pydraughts'
legal moves. In the first game the client takes the game back once (`engine.takeback`, a
BACKREQ to move 3 at the tenth ply): Damspel must accept, agree on the position
and move again.

With `--at-once` the games are played at the same time, each client on a thread of its own
(a bot playing several games), against `--keep-listening --peers GAMES`; the results Damspel
logs must then be those pydraughts sees, in any order.

Every move Damspel sends must be one of pydraughts' legal moves and come within MOVE_WAIT
seconds (the client waits for ever on a move it cannot read, so the wait is bounded here), the
game must end by pydraughts' rules within MAX_PLIES, and after the client's GAMEEND and
disconnect Damspel must log the result pydraughts sees and be ready for the next peer within
10 s. Prints one line per game and "N complete games"; exits 1 on the first failure, saying
why.
"""

import os
import random
import subprocess
import sys
import threading
import time

try:
    import draughts
    from draughts.engine import DXPEngine
except ImportError as e:  # pragma: no cover - the Rust test reports this
    print(f"pydraughts is not installed: {e}", file=sys.stderr)
    sys.exit(2)

MAX_PLIES = 400
MOVE_TIME = "0.02"
MOVE_WAIT = 15.0
RANDOM_START_PLIES = 24
# In the first game (from the start, Damspel White), at ply TAKE_BACK_AT the client takes the
# game back to move TAKE_BACK_TO, White to move.
TAKE_BACK_AT = 10
TAKE_BACK_TO = 3


def fail(message: str) -> None:
    print(f"FAIL: {message}", file=sys.stderr)
    sys.stderr.flush()
    # The client's receiving thread may be blocked for ever: leave without joining it.
    os._exit(1)


class Listener:
    """The `damspel dxp` process and the lines of its log, read as they come."""

    def __init__(self, binary: str, peers: int) -> None:
        # Port 0: the system picks a free one, which the first line of the log names.
        self.process = subprocess.Popen(
            [binary, "dxp", "--listen", "127.0.0.1:0", "--keep-listening",
             "--peers", str(peers), "--time", MOVE_TIME],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list = []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, count: int, text: str, seconds: float) -> bool:
        """Whether the log holds `count` lines containing `text` within `seconds`."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            if sum(text in line for line in self.lines) >= count:
                return True
            if self.process.poll() is not None:
                time.sleep(0.2)
                return sum(text in line for line in self.lines) >= count
            time.sleep(0.05)
        return False

    def port(self) -> int:
        """The port of `dxp: listening on 127.0.0.1:PORT (...)`."""
        line = next(line for line in self.lines if "listening on" in line)
        return int(line.split("listening on ")[1].split()[0].rsplit(":", 1)[1])

    def log(self) -> str:
        return "\n".join(self.lines[-40:])


def start_board(rng: random.Random, number: int) -> draughts.Board:
    board = draughts.Board(variant="standard")
    if number < 3:
        return board
    for _ in range(RANDOM_START_PLIES):
        if board.is_over():
            break
        board.push(rng.choice(board.legal_moves()))
    return draughts.Board(variant="standard", fen=board.fen)


def engine_move(engine: DXPEngine, board: draughts.Board, name: str):
    answer = {}

    def ask() -> None:
        answer["result"] = engine.play(board)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    thread.join(MOVE_WAIT)
    if "result" not in answer:
        fail(f"{name}: no move the client could read within {MOVE_WAIT} s; fen {board.fen}")
    return answer["result"].move


def take_back(engine: DXPEngine, board: draughts.Board, name: str):
    """pydraughts' take-back to move TAKE_BACK_TO with Damspel to move: Damspel must accept,
    agree with pydraughts on the position, and move again, legally (a BACKACC and the move
    right behind it, which pydraughts reads as it reads a GAMEACC and a move)."""
    color = board.turn
    ply = (TAKE_BACK_TO - 1) * 2 + (0 if color == draughts.WHITE else 1)
    answer = {}

    def ask() -> None:
        answer["result"] = engine.takeback(TAKE_BACK_TO, color)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    thread.join(MOVE_WAIT)
    if "result" not in answer:
        fail(f"{name}: no answer to the take-back the client could read within {MOVE_WAIT} s")
    accepted, back, played = answer["result"]
    while len(board.move_stack) > ply:
        board.pop()
    if not accepted or back.fen != board.fen:
        fail(f"{name}: take-back to move {TAKE_BACK_TO}: accepted {accepted}, client at "
             f"{back.fen}, expected {board.fen}")
    legal = {m.hub_move for m in board.legal_moves()}
    if played.move is None or played.move.hub_move not in legal:
        fail(f"{name}: after the take-back Damspel's {played.move and played.move.hub_move} "
             f"is not among {sorted(legal)}")
    return played.move


def play_game(listener: Listener, port: int, number: int, rng: random.Random) -> str:
    name = f"game {number}"
    board = start_board(rng, number)
    start_fen = board.fen
    engine_side = board.turn if number % 2 == 1 else 3 - board.turn
    engine = DXPEngine(options={"engine-opened": True, "ip": "127.0.0.1", "port": port})
    if board.turn != engine_side:
        # The client's first move goes with its game request.
        board.push(rng.choice(board.legal_moves()))
    plies = 0
    taken_back = False
    while not board.is_over():
        if plies >= MAX_PLIES:
            fail(f"{name}: not over after {MAX_PLIES} plies; fen {board.fen}")
        if board.turn == engine_side and number == 1 and plies == TAKE_BACK_AT and not taken_back:
            move = take_back(engine, board, name)
            plies = len(board.move_stack)
            taken_back = True
        elif board.turn == engine_side:
            move = engine_move(engine, board, name)
            legal = {m.hub_move for m in board.legal_moves()}
            if move is None or move.hub_move not in legal:
                fail(f"{name}: Damspel's {move and move.hub_move} is not among {sorted(legal)}")
        else:
            move = rng.choice(board.legal_moves())
        board.push(move)
        plies += 1
    engine.quit()
    winner = board.winner()
    side = "white" if engine_side == draughts.WHITE else "black"
    result = {draughts.WHITE: "white wins", draughts.BLACK: "black wins", 0: "draw"}[winner]
    print(f"{name}: Damspel {side}, from {start_fen}, {plies} plies, {result}")
    return result


def logged(result: str) -> str:
    """The text of Damspel's result line for pydraughts' result."""
    return {"white wins": "result 1-0", "black wins": "result 0-1"}.get(result, "result 1/2-1/2")


def check_one_by_one(listener: Listener, number: int, result: str) -> None:
    """Game `number` has just ended: its result is the last one logged."""
    if not listener.wait_for(number, "waiting for the next peer", 10):
        fail(f"game {number}: Damspel did not wait for the next peer within 10 s of the "
             f"client's GAMEEND:\n{listener.log()}")
    results = [line for line in listener.lines if "dxp: result " in line]
    if len(results) < number or logged(result) not in results[-1]:
        fail(f"game {number}: pydraughts sees {result}, Damspel logged:\n{listener.log()}")


def play_at_once(listener: Listener, port: int, games: int, rng: random.Random) -> list:
    """All the games at the same time; Damspel's results are checked, in any order."""
    rngs = [random.Random(rng.random()) for _ in range(games)]
    results: dict = {}

    def play(n: int) -> None:
        results[n] = play_game(listener, port, n + 1, rngs[n])

    threads = [threading.Thread(target=play, args=(n,), daemon=True) for n in range(games)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(MAX_PLIES * MOVE_WAIT)
    if len(results) < games:
        fail(f"{games - len(results)} game(s) did not end:\n{listener.log()}")
    if not listener.wait_for(games, " gone; ", 10):
        fail(f"Damspel did not let every peer go within 10 s:\n{listener.log()}")
    found = sorted(line.split("] ", 1)[1].split(" (")[0]
                   for line in listener.lines if "] result " in line)
    expected = sorted(logged(r) for r in results.values())
    if found != expected:
        fail(f"pydraughts sees {expected}, Damspel logged {found}:\n{listener.log()}")
    return [results[n] for n in range(games)]


def main() -> None:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    binary = sys.argv[1]
    at_once = "--at-once" in sys.argv[2:]
    numbers = [a for a in sys.argv[2:] if a != "--at-once"]
    games = int(numbers[0]) if numbers else 2
    rng = random.Random(1)
    start = time.time()
    listener = Listener(binary, games if at_once else 1)
    if not listener.wait_for(1, "listening on", 10):
        fail(f"damspel dxp did not listen within 10 s:\n{listener.log()}")
    port = listener.port()
    try:
        if at_once:
            results = play_at_once(listener, port, games, rng)
        else:
            results = []
            for n in range(games):
                results.append(play_game(listener, port, n + 1, rng))
                check_one_by_one(listener, n + 1, results[-1])
        if listener.process.poll() is not None:
            fail(f"damspel dxp ended (exit {listener.process.returncode}):\n{listener.log()}")
    finally:
        listener.process.terminate()
    print(f"{len(results)} complete games ({', '.join(results)}) in {time.time() - start:.1f} s")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
