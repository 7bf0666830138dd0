"""Chat rooms through stomp.py over `/ws`: a RECEIPT means the message is stored for good. The
real server is killed with SIGKILL while several members send with receipts; after each
restart every receipted message is in the history exactly once, and the room's seq has no gap.
Messages re-sent after the restart with the same clientMessageId are not stored twice."""
import json
import time

from meetings_support import create_meeting, join, register_users
from stomp_support import WAIT, Recorder, connect_ws

SENDERS = 4
PER_SENDER = 10  # within the rate limit's burst, so that nothing is refused for speed
ROUNDS = 3


def history(server, meeting, token):
    seqs, ids, cursor = [], [], None
    while True:
        path = f"/api/v1/meetings/{meeting}/messages?limit=200" + (f"&beforeSeq={cursor}" if cursor else "")
        status, _, page = server.request("GET", path, token=token)
        assert status == 200, page
        seqs += [m["seq"] for m in page["items"]]
        ids += [m["clientMessageId"] for m in page["items"] if m["type"] == "message"]
        cursor = page["nextCursor"]
        if cursor is None:
            return sorted(seqs), ids


def test_receipted_messages_survive_sigkill_exactly_once(meetupd):
    server = meetupd()
    data = server.data
    ann, *members = register_users(server, SENDERS + 1)
    meeting = create_meeting(server, ann)["id"]
    for user in members:
        assert server.request("POST", f"/api/v1/meetings/{meeting}/join", token=user["token"])[0] == 200

    receipted, sent = set(), []
    for round in range(ROUNDS):
        sessions = []
        for index, user in enumerate(members):
            conn, recorder = connect_ws(server, user["token"])
            conn.subscribe("/user/queue/errors", id="errors")
            sessions.append((index, conn, recorder))
        # After a restart, every earlier message is sent again first: idempotent on clientMessageId.
        repeats = list(sent)
        for index, conn, _ in sessions:
            for client_id in [c for c in repeats if c.startswith(f"{index}-")][:3]:
                body = json.dumps({"text": f"again {client_id}", "clientMessageId": client_id})
                conn.send(f"/app/meetings.{meeting}.chat", body, content_type="application/json",
                          headers={"receipt": f"again-{client_id}"})
        for number in range(PER_SENDER):
            for index, conn, _ in sessions:
                client_id = f"{index}-{round}-{number}"
                sent.append(client_id)
                body = json.dumps({"text": f"message {client_id}", "clientMessageId": client_id})
                conn.send(f"/app/meetings.{meeting}.chat", body, content_type="application/json",
                          headers={"receipt": client_id})
            if number == PER_SENDER // 2:
                # Kill in the middle of the stream, once some receipts are in.
                deadline = time.monotonic() + WAIT
                while time.monotonic() < deadline and not any(
                        k == "RECEIPT" for _, _, r in sessions for k, _ in list(r.frames)):
                    time.sleep(0.01)
                server.proc.kill()
                break
        server.proc.wait()
        for _, _, recorder in sessions:
            for kind, frame in list(recorder.frames):
                if kind == "RECEIPT" and not frame.headers["receipt-id"].startswith("again-"):
                    receipted.add(frame.headers["receipt-id"])
        for _, conn, _ in sessions:
            try:
                conn.disconnect()
            except Exception:
                pass

        server = meetupd(data=data)
        seqs, ids = history(server, meeting, ann["token"])
        assert seqs == list(range(1, len(seqs) + 1)), f"round {round}: seq has a gap"
        assert len(ids) == len(set(ids)), f"round {round}: a clientMessageId stored twice"
        missing = receipted - set(ids)
        assert not missing, f"round {round}: receipted but lost: {sorted(missing)}"
    assert receipted, "no receipt arrived before any kill: the test proved nothing"


def test_stomp_py_resumes_a_room_with_since_seq(meetupd):
    server = meetupd()
    ann, bob = register_users(server, 2)
    meeting = create_meeting(server, ann)["id"]
    join(server, bob, meeting)  # seq 1: the room's note that Bob joined
    sender, sent = connect_ws(server, bob["token"])
    for number in range(1, 6):
        body = json.dumps({"text": f"message {number}", "clientMessageId": f"m{number}"})
        sender.send(f"/app/meetings.{meeting}.chat", body, content_type="application/json", headers={"receipt": f"m{number}"})
    sent.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "m5")

    reader, heard = connect_ws(server, ann["token"])
    reader.subscribe(f"/topic/meetings.{meeting}.chat", id="room", headers={"since-seq": "3", "receipt": "caught-up"})
    heard.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "caught-up")
    sender.send(f"/app/meetings.{meeting}.chat", json.dumps({"text": "live", "clientMessageId": "m6"}),
                content_type="application/json")
    messages = heard.wait_messages(4)
    assert [m.headers["seq"] for m in messages] == ["4", "5", "6", "7"]
    assert [json.loads(m.body)["text"] for m in messages] == ["message 3", "message 4", "message 5", "live"]
    assert all(m.headers["content-type"] == "application/json" for m in messages)
    for conn in (sender, reader):
        conn.disconnect()
