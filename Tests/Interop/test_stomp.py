"""stomp.py against the real server, over our WebSocket and over plain TCP, on the sandbox
topics (`--stomp-sandbox`) where the broker behaves like a stock broker's topics."""
import socket
import time
import urllib.request
import uuid

import pytest
import stomp
import websocket

from loopback import free_port
from stomp_support import WAIT, Recorder


@pytest.fixture
def sandbox(meetupd):
    server = meetupd("--stomp-sandbox", "--stomp-port", str(free_port()))
    server.user = server.register_user()
    return server


def connect(server, transport="tcp", version="1.2", heartbeats=(0, 0), auto_decode=True, binary=False,
            passcode=True, ws_path="/ws", header=None):
    """A connected stomp.py connection and its recorder."""
    token = server.user["token"]
    if transport == "ws":
        header = header if header is not None else ["Sec-WebSocket-Protocol: v12.stomp, v11.stomp, v10.stomp"]
        conn = stomp.WSStompConnection([("127.0.0.1", server.port)], ws_path=ws_path, header=header,
                                       heartbeats=heartbeats, auto_decode=auto_decode, binary_mode=binary)
    else:
        cls = {"1.0": stomp.Connection10, "1.1": stomp.Connection11, "1.2": stomp.Connection12}[version]
        kwargs = {} if version == "1.0" else {"heartbeats": heartbeats}
        conn = cls([("127.0.0.1", server.stomp_port)], auto_decode=auto_decode, **kwargs)
    recorder = Recorder()
    conn.set_listener("recorder", recorder)
    conn.connect(username="u", passcode=token if passcode else None, wait=True)
    return conn, recorder


def topic():
    return "/topic/sandbox." + uuid.uuid4().hex[:8]


TRANSPORTS = ["tcp", "ws"]


@pytest.mark.parametrize("version", ["1.0", "1.1", "1.2"])
def test_connect_subscribe_send_receive_over_tcp(sandbox, version):
    conn, rec = connect(sandbox, "tcp", version)
    assert rec.wait_for("CONNECTED").headers.get("version", "1.0") == version
    dest = topic()
    conn.subscribe(dest, id="s1", ack="auto")
    conn.send(dest, "hello " + version, headers={"receipt": "sent"})
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "sent")
    message = rec.wait_messages(1)[0]
    assert message.body == "hello " + version
    assert message.headers["destination"] == dest
    conn.disconnect()


@pytest.mark.parametrize("offered, chosen", [(["v10.stomp", "v12.stomp", "v11.stomp"], "v12.stomp"),
                                             (["v11.stomp", "v10.stomp"], "v11.stomp"),
                                             (["v10.stomp"], "v10.stomp")])
def test_websocket_picks_the_highest_subprotocol_offered(sandbox, offered, chosen):
    ws = websocket.create_connection(sandbox.ws, subprotocols=offered, timeout=WAIT)
    assert ws.subprotocol == chosen
    ws.send(f"CONNECT\naccept-version:1.0,1.1,1.2\nhost:x\npasscode:{sandbox.user['token']}\n\n\0")
    assert ws.recv().startswith("CONNECTED\nversion:1.2\n")
    ws.close()


def test_connect_over_websocket_with_stomp_py(sandbox):
    conn, rec = connect(sandbox, "ws")
    assert rec.wait_for("CONNECTED").headers["version"] == "1.2"
    conn.disconnect()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_receipts_and_disconnect_with_receipt(sandbox, transport):
    conn, rec = connect(sandbox, transport)
    dest = topic()
    conn.subscribe(dest, id="s1", headers={"receipt": "subscribed"})
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "subscribed")
    conn.unsubscribe("s1", headers={"receipt": "unsubscribed"})
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "unsubscribed")
    conn.disconnect(receipt="bye")
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "bye")
    rec.wait_for("DISCONNECTED")


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("mode", ["client", "client-individual"])
def test_ack_and_nack(sandbox, transport, mode):
    conn, rec = connect(sandbox, transport)
    dest = topic()
    conn.subscribe(dest, id="s1", ack=mode, headers={"receipt": "sub"})
    rec.wait_for("RECEIPT")
    for i in range(3):
        conn.send(dest, f"m{i}")
    first, second, third = rec.wait_messages(3)
    conn.ack(second.headers["ack"], receipt="acked")
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "acked")
    conn.nack(third.headers["ack"], receipt="nacked")
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "nacked")
    # `client` settled the first message with the second; `client-individual` did not.
    conn.ack(first.headers["ack"], receipt="first")
    if mode == "client":
        error = rec.wait_for("ERROR")
        assert "no unacknowledged message" in error.headers["message"]
    else:
        rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "first")
        conn.disconnect()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_auto_ack_needs_no_ack(sandbox, transport):
    conn, rec = connect(sandbox, transport)
    dest = topic()
    conn.subscribe(dest, id="s1", ack="auto", headers={"receipt": "sub"})
    rec.wait_for("RECEIPT")
    conn.send(dest, "x")
    assert "ack" not in rec.wait_messages(1)[0].headers
    conn.disconnect()


@pytest.mark.parametrize("version", ["1.0", "1.1"])
def test_ack_by_message_id_in_older_versions(sandbox, version):
    conn, rec = connect(sandbox, "tcp", version)
    dest = topic()
    conn.subscribe(dest, id="s1", ack="client")
    conn.send(dest, "x", headers={"receipt": "sent"})
    message = rec.wait_messages(1)[0]
    if version == "1.0":
        conn.ack(message.headers["message-id"], receipt="acked")
    else:
        conn.ack(message.headers["message-id"], "s1", receipt="acked")
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "acked")
    conn.disconnect()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_transactions_commit_and_abort(sandbox, transport):
    conn, rec = connect(sandbox, transport)
    dest = topic()
    conn.subscribe(dest, id="s1", headers={"receipt": "sub"})
    rec.wait_for("RECEIPT")
    tx = conn.begin()
    conn.send(dest, "in-tx", transaction=tx)
    conn.send(dest, "outside", headers={"receipt": "outside"})
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "outside")
    assert [m.body for m in rec.messages()] == ["outside"]
    conn.commit(tx, headers={"receipt": "committed"})
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "committed")
    assert [m.body for m in rec.messages()] == ["outside", "in-tx"]

    tx = conn.begin()
    conn.send(dest, "aborted", transaction=tx)
    conn.abort(tx, headers={"receipt": "aborted"})
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "aborted")
    conn.send(dest, "after", headers={"receipt": "after"})
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "after")
    assert [m.body for m in rec.wait_messages(3)] == ["outside", "in-tx", "after"]
    conn.disconnect()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_binary_bodies_with_nul(sandbox, transport):
    conn, rec = connect(sandbox, transport, auto_decode=False, binary=True)
    dest = topic()
    conn.subscribe(dest, id="s1", headers={"receipt": "sub"})
    rec.wait_for("RECEIPT")
    body = b"\x00head\x00\xff\xfe tail\x00"
    conn.send(dest, body, content_type="application/octet-stream")
    message = rec.wait_messages(1)[0]
    assert message.body == body
    assert message.headers["content-length"] == str(len(body))
    conn.disconnect()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_heart_beats_kept(sandbox, transport):
    conn, rec = connect(sandbox, transport, heartbeats=(200, 200))
    connected = rec.wait_for("CONNECTED")
    assert connected.headers["heart-beat"] != "0,0"
    time.sleep(3)  # beats every 200 ms from stomp.py, every 1 s (our floor) from us; stomp.py drops us if ours stop
    assert conn.is_connected()
    dest = topic()
    conn.subscribe(dest, id="s1")
    conn.send(dest, "still here", headers={"receipt": "alive"})
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "alive")
    assert not [f for k, f in rec.frames if k == "ERROR"]
    conn.disconnect()


def read_until_closed(sock):
    data = b""
    sock.settimeout(WAIT * 3)
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def test_heart_beats_missed_end_the_session(sandbox):
    sock = socket.create_connection(("127.0.0.1", sandbox.stomp_port))
    token = sandbox.user["token"]
    # We promise a beat every 100 ms (the server asks for one a second at most), then fall silent.
    sock.sendall(f"CONNECT\naccept-version:1.2\nhost:x\npasscode:{token}\nheart-beat:100,0\n\n\0".encode())
    data = read_until_closed(sock)
    assert data.startswith(b"CONNECTED\n")
    assert b"ERROR\n" in data and b"heart-beat timeout" in data


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_bad_token_gets_error_then_close(sandbox, transport):
    sandbox.user = dict(sandbox.user, token="not-a-token")
    with pytest.raises(stomp.exception.ConnectFailedException):
        connect(sandbox, transport)


def test_token_on_the_upgrade_request(sandbox):
    token = sandbox.user["token"]
    for header, path in [(["Authorization: Bearer " + token], "/ws"), ([], "/ws?access_token=" + token)]:
        conn, rec = connect(sandbox, "ws", passcode=False, header=header, ws_path=path)
        assert rec.wait_for("CONNECTED").headers["user-name"] == sandbox.user["id"]
        conn.disconnect()


def test_protocol_violation_gets_error_then_close(sandbox):
    sock = socket.create_connection(("127.0.0.1", sandbox.stomp_port))
    token = sandbox.user["token"]
    sock.sendall(f"CONNECT\naccept-version:1.2\npasscode:{token}\n\n\0SEND\nreceipt:7\n\nx\0".encode())
    data = read_until_closed(sock)
    assert b"ERROR\n" in data and b"receipt-id:7\n" in data
    assert b"message:SEND requires the destination header\n" in data


def test_outside_the_sandbox_is_refused(sandbox):
    conn, rec = connect(sandbox, "tcp")
    conn.subscribe("/topic/elsewhere.1", id="s1")
    assert rec.wait_for("ERROR").headers["message"]


def test_broker_metrics_are_exported(sandbox):
    conn, rec = connect(sandbox, "tcp")
    dest = topic()
    conn.subscribe(dest, id="s1")
    conn.send(dest, "counted", headers={"receipt": "sent"})
    rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "sent")
    rec.wait_messages(1)
    with urllib.request.urlopen(sandbox.base + "/metrics", timeout=WAIT) as resp:
        text = resp.read().decode()
    assert 'stomp_frames_in_total{command="SEND"} 1' in text
    assert 'stomp_frames_out_total{command="MESSAGE"} 1' in text
    assert "stomp_sessions 1" in text
    assert "stomp_subscriptions 1" in text
    conn.disconnect()
