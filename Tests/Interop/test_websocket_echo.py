"""The WebSocket layer against two independent clients, websocket-client and websockets,
through `meetupd serve --websocket-echo` (every message on /ws comes straight back)."""
import base64
import os
import socket
import struct

import pytest
import websocket  # websocket-client
from websockets.sync.client import connect as websockets_connect

SIZES = [0, 1, 125, 126, 65535, 65536, 1 << 20, 16 << 20]
TIMEOUT = 60  # a safety net against a hung test, not an assertion about speed


@pytest.fixture
def echo(meetupd):
    return meetupd("--websocket-echo")


def payload(size: int) -> bytes:
    return bytes((i * 31 + 7) % 251 for i in range(min(size, 4096))) * (size // 4096 + 1)


def text(size: int) -> str:
    words = "meet at the café near the station 🎉 ".encode()
    return (words * (size // len(words) + 1))[:size].decode("utf-8", errors="ignore")


def close_code(frame) -> int:
    return struct.unpack("!H", frame.data[:2])[0]


# websocket-client: no compression (it does not implement permessage-deflate)

@pytest.mark.parametrize("size", SIZES)
def test_websocket_client_echoes_text_and_binary(echo, size):
    ws = websocket.create_connection(echo.ws, timeout=TIMEOUT)
    try:
        message = text(size)
        ws.send(message)
        assert ws.recv() == message
        data = payload(size)[:size]
        ws.send_binary(data)
        assert ws.recv() == data
    finally:
        ws.close()


def test_websocket_client_fragmented_send_with_ping_between(echo):
    ws = websocket.create_connection(echo.ws, timeout=TIMEOUT)
    try:
        ws.send_frame(websocket.ABNF.create_frame("Hel", websocket.ABNF.OPCODE_TEXT, fin=0))
        ws.send_frame(websocket.ABNF.create_frame("lo ", websocket.ABNF.OPCODE_CONT, fin=0))
        ws.ping("in the middle")
        ws.send_frame(websocket.ABNF.create_frame("🎉".encode(), websocket.ABNF.OPCODE_CONT, fin=1))
        opcode, frame = ws.recv_data_frame(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_PONG
        assert frame.data == b"in the middle"
        assert ws.recv() == "Hello 🎉"
    finally:
        ws.close()


def test_websocket_client_close_is_echoed(echo):
    ws = websocket.create_connection(echo.ws, timeout=TIMEOUT)
    ws.send_close(status=4000, reason=b"done")
    opcode, frame = ws.recv_data_frame(control_frame=True)
    assert opcode == websocket.ABNF.OPCODE_CLOSE
    assert close_code(frame) == 4000
    ws.shutdown()


def failing_close(echo, frame_bytes_or_frame) -> int:
    ws = websocket.create_connection(echo.ws, timeout=TIMEOUT)
    try:
        if isinstance(frame_bytes_or_frame, websocket.ABNF):
            ws.send_frame(frame_bytes_or_frame)
        else:
            ws.sock.sendall(frame_bytes_or_frame)
        while True:
            opcode, frame = ws.recv_data_frame(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                return close_code(frame)
    finally:
        ws.shutdown()


def test_invalid_utf8_closes_with_1007(echo):
    frame = websocket.ABNF.create_frame(b"\xce\xba\xe1\xbd\xb9\xcf\x83\xed\xa0\x80", websocket.ABNF.OPCODE_TEXT)
    assert failing_close(echo, frame) == 1007


def test_too_big_message_closes_with_1009(echo):
    frame = websocket.ABNF.create_frame(b"\0" * ((16 << 20) + 1), websocket.ABNF.OPCODE_BINARY)
    assert failing_close(echo, frame) == 1009


def test_too_big_fragmented_message_closes_with_1009(echo):
    ws = websocket.create_connection(echo.ws, timeout=TIMEOUT)
    try:
        chunk = b"\0" * (4 << 20)
        ws.send_frame(websocket.ABNF.create_frame(chunk, websocket.ABNF.OPCODE_BINARY, fin=0))
        for _ in range(4):
            ws.send_frame(websocket.ABNF.create_frame(chunk, websocket.ABNF.OPCODE_CONT, fin=0))
        opcode, frame = ws.recv_data_frame(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_CLOSE
        assert close_code(frame) == 1009
    finally:
        ws.shutdown()


@pytest.mark.parametrize("code", [0, 999, 1004, 1005, 1006, 1015, 2000, 5000])
def test_invalid_close_codes_close_with_1002(echo, code):
    frame = websocket.ABNF.create_frame(struct.pack("!H", code), websocket.ABNF.OPCODE_CLOSE)
    assert failing_close(echo, frame) == 1002


def test_continuation_without_a_message_closes_with_1002(echo):
    frame = websocket.ABNF.create_frame(b"orphan", websocket.ABNF.OPCODE_CONT)
    assert failing_close(echo, frame) == 1002


def test_unmasked_frame_closes_with_1002(echo):
    assert failing_close(echo, b"\x81\x05hello") == 1002


def test_reserved_bits_close_with_1002(echo):
    frame = websocket.ABNF.create_frame("x", websocket.ABNF.OPCODE_TEXT)
    frame.rsv2 = 1
    assert failing_close(echo, frame) == 1002


# websockets: with and without permessage-deflate

@pytest.mark.parametrize("compression", ["deflate", None])
@pytest.mark.parametrize("size", SIZES)
def test_websockets_echo_with_and_without_compression(echo, compression, size):
    with websockets_connect(echo.ws, compression=compression, max_size=None, open_timeout=TIMEOUT) as ws:
        extensions = ws.response.headers.get("Sec-WebSocket-Extensions")
        if compression:
            assert extensions is not None and extensions.startswith("permessage-deflate")
        else:
            assert extensions is None
        message = text(size)
        ws.send(message)
        assert ws.recv(timeout=TIMEOUT) == message
        data = payload(size)[:size]
        ws.send(data)
        assert ws.recv(timeout=TIMEOUT) == data


def test_websockets_many_messages_share_one_compression_context(echo):
    with websockets_connect(echo.ws, max_size=None) as ws:
        for i in range(200):
            message = f"chat message {i} " * (i % 17 + 1)
            ws.send(message)
            assert ws.recv(timeout=TIMEOUT) == message


def test_websockets_no_context_takeover_is_negotiated(echo):
    from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
    factory = ClientPerMessageDeflateFactory(
        server_no_context_takeover=True, client_no_context_takeover=True,
        server_max_window_bits=10, client_max_window_bits=True)
    with websockets_connect(echo.ws, extensions=[factory], compression=None, max_size=None) as ws:
        extensions = ws.response.headers["Sec-WebSocket-Extensions"]
        assert "server_no_context_takeover" in extensions
        assert "server_max_window_bits=10" in extensions
        for i in range(20):
            message = "again and again " * (i + 10)
            ws.send(message)
            assert ws.recv(timeout=TIMEOUT) == message


def test_websockets_fragmented_send(echo):
    with websockets_connect(echo.ws) as ws:
        ws.send(["frag", "mented ", "text ✓"])
        assert ws.recv(timeout=TIMEOUT) == "fragmented text ✓"
        ws.send([b"\x00\x01", b"", b"\x02"])
        assert ws.recv(timeout=TIMEOUT) == b"\x00\x01\x02"


def test_websockets_ping_gets_pong(echo):
    with websockets_connect(echo.ws) as ws:
        assert ws.ping(b"are you there").wait(TIMEOUT)


def test_websockets_close_code_and_reason_round_trip(echo):
    with websockets_connect(echo.ws) as ws:
        ws.close(code=4001, reason="see you")
        assert ws.protocol.close_rcvd.code == 4001
        assert ws.protocol.close_rcvd.reason == "see you"


# The handshake itself, byte by byte

def raw_handshake(echo, version="13", path="/ws"):
    key = base64.b64encode(os.urandom(16)).decode()
    sock = socket.create_connection(("127.0.0.1", echo.port), timeout=TIMEOUT)
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
                  f"Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  f"Sec-WebSocket-Version: {version}\r\n\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = sock.recv(4096)
        if not chunk:
            break
        response += chunk
    return sock, response.decode("latin-1")


def test_unsupported_version_gets_426_with_the_supported_one(echo):
    sock, response = raw_handshake(echo, version="8")
    sock.close()
    assert response.startswith("HTTP/1.1 426")
    assert "sec-websocket-version: 13" in response.lower()


def test_other_paths_do_not_upgrade(echo):
    sock, response = raw_handshake(echo, path="/api/v1/ws")
    sock.close()
    assert response.startswith("HTTP/1.1 404")


def test_echo_mode_is_off_by_default(meetupd):
    """Without the flag /ws is not an echo: either no upgrade, or a session that does not
    hand the same text frame back."""
    server = meetupd()
    sock, response = raw_handshake(server)
    try:
        if not response.startswith("HTTP/1.1 101"):
            return
        probe = b"NOT-A-COMMAND\n\n\x00"
        mask = b"\x01\x02\x03\x04"
        sock.sendall(bytes([0x81, 0x80 | len(probe)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(probe)))
        sock.settimeout(5)
        try:
            reply = sock.recv(4096)
        except socket.timeout:
            return  # silence is not an echo either
        assert reply != bytes([0x81, len(probe)]) + probe
    finally:
        sock.close()


def test_echo_mode_by_environment(meetupd, monkeypatch):
    monkeypatch.setenv("MEETUPD_WEBSOCKET_ECHO", "1")
    server = meetupd()
    ws = websocket.create_connection(server.ws, timeout=TIMEOUT)
    try:
        ws.send("switched on by MEETUPD_WEBSOCKET_ECHO")
        assert ws.recv() == "switched on by MEETUPD_WEBSOCKET_ECHO"
    finally:
        ws.close()
