"""HTTP connections that never finish a request, idle, send too much or send garbage are
answered and closed by their deadlines and limits (issue 19, issue 20's parse errors). Every
deadline is configured short here; every wait is bounded."""
import re
import socket
import time

import pytest

WAIT = 10  # seconds a close or an answer may take on a loaded machine; never a timing assertion


def raw(server, data: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
    if data:
        sock.sendall(data)
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes; fails if it has not closed within WAIT."""
    received = b""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
    else:
        raise AssertionError(f"still open after {WAIT} s; got {received[:200]!r}")
    sock.close()
    return received


def status_of(response: bytes) -> int:
    match = re.match(rb"HTTP/1\.1 (\d{3}) ", response)
    assert match, response[:200]
    return int(match.group(1))


def metric(server, reason: str) -> float:
    deadline = time.monotonic() + WAIT
    while True:  # a 503 only means the server has not yet seen the test's sockets close
        status, _, text = server.request("GET", "/metrics")
        if status != 503 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert status == 200
    match = re.search(r'http_connections_refused_total\{reason="' + reason + r'"\} (\S+)', text)
    return float(match.group(1)) if match else 0.0


@pytest.fixture
def door(meetupd):
    return meetupd("--http-head-timeout", "1", "--http-idle-timeout", "1", "--max-request-body-bytes", "4096")


def test_slowloris_heads_get_408_and_the_close(door):
    sockets = [raw(door, b"GET /health HTTP/1.1\r\nHost: x\r\n") for _ in range(30)]
    for sock in sockets:
        assert status_of(read_until_closed(sock)) == 408
    assert metric(door, "headTimeout") >= 30


def test_a_connection_that_sends_nothing_is_closed_too(door):
    assert status_of(read_until_closed(raw(door))) == 408


def exchange(sock: socket.socket, request: bytes) -> int:
    """Sends one request on a kept-alive connection and reads its whole response; its status."""
    sock.sendall(request)
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = sock.recv(65536)
        assert chunk, "closed before the response"
        response += chunk
    head, body = response.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"(?i)\r\ncontent-length: (\d+)", head).group(1))
    while len(body) < length:
        body += sock.recv(65536)
    return status_of(head)


def test_idle_keep_alive_connections_are_closed(door):
    sock = raw(door)
    for _ in range(2):  # keep-alive works while the client keeps talking
        assert exchange(sock, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n") == 200
    assert read_until_closed(sock) == b""  # closed by the idle timeout, with nothing more to say
    assert metric(door, "idleTimeout") >= 1


def test_an_oversized_head_gets_431(door):
    sock = raw(door, b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")
    response = read_until_closed(sock)
    assert status_of(response) == 431
    assert b"request.headTooLarge" in response
    assert metric(door, "headTooLarge") >= 1


def test_a_declared_huge_body_gets_413_at_once(door):
    sock = raw(door, b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000000000000\r\n\r\n{")
    response = read_until_closed(sock)
    assert status_of(response) == 413 and b"request.tooLarge" in response


def test_a_chunked_body_over_the_limit_gets_413(door):
    chunk = b"a" * 3000
    request = (b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n")
    request += (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * 2
    assert status_of(read_until_closed(raw(door, request))) == 413
    assert metric(door, "bodyTooLarge") >= 1


@pytest.mark.parametrize("request_bytes", [
    b"POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    b"POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    b"GET /health HTTP/1.1\nHost: x\n\n",
    bytes(range(256)) * 4,
], ids=["content-length-and-chunked", "duplicate-content-length", "bare-lf", "binary-garbage"])
def test_requests_the_parser_refuses_get_400_and_the_close(door, request_bytes):
    response = read_until_closed(raw(door, request_bytes))
    assert status_of(response) == 400 and b"request.malformed" in response


def test_a_body_that_stops_arriving_gets_408_and_the_close(meetupd):
    server = meetupd("--http-body-timeout", "1")
    head = (b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n")
    sock = raw(server, head + b'{"login":')
    response = read_until_closed(sock)  # the head deadline (10 s) is not what closes it
    assert status_of(response) == 408 and b"request.timeout" in response
    chunked = raw(server, head.replace(b"Content-Length: 100", b"Transfer-Encoding: chunked") + b"2\r\n{}")
    assert status_of(read_until_closed(chunked)) == 408
    assert metric(server, "bodyTimeout") >= 2


def test_a_body_that_keeps_coming_is_not_cut_off(meetupd):
    server = meetupd("--http-body-timeout", "1")
    body = b'{"email": "nobody@example.org", "password": "wrong password"}'
    sock = raw(server, b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
    for start in range(0, len(body), 20):  # 1.2 s of body in all, no pause as long as the deadline
        time.sleep(0.4)
        sock.sendall(body[start:start + 20])
    assert status_of(read_until_closed(sock)) == 401


def test_a_malformed_chunked_body_is_the_clients_fault(meetupd):
    server = meetupd()
    request = (b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
    status = status_of(read_until_closed(raw(server, request)))
    assert 400 <= status < 500
    server.stop()
    assert b"Request failed" not in server.proc.stderr.read()


def test_one_address_holds_a_bounded_number_of_connections(meetupd):
    server = meetupd("--max-connections-per-address", "3")

    def served() -> socket.socket:
        # The fixture's readiness probes count until the server has seen them close.
        deadline = time.monotonic() + WAIT
        while True:
            sock = raw(server)
            try:
                if exchange(sock, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n") == 200:
                    return sock
            except ConnectionError:
                pass  # refused with 503 and closed before the request was read
            sock.close()
            assert time.monotonic() < deadline, "a held connection was never served"
            time.sleep(0.05)

    held = [served() for _ in range(3)]  # the three are being served
    refused = read_until_closed(raw(server))
    assert status_of(refused) == 503 and re.search(rb"(?i)\r\nretry-after: \d+", refused)
    held.pop().close()
    deadline = time.monotonic() + WAIT
    while True:  # the freed slot is taken again once the server has seen the close
        sock = raw(server, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        if status_of(read_until_closed(sock)) == 200:
            break
        assert time.monotonic() < deadline, "the slot was never given back"
        time.sleep(0.1)
    for sock in held:
        sock.close()
    assert metric(server, "perAddress") >= 1


def failed_logins_until_throttled(server, forwarded_for: str, limit: int = 40) -> int:
    """Failed logins, each for a new address, sent 'from' `forwarded_for`; how many went before a 429."""
    for attempt in range(limit):
        sock = raw(server)
        body = b'{"email":"nobody-%d@example.org","password":"wrong password"}' % attempt
        sock.sendall(b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"X-Forwarded-For: " + forwarded_for.encode() + b"\r\nConnection: close\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        if status_of(read_until_closed(sock)) == 429:
            return attempt
    return limit


def test_forwarded_addresses_count_only_from_trusted_proxies(meetupd):
    trusting = meetupd("--trusted-proxies", "127.0.0.1, ::1")
    first = failed_logins_until_throttled(trusting, "203.0.113.5")
    assert first < 40  # that client address is throttled...
    assert failed_logins_until_throttled(trusting, "203.0.113.6", limit=3) == 3  # ...another is not

    untrusting = meetupd()
    assert failed_logins_until_throttled(untrusting, "203.0.113.5") == first
    # Without trust the header is ignored: every attempt came from 127.0.0.1, still throttled.
    assert failed_logins_until_throttled(untrusting, "203.0.113.6", limit=3) == 0
