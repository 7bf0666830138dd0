"""A server near its file limit (`ulimit -n`) refuses connections instead of filling its file
table: a full table kills the process (libdispatch traps when it cannot open a file), so the
main port and the STOMP port together hold at most the limit less a reserve of 256 descriptors."""
import contextlib
import os
import selectors
import socket
import subprocess
import time
import urllib.request

from loopback import free_port, holds_listener

FILE_LIMIT = 400
CEILING = FILE_LIMIT - 256
CONNECTIONS = 300
# How many of CONNECTIONS a full server refuses: those past the ceiling (`_server`'s readiness
# probe has given its place back by then), one fewer or one more.
REFUSED = range(CONNECTIONS - CEILING - 1, CONNECTIONS - CEILING + 2)


def _first_bytes(connections: list[socket.socket], seconds: float, until=lambda received: False) -> dict[socket.socket, bytes]:
    """What each connection received first (b"" for a close), waiting at most `seconds` in all,
    or until `until` holds of what was received."""
    received, selector = {}, selectors.DefaultSelector()
    for connection in connections:
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ)
    deadline = time.monotonic() + seconds
    while len(received) < len(connections) and time.monotonic() < deadline and not until(received):
        for key, _ in selector.select(timeout=max(0.0, deadline - time.monotonic())):
            try:
                received[key.fileobj] = key.fileobj.recv(64)
            except OSError:
                received[key.fileobj] = b""
            selector.unregister(key.fileobj)
    selector.close()
    return received


def _ask_until_closed(port: int) -> None:
    """Asks for /health and reads until the server closes: its place is free again once this
    returns. (A probe that closed first left the server to notice, and while its event loop was
    busy accepting the test's connections, the place sometimes came back only after them.)"""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as probe:
        probe.sendall(b"GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        while probe.recv(4096):
            pass


@contextlib.contextmanager
def _server(tmp_path, *arguments: str):
    """meetupd under a file limit of FILE_LIMIT, listening on the port it yields."""
    binary = os.environ.get("MEETUPD_BIN", ".build/debug/meetupd")
    port = free_port()
    server = subprocess.Popen(["prlimit", f"--nofile={FILE_LIMIT}:{FILE_LIMIT}", binary, "serve", "--host", "127.0.0.1",
                               "--port", str(port), "--data-dir", str(tmp_path / "data"), *arguments],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, "meetupd exited at start"
            try:
                _ask_until_closed(port)
                # A STOMP port may start listening after the main one; looked up, not probed,
                # so that no connection takes a place.
                if "--stomp-port" in arguments:
                    stomp_port = int(arguments[arguments.index("--stomp-port") + 1])
                    if not holds_listener(server.pid, stomp_port):
                        raise ConnectionRefusedError(f"nothing listens on {stomp_port} yet")
                break
            except OSError:
                assert time.monotonic() < deadline, "meetupd did not start listening"
                time.sleep(0.1)
        yield server, port
    finally:
        server.kill()
        server.wait(timeout=30)


def _wait_until_healthy(port: int) -> None:
    """Waits until the main port serves again: places come back as connections close."""
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as response:
                assert response.status == 200
            return
        except OSError:
            assert time.monotonic() < deadline, "no place came back"
            time.sleep(0.2)


def test_connections_past_the_file_limit_are_refused_and_the_server_stays_up(tmp_path):
    connections = []
    with _server(tmp_path) as (server, port):
        try:
            # Nothing is sent on these: a connection the server keeps waits for its head (10 s).
            connections = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(CONNECTIONS)]
            received = _first_bytes(connections, 8)
            refused = [data for data in received.values() if data.startswith(b"HTTP/1.1 503")]
            assert len(refused) in REFUSED, (len(refused), len(received))
        finally:
            for connection in connections:
                connection.close()
        _wait_until_healthy(port)
        assert server.poll() is None


def test_the_stomp_port_counts_against_the_same_file_limit(tmp_path):
    stomp_port = free_port()
    connections = []
    with _server(tmp_path, "--stomp-port", str(stomp_port)) as (server, port):
        try:
            # Nothing is sent on these: a STOMP connection the server keeps waits for CONNECT (10 s).
            connections = [socket.create_connection(("127.0.0.1", stomp_port), timeout=10) for _ in range(CONNECTIONS)]

            def refused(received):
                return [data for data in received.values() if data.startswith(b"ERROR")]

            # Probed as soon as the places are full, well before the kept connections' 10 s
            # run out and give theirs back (after a full 8 s wait the probe sometimes came
            # after that, and was kept instead of refused).
            received = _first_bytes(connections, 8, until=lambda received: len(refused(received)) >= REFUSED.start)
            # The STOMP connections hold every place, so the main port refuses too.
            with socket.create_connection(("127.0.0.1", port), timeout=10) as probe:
                assert _first_bytes([probe], 5).get(probe, b"").startswith(b"HTTP/1.1 503")
            received.update(_first_bytes([c for c in connections if c not in received], 1))
            assert len(refused(received)) in REFUSED, (len(refused(received)), len(received))
        finally:
            for connection in connections:
                connection.close()
        _wait_until_healthy(port)
        assert server.poll() is None
