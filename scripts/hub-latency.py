#!/usr/bin/env python3
"""How fast `damspel hub` answers `ping`, `stop` and `quit` while it is busy.

Runs the engine through slow work (a position whose capture generation is slow, a search with
many threads, a large hash table) and prints the latency of each answer, for docs/reliability.md.
Bounded: every wait has a time limit, and the engine is killed at the end.

    scripts/hub-latency.py [--quick] [path/to/damspel]   (default: target/release/damspel)

--quick leaves out the slow capture generation (about a minute with today's generator).
"""

import subprocess
import sys
import threading
import time
import queue

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
BINARY = ARGS[0] if ARGS else "target/release/damspel"

# The audit's slow position (issue 10): Universal checkers, White to move, one king against 22.
SLOW_KINGS_BLACK = "a3 a6 b6 b8 c1 c2 c5 c6 d2 d7 e1 e2 e3 e4 e6 f2 f5 g2 g3 g5 g7 h5".split()
SLOW_KING_WHITE = "b7"


def hub_position_8x8_all(white_kings, black_kings, side="W"):
    """A Hub position of an 8x8 all-squares board: squares a1, b1, ..., h1, a2, ..., h8."""
    cells = ["e"] * 64
    for name, piece in [(s, "W") for s in white_kings] + [(s, "B") for s in black_kings]:
        file, rank = ord(name[0]) - ord("a"), int(name[1:]) - 1
        cells[rank * 8 + file] = piece
    return side + "".join(cells)


class Hub:
    def __init__(self):
        self.proc = subprocess.Popen(
            [BINARY, "hub"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.lines = queue.Queue()
        self.passed = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\n")))

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        return time.monotonic()

    def until(self, prefix, timeout):
        """(time, line) of the first line starting with `prefix`, not taken yet (None: not
        within timeout). Lines passed over stay for later calls."""
        for i, (at, line) in enumerate(self.passed):
            if line.startswith(prefix):
                del self.passed[i]
                return at, line
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, None
            try:
                at, line = self.lines.get(timeout=left)
            except queue.Empty:
                return None, None
            if line.startswith(prefix):
                return at, line
            self.passed.append((at, line))

    def ready(self, timeout):
        self.until("ready", timeout)

    def ping(self, timeout=30):
        sent = self.send("ping")
        at, _ = self.until("pong", timeout)
        return None if at is None else at - sent

    def handshake(self, variant, extra=()):
        self.send("hub")
        self.until("wait", 30)
        # The declared maxima (`param name=threads ... max=N`).
        self.maxima = {}
        for _, line in self.passed:
            if line.startswith("param name=") and " max=" in line:
                name = line.split()[1].split("=")[1]
                self.maxima[name] = int(line.split(" max=")[1].split()[0])
        self.send(f"set-param name=variant value={variant}")
        for line in extra:
            self.send(line)
        self.send("init")

    def close(self):
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.wait()


def ms(seconds):
    return "no answer" if seconds is None else f"{seconds * 1000:.1f} ms"


def slow_generation():
    print("Universal, the audit's position (slow capture generation), level move-time=1:")
    hub = Hub()
    try:
        hub.handshake("universal")
        hub.ready(30)
        pos = hub_position_8x8_all([SLOW_KING_WHITE], SLOW_KINGS_BLACK)
        hub.send(f"pos pos={pos}")
        hub.send("level move-time=1")
        go = hub.send("go think")
        time.sleep(0.2)
        pings = [hub.ping(timeout=300) for _ in range(5)]
        print("  ping during the search:", ", ".join(ms(p) for p in pings))
        at, line = hub.until("done", 300)
        print(f"  done after {ms(None if at is None else at - go)}: {line}")
        # stop during the same slow work
        hub.send("level infinite")
        hub.send("go analyze")
        time.sleep(0.3)
        stop = hub.send("stop")
        at, line = hub.until("done", 300)
        print(f"  stop during go analyze: done after {ms(None if at is None else at - stop)}")
        # a pos whose moves need the slow generation, then ping
        hub.send(f"pos pos={pos} moves=\"b7xh8\"")
        print("  ping right after a pos with a move to check:", ms(hub.ping(timeout=300)))
        hub.send("level move-time=1")
        hub.send("go think")
        time.sleep(0.2)
        quit_at = hub.send("quit")
        try:
            hub.proc.wait(timeout=300)
            print(f"  quit during the search: exit after {ms(time.monotonic() - quit_at)}")
        except subprocess.TimeoutExpired:
            print("  quit during the search: still running after 300 s")
    finally:
        hub.close()


def big_hash_and_threads():
    print("International, hash=4096 and threads=64 (then the most threads declared):")
    hub = Hub()
    try:
        hub.handshake("international", ["set-param name=hash value=4096"])
        time.sleep(0.01)
        print("  ping during init:", ms(hub.ping(timeout=120)))
        hub.ready(120)
        hub.send(f"set-param name=threads value={min(64, hub.maxima['threads'])}")
        hub.send("init")
        hub.ready(120)
        hub.send("new-game")
        print("  ping during new-game (clearing the table):", ms(hub.ping(timeout=120)))
        hub.send("pos start")
        hub.send("level move-time=0.5")
        go = hub.send("go think")
        time.sleep(0.1)
        pings = [hub.ping(timeout=120) for _ in range(3)]
        print("  ping during a search with 64 threads (or the most):", ", ".join(ms(p) for p in pings))
        at, _ = hub.until("done", 120)
        print(f"  done after {ms(None if at is None else at - go)} (move-time 0.5 s)")
        most = hub.maxima["threads"]
        hub.send(f"set-param name=threads value={most}")
        hub.send("init")
        hub.ready(120)
        hub.send("level move-time=3")
        go = hub.send("go think")
        pings = []
        for _ in range(20):
            time.sleep(0.1)
            pings.append(hub.ping(timeout=120))
        print(f"  20 pings during a {most}-thread search, one every 0.1 s:",
              ", ".join(ms(p) for p in pings))
        pings.sort()
        print(f"  median {ms(pings[10])}, max {ms(pings[-1])}")
        at, _ = hub.until("done", 120)
        print(f"  done after {ms(None if at is None else at - go)} (move-time 3 s)")
    finally:
        hub.close()


if __name__ == "__main__":
    big_hash_and_threads()
    if "--quick" not in sys.argv:
        slow_generation()
