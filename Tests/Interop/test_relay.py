"""Several meetupd nodes on one data directory, sharing their rooms through RabbitMQ's STOMP
adapter (`--relay`, docs/scaling.md). RabbitMQ is a private node on free loopback ports,
started once for the session (conftest.py); the tests skip, saying why, only when it cannot start.

Members of one room sit on different nodes and get every message once, in seq order; that
holds while RabbitMQ is stopped and started again mid-conversation, and when a node is killed
with SIGKILL (no receipted message is lost)."""
import json
import os
import signal
import socket
import threading
import time

from direct_support import befriend
from meetings_support import register_users
from relay_support import RELAY_WAIT, nodes, room, wait_until
from stomp_support import Recorder, connect_ws

def listen(node, user, meeting):
    """A session of `user` on `node` subscribed to the room; (connection, recorder)."""
    conn, recorder = connect_ws(node, user["token"])
    conn.subscribe(f"/topic/meetings.{meeting}.chat", id="room", headers={"receipt": "room"})
    recorder.wait_for("RECEIPT", lambda f: f.headers.get("receipt-id") == "room")
    return conn, recorder


def post(conn, meeting, client_id, receipt=True):
    body = json.dumps({"text": f"message {client_id}", "clientMessageId": client_id})
    headers = {"receipt": client_id} if receipt else {}
    conn.send(f"/app/meetings.{meeting}.chat", body, content_type="application/json", headers=headers)


def posts(recorder):
    """The (seq, clientMessageId) of every room message received, in arrival order."""
    out = []
    for frame in recorder.messages():
        body = json.loads(frame.body)
        if body.get("type") == "message":
            out.append((int(frame.headers["seq"]), body["clientMessageId"]))
    return out


def seqs(recorder):
    return [int(f.headers["seq"]) for f in recorder.messages() if "seq" in f.headers]


def assert_in_order_once(recorder, expected_ids):
    """Every expected post arrived exactly once, and the room's seqs arrived rising by one."""
    got = seqs(recorder)
    assert got == list(range(got[0], got[0] + len(got))), f"seqs not consecutive: {got}"
    ids = [client_id for _, client_id in posts(recorder)]
    assert sorted(ids) == sorted(expected_ids), (ids, expected_ids)


def test_members_on_different_nodes_get_every_message_in_order(meetupd, rabbitmq):
    a, b = nodes(meetupd, rabbitmq)
    users = register_users(a, 3)
    meeting = room(a, users)
    conn_a, on_a = listen(a, users[1], meeting)
    conn_b, on_b = listen(b, users[2], meeting)
    sent = []
    for number in range(15):
        for name, conn in (("a", conn_a), ("b", conn_b)):
            sent.append(f"{name}{number}")
            post(conn, meeting, sent[-1], receipt=False)
    for recorder in (on_a, on_b):
        wait_until(lambda: len(posts(recorder)) >= len(sent), "every post on both nodes")
    time.sleep(0.3)  # a repeat would arrive now
    for recorder in (on_a, on_b):
        assert_in_order_once(recorder, sent)
    conn_a.disconnect()
    conn_b.disconnect()


def test_notifications_reach_a_session_on_another_node(meetupd, rabbitmq):
    a, b = nodes(meetupd, rabbitmq)
    ann, bob = register_users(a, 2)
    conn, recorder = connect_ws(b, ann["token"])
    conn.subscribe("/user/queue/notifications", id="notifications", headers={"receipt": "subscribed"})
    recorder.wait_for("RECEIPT")
    assert a.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])[0] in (200, 201)
    wait_until(lambda: recorder.messages(), "the notification on the other node", timeout=20)
    assert json.loads(recorder.messages()[0].body)["kind"] == "friendRequest.sent"
    conn.disconnect()


def test_direct_messages_reach_every_session_on_every_node(meetupd, rabbitmq):
    a, b = nodes(meetupd, rabbitmq)
    ann, bob = register_users(a, 2)
    befriend(a, ann, bob)
    sessions = []
    for node, user in ((a, ann), (b, ann), (a, bob), (b, bob)):
        conn, recorder = connect_ws(node, user["token"])
        conn.subscribe("/user/queue/direct", id="direct", headers={"receipt": "direct"})
        recorder.wait_for("RECEIPT", lambda f: f.headers.get("receipt-id") == "direct")
        sessions.append((conn, recorder))
    sent = []
    for number in range(5):
        for sender, peer, conn in ((ann, bob, sessions[0][0]), (bob, ann, sessions[3][0])):
            sent.append(f"{sender['id'][:4]}-{number}")
            body = json.dumps({"text": "hi", "clientMessageId": sent[-1]})
            conn.send(f"/app/direct.{peer['id']}", body, content_type="application/json")
    for _, recorder in sessions:
        wait_until(lambda: len(recorder.messages()) >= len(sent), "every direct message in every session")
    time.sleep(0.3)
    for _, recorder in sessions:
        frames = recorder.messages()
        got = [json.loads(f.body)["clientMessageId"] for f in frames]
        # Once each, in the user's inbox order, whichever node committed it (docs/scaling.md).
        assert sorted(got) == sorted(sent), got
        assert [int(f.headers["inbox-seq"]) for f in frames] == list(range(1, len(sent) + 1)), got
    for conn, _ in sessions:
        conn.disconnect()


def test_rabbitmq_restart_mid_conversation_loses_and_repeats_nothing(meetupd, rabbitmq):
    a, b = nodes(meetupd, rabbitmq)
    users = register_users(a, 3)
    meeting = room(a, users)
    conn_a, on_a = listen(a, users[1], meeting)
    conn_b, on_b = listen(b, users[2], meeting)
    sent = []

    def converse(tag, count):
        for number in range(count):
            for name, conn in (("a", conn_a), ("b", conn_b)):
                sent.append(f"{tag}-{name}{number}")
                post(conn, meeting, sent[-1], receipt=False)

    converse("before", 5)
    for recorder in (on_a, on_b):
        wait_until(lambda: len(posts(recorder)) >= len(sent), "the first posts")
    rabbitmq.stop()
    converse("away", 5)  # stored and delivered locally; the other node's arrive later
    rabbitmq.start()
    converse("after", 5)
    for recorder in (on_a, on_b):
        wait_until(lambda: len(posts(recorder)) >= len(sent), "every post after the restart")
    time.sleep(0.3)
    for recorder in (on_a, on_b):
        assert_in_order_once(recorder, sent)
    conn_a.disconnect()
    conn_b.disconnect()


def test_sigkill_of_a_node_loses_no_receipted_message(meetupd, rabbitmq):
    a, b = nodes(meetupd, rabbitmq)
    users = register_users(a, 3)
    meeting = room(a, users)
    conn_b, on_b = listen(b, users[2], meeting)
    conn_a, sender = connect_ws(a, users[1]["token"])
    sent = [f"k{number}" for number in range(40)]
    stop = threading.Event()

    def send_all():
        for client_id in sent:
            if stop.is_set():
                return
            try:
                post(conn_a, meeting, client_id)
            except Exception:  # the node is gone
                return

    thread = threading.Thread(target=send_all)
    thread.start()
    wait_until(lambda: len([f for k, f in sender.frames if k == "RECEIPT"]) >= 5, "the first receipts", timeout=20)
    os.kill(a.proc.pid, signal.SIGKILL)
    a.proc.wait(timeout=10)
    stop.set()
    thread.join(timeout=10)
    receipted = {f.headers["receipt-id"] for k, f in sender.frames if k == "RECEIPT"}
    assert receipted
    # Everything receipted reaches the member on the surviving node, once and in order.
    wait_until(lambda: receipted <= {c for _, c in posts(on_b)}, "the receipted posts on the other node")
    got = [c for _, c in posts(on_b)]
    assert len(got) == len(set(got)), got
    assert seqs(on_b) == sorted(seqs(on_b))
    # And they are stored once.
    status, _, page = b.request("GET", f"/api/v1/meetings/{meeting}/messages?limit=200", token=users[2]["token"])
    assert status == 200
    stored = [m["clientMessageId"] for m in page["items"] if m["type"] == "message"]
    assert receipted <= set(stored) and len(stored) == len(set(stored))
    conn_b.disconnect()


class Partition:
    """A TCP forwarder to `port` whose open connections can be cut off the way a network
    partition cuts them: bytes stop flowing both ways and no FIN or RST gets through, so
    neither end learns of it from TCP. Connections made afterwards flow again."""

    def __init__(self, port: int):
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.generation = 0
        self.accepted = 0
        self.sockets = []
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self):
        """Silences every connection open now."""
        self.generation += 1

    def close(self):
        self.listener.close()
        for sock in self.sockets:
            sock.close()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                return
            upstream.settimeout(None)
            self.accepted += 1
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink, self.generation), daemon=True).start()

    def _pipe(self, source, sink, generation):
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            flowing = generation == self.generation  # once cut off, nothing gets through, not even the end
            try:
                if not data:
                    if flowing:
                        sink.shutdown(socket.SHUT_WR)
                    return
                if flowing:
                    sink.sendall(data)
            except OSError:
                return


def test_a_node_cut_off_from_rabbitmq_notices_the_silence_and_connects_anew(meetupd, rabbitmq):
    """A partition leaves the relay connection open and silent; only the missing heart-beats
    tell. Node b asks for one each second, so it gives up on the dead link after three and
    connects anew. Meanwhile, and across the partition, ann's session on b gets every direct
    message bob sends on a exactly once, in inbox order: what the relay could not carry is read
    from the database (on the sweep, and when the new link confirms b's subscription)."""
    partition = Partition(rabbitmq.stomp_port)
    try:
        a = meetupd("--relay", rabbitmq.url)
        b = meetupd("--relay", f"stomp://guest:guest@127.0.0.1:{partition.port}/?heart-beat=1", data=a.data)
        wait_until(lambda: partition.accepted >= 1, "b to connect to the relay")
        ann, bob = register_users(a, 2)
        befriend(a, ann, bob)
        sender, _ = connect_ws(a, bob["token"])
        reader, on_b = connect_ws(b, ann["token"])
        reader.subscribe("/user/queue/direct", id="direct", headers={"receipt": "direct"})
        on_b.wait_for("RECEIPT", lambda f: f.headers.get("receipt-id") == "direct")
        sent = []

        def say(count):
            for _ in range(count):
                sent.append(f"dm{len(sent)}")
                body = json.dumps({"text": "hi", "clientMessageId": sent[-1]})
                sender.send(f"/app/direct.{ann['id']}", body, content_type="application/json")

        say(3)
        partition.cut()
        say(3)
        wait_until(lambda: partition.accepted >= 2, "b to give up on the silent link and connect anew")
        say(3)
        wait_until(lambda: len(on_b.messages()) >= len(sent), "every direct message on b")
        time.sleep(0.3)
        frames = on_b.messages()
        assert [json.loads(f.body)["clientMessageId"] for f in frames] == sent
        assert [int(f.headers["inbox-seq"]) for f in frames] == list(range(1, len(sent) + 1))
        sender.disconnect()
        reader.disconnect()
    finally:
        partition.close()
