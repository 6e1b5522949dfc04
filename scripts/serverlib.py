"""Shared helpers of the server scripts (load.py, kill9.py, bad-input.py): start a
`damspel serve` on loopback with a fresh database, and talk to it with the standard library.

Loopback only: every request goes to 127.0.0.1 on the port the server printed.
"""

import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def binary():
    """The damspel binary: $DAMSPEL_BIN, else target/release/damspel."""
    path = os.environ.get("DAMSPEL_BIN") or os.path.join(ROOT, "target", "release", "damspel")
    if not os.access(path, os.X_OK):
        sys.exit(f"no damspel binary at {path}: run `cargo build --release` or set DAMSPEL_BIN")
    return path


class Server:
    """A `damspel serve --port 0` on 127.0.0.1 and a database in a temporary directory."""

    def __init__(self, *args, db=None):
        self.dir = tempfile.mkdtemp(prefix="damspel-script-")
        self.db = db or os.path.join(self.dir, "games.db")
        self.args = list(args)
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [binary(), "serve", "--host", "127.0.0.1", "--port", "0", "--db", self.db, *self.args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not m:
            raise RuntimeError(f"serve did not start: {line!r} {self.proc.stderr.read()}")
        self.port = int(m.group(1))
        self.host = f"127.0.0.1:{self.port}"

    def kill9(self):
        """SIGKILL to this script's own server process, by its pid."""
        self.proc.kill()
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def request(self, method, path, body=None, headers=None, timeout=30):
        """(status, parsed JSON or text) of one request on a fresh connection."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            h = dict(headers or {})
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                h.setdefault("Content-Type", "application/json")
            conn.request(method, path, body=data, headers=h)
            r = conn.getresponse()
            text = r.read().decode("utf-8", "replace")
            try:
                return r.status, json.loads(text)
            except ValueError:
                return r.status, text
        finally:
            conn.close()

    def new_game(self, variant="turkish", **fields):
        status, state = self.request("POST", "/api/games", {"variant": variant, **fields})
        if status != 201:
            raise RuntimeError(f"new game: {status} {state}")
        return state, ",".join(state.get("seats", {}).values())


def percentiles(values, ps=(50, 90, 99)):
    if not values:
        return {p: float("nan") for p in ps}
    s = sorted(values)
    return {p: s[min(len(s) - 1, int(len(s) * p / 100))] for p in ps}


def now():
    return time.monotonic()
