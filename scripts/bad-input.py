#!/usr/bin/env python3
"""Bad input against a running server: malformed requests, oversized bodies, wrong Host and
Origin, slowloris heads, idle connections beyond the cap. Starts its own `damspel serve`
(DAMSPEL_BIN or target/release/damspel) on loopback with a fresh database, prints what each
case got and how long it took, and checks the server still answers a normal request after
each. Bounded: a few hundred connections, about a minute.

    python3 scripts/bad-input.py [--idle 600]
"""

import argparse
import socket
import time

from serverlib import Server, now


def raw(server, data, wait=15.0):
    """Sends bytes, returns (first line of the answer or 'closed'/'open', seconds)."""
    s = socket.create_connection(("127.0.0.1", server.port))
    s.settimeout(wait)
    t = now()
    try:
        s.sendall(data)
        got = s.recv(4096)
        line = got.split(b"\r\n")[0].decode("latin-1") if got else "closed"
    except socket.timeout:
        line = "open"
    except OSError as e:
        line = f"closed ({e.__class__.__name__})"
    finally:
        s.close()
    return line, now() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--idle", type=int, default=600, help="idle connections to open")
    a = ap.parse_args()
    server = Server("--max-connections", "512")
    h = server.host
    ok = 0
    try:
        _, seat = server.new_game("turkish")
        cases = [
            ("malformed JSON", f"POST /api/games HTTP/1.1\r\nHost: {h}\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{{not json"),
            ("text/plain body", f"POST /api/games HTTP/1.1\r\nHost: {h}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{{}}"),
            ("form body", f"POST /api/games HTTP/1.1\r\nHost: {h}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\na=b"),
            ("10 GB Content-Length, no body", f"POST /api/games HTTP/1.1\r\nHost: {h}\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n"),
            ("wrong Host (DNS rebinding)", "GET /api/games HTTP/1.1\r\nHost: attacker.example\r\n\r\n"),
            ("no Host", "GET /api/games HTTP/1.0\r\n\r\n"),
            ("cross-site Origin", f"POST /api/games HTTP/1.1\r\nHost: {h}\r\nOrigin: http://attacker.example\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"),
            ("garbage request line", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"),
            ("huge header", f"GET / HTTP/1.1\r\nHost: {h}\r\nX-Big: {'a' * 200_000}\r\n\r\n"),
            ("half-sent head (slowloris)", f"GET / HTTP/1.1\r\nHost: {h}\r\nX-Slow: "),
            ("body that stops half way", f"POST /api/games HTTP/1.1\r\nHost: {h}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"variant\":"),
            ("idle connection", ""),
        ]
        for name, data in cases:
            line, took = raw(server, data.encode("latin-1"), wait=60)
            status, _ = server.request("GET", "/api/variants")
            ok += status == 200
            print(f"{name:32} -> {line:40} after {took:6.2f} s; server still answers: {status == 200}")
        # A 2 MiB body: answered 413 as soon as its Content-Length is read (the server then
        # closes the connection rather than read the rest).
        body = b'{"variant": "turkish", "pdn": "' + b"1" * (2 << 20) + b'"}'
        head = (f"POST /api/games/import HTTP/1.1\r\nHost: {h}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        s = socket.create_connection(("127.0.0.1", server.port))
        s.settimeout(10)
        t = now()
        try:
            s.sendall(head + body)
        except OSError:
            pass
        try:
            line = s.recv(4096).split(b"\r\n")[0].decode()
        except OSError as e:
            line = f"closed ({e.__class__.__name__})"
        s.close()
        print(f"{'2 MiB JSON body':32} -> {line:40} after {now() - t:6.2f} s")
        # Idle connections beyond the cap, then a normal client.
        socks = []
        t = now()
        for _ in range(a.idle):
            try:
                socks.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            except OSError:
                break
        time.sleep(0.5)
        t2 = now()
        status, _ = server.request("GET", "/api/variants", timeout=30)
        print(f"{a.idle} idle connections opened in {t2 - t:.2f} s; a new client then gets {status} "
              f"in {now() - t2:.3f} s")
        closed = 0
        deadline = now() + 20
        for s in socks:
            s.settimeout(max(0.01, deadline - now()))
            try:
                if s.recv(1) == b"":
                    closed += 1
            except OSError:
                closed += 1
            s.close()
        print(f"idle connections closed by the server within 20 s: {closed} of {len(socks)}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
