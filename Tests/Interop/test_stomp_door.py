"""STOMP connections that never sign in are bounded on both transports: a CONNECT deadline,
a bound on how many may wait, and on what they may send before CONNECTED (issues 19 and 20).
Deadlines are configured short here; every wait is bounded."""
import json
import select
import socket
import time

import pytest
import websocket  # websocket-client

from loopback import free_port
from meetings_support import create_meeting
from stomp_support import Recorder, connect_ws

WAIT = 10  # seconds an answer or a close may take on a loaded machine; never a timing assertion


def started(meetupd, connect_timeout: str):
    return meetupd("--stomp-port", str(free_port()), "--stomp-connect-timeout", connect_timeout,
                   "--max-unauthenticated-sessions", "8")


@pytest.fixture
def door(meetupd):
    return started(meetupd, "1")


def tcp(server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.stomp_port), timeout=WAIT)


def ws(server, **options) -> websocket.WebSocket:
    return websocket.create_connection(server.ws, timeout=WAIT, subprotocols=["v12.stomp"], **options)


def tcp_until_closed(sock: socket.socket) -> bytes:
    received = b""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:  # closed with our unread bytes still queued
            chunk = b""
        if not chunk:
            sock.close()
            return received
        received += chunk
    raise AssertionError(f"still open after {WAIT} s; got {received[:200]!r}")


def ws_until_closed(conn: websocket.WebSocket) -> tuple[list[bytes], int | None]:
    """The messages received until the server's close frame, and its close code."""
    messages = []
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            opcode, data = conn.recv_data(control_frame=True)
        except (websocket.WebSocketConnectionClosedException, ConnectionResetError):
            return messages, None
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return messages, int.from_bytes(data[:2], "big") if len(data) >= 2 else None
        if opcode in (websocket.ABNF.OPCODE_TEXT, websocket.ABNF.OPCODE_BINARY):
            messages.append(data)
    raise AssertionError(f"still open after {WAIT} s; got {messages}")


def test_connect_must_arrive_within_the_deadline_on_both_transports(door):
    waiting_tcp = [tcp(door) for _ in range(3)]
    waiting_ws = [ws(door) for _ in range(3)]
    for sock in waiting_tcp:
        answer = tcp_until_closed(sock)
        assert answer.startswith(b"ERROR\n") and b"no CONNECT within 1000 ms" in answer
    for conn in waiting_ws:
        messages, _ = ws_until_closed(conn)
        assert messages and messages[0].startswith(b"ERROR\n") and b"no CONNECT within" in messages[0]


def test_a_flood_of_unauthenticated_sockets_cannot_crowd_out_a_signed_in_user(meetupd):
    # A long deadline: here the flood is bounded by its number alone.
    door = started(meetupd, "60")
    user = door.register_user()
    meeting = create_meeting(door, user)["id"]
    flood = [tcp(door) for _ in range(12)] + [ws(door) for _ in range(12)]
    # The bound is 8: the 16 that waited longest were closed, with an ERROR that says why.
    crowded_out = 0
    for sock in flood[:16]:
        if isinstance(sock, socket.socket):
            answer = tcp_until_closed(sock)
        else:
            messages, _ = ws_until_closed(sock)
            answer = messages[0] if messages else b""
        crowded_out += b"too many connections waiting to sign in" in answer
    assert crowded_out == 16

    # A real client still signs in, chats and calls REST while the flood holds its 8 places.
    conn, rec = connect_ws(door, user["token"])
    conn.subscribe(f"/topic/meetings.{meeting}.chat", id="chat", headers={"receipt": "sub"})
    rec.wait_for("RECEIPT")
    conn.send(f"/app/meetings.{meeting}.chat", json.dumps({"text": "still here", "clientMessageId": "c1"}),
              content_type="application/json")
    assert json.loads(rec.wait_messages(1)[0].body)["text"] == "still here"
    assert door.request("GET", "/health")[0] == 200
    conn.disconnect()
    for sock in flood[16:]:
        sock.close()


def test_before_connected_only_one_small_frame_is_taken(door):
    token = door.register_user()["token"]
    # TCP: a CONNECT followed by a flood of frames is refused by size, not decoded frame by frame.
    sock = tcp(door)
    sock.sendall(f"CONNECT\naccept-version:1.2\nhost:x\npasscode:{token}\n\n\0".encode() + b"SEND\ndestination:/x\n\n\0" * 20_000)
    answer = tcp_until_closed(sock)
    assert b"bytes before CONNECTED" in answer
    # WebSocket: a message bigger than one CONNECT frame is refused by the WebSocket layer (1009).
    conn = ws(door)
    conn.send_binary(b"SEND\ndestination:/x\n\n\0" * 50_000)
    _, code = ws_until_closed(conn)
    assert code == 1009


def test_websocket_messages_of_a_session_are_bounded_by_one_stomp_frame(door):
    token = door.register_user()["token"]
    conn = ws(door)
    conn.send(f"CONNECT\naccept-version:1.2\nhost:x\npasscode:{token}\n\n\0")
    assert conn.recv().startswith("CONNECTED")
    conn.send_binary(b"SEND\ndestination:/topic/x\n\n" + b"a" * (3 << 20) + b"\0")
    _, code = ws_until_closed(conn)
    assert code == 1009
    assert door.request("GET", "/health")[0] == 200


def test_one_address_holds_a_bounded_number_of_stomp_port_connections_until_they_sign_in(meetupd):
    server = meetupd("--stomp-port", str(free_port()), "--max-connections-per-address", "2")
    token = server.register_user()["token"]
    # Connections are admitted on the event loop each lands on, not always in the order they
    # were opened: the one refused is whichever came third, the first to have anything to say.
    opened = [tcp(server) for _ in range(3)]
    readable, _, _ = select.select(opened, [], [], WAIT)
    assert readable, "no connection refused"
    answer = tcp_until_closed(readable[0])
    assert answer.startswith(b"ERROR\n") and b"too many connections from your address" in answer
    held = [sock for sock in opened if sock is not readable[0]]
    # Signing in gives the place back: a new connection is served while the first stays open.
    held[0].sendall(f"CONNECT\naccept-version:1.2\nhost:x\npasscode:{token}\n\n\0".encode())
    assert held[0].recv(4096).startswith(b"CONNECTED")
    newcomer = tcp(server)
    newcomer.sendall(f"CONNECT\naccept-version:1.2\nhost:x\npasscode:{token}\n\n\0".encode())
    assert newcomer.recv(4096).startswith(b"CONNECTED")
    deadline = time.monotonic() + WAIT
    while True:  # HTTP has the same bound: a 503 means the server has not yet seen earlier closes
        status, _, metrics = server.request("GET", "/metrics")
        if status != 503 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert status == 200 and 'stomp_connections_refused_total{reason="perAddress"} 1' in metrics
    for sock in held + [newcomer]:
        sock.close()
