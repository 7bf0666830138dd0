"""A room's life through stomp.py over `/ws`: edits, deletions and the organizer's redaction
arrive as events with their own seq; joins, departures and meeting changes as system messages;
and a member who leaves stops hearing the room on both of their devices, told on
`/user/queue/errors`."""
import json
import time
import uuid

from meetings_support import create_meeting, iso, register_users
from stomp_support import connect_ws


def send(conn, meeting, action, body, receipt):
    conn.send(f"/app/meetings.{meeting}.{action}", json.dumps(body), content_type="application/json",
              headers={"receipt": receipt})


def answered(recorder, receipt):
    return recorder.wait_for(("RECEIPT", "MESSAGE"), lambda f: f.headers.get("receipt-id") == receipt)


def room_message(recorder, seq):
    return json.loads(recorder.wait_for("MESSAGE", lambda f: f.headers.get("seq") == str(seq)).body)


def test_edits_deletions_and_redaction(meetupd):
    server = meetupd()
    ann, bob = register_users(server, 2)
    meeting = create_meeting(server, ann)["id"]
    assert server.request("POST", f"/api/v1/meetings/{meeting}/join", token=bob["token"])[0] == 200
    ann_conn, ann_rec = connect_ws(server, ann["token"])
    bob_conn, bob_rec = connect_ws(server, bob["token"])
    for conn in (ann_conn, bob_conn):
        conn.subscribe("/user/queue/errors", id="errors")
    ann_conn.subscribe(f"/topic/meetings.{meeting}.chat", id="room", headers={"since-seq": "0", "receipt": "in"})
    ann_rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "in")
    assert room_message(ann_rec, 1)["system"]["kind"] == "memberJoined"
    for index in range(2):
        send(bob_conn, meeting, "chat", {"text": f"text {index}", "clientMessageId": str(uuid.uuid4())}, f"p{index}")
        assert answered(bob_rec, f"p{index}").cmd == "RECEIPT"

    send(bob_conn, meeting, "edit", {"seq": 2, "text": "text 0, fixed"}, "edit")
    assert answered(bob_rec, "edit").cmd == "RECEIPT"
    edited = room_message(ann_rec, 4)
    assert (edited["type"], edited["refersToSeq"], edited["text"]) == ("edited", 2, "text 0, fixed")

    send(ann_conn, meeting, "edit", {"seq": 3, "text": "not yours"}, "foreign")
    assert answered(ann_rec, "foreign").headers["code"] == "chatMessage.notAuthor"
    send(ann_conn, meeting, "delete", {"seq": 3}, "redact")
    assert answered(ann_rec, "redact").cmd == "RECEIPT"
    deleted = room_message(ann_rec, 5)
    assert (deleted["type"], deleted["refersToSeq"], deleted["text"]) == ("deleted", 3, None)
    assert deleted["sender"]["id"] == ann["id"]

    status, _, page = server.request("GET", f"/api/v1/meetings/{meeting}/messages", token=bob["token"])
    assert status == 200
    latest = {m["seq"]: m for m in page["items"]}
    assert sorted(latest) == [1, 2, 3, 4, 5]
    assert latest[2]["text"] == "text 0, fixed" and latest[2]["editedAt"]
    assert latest[3]["text"] is None and latest[3]["deletedAt"]
    for conn in (ann_conn, bob_conn):
        conn.disconnect()


def test_system_messages_and_revocation_on_two_devices(meetupd):
    server = meetupd()
    ann, bob = register_users(server, 2)
    meeting = create_meeting(server, ann)["id"]
    ann_conn, ann_rec = connect_ws(server, ann["token"])
    ann_conn.subscribe(f"/topic/meetings.{meeting}.chat", id="room", headers={"receipt": "in"})
    ann_rec.wait_for("RECEIPT")
    assert server.request("POST", f"/api/v1/meetings/{meeting}/join", token=bob["token"])[0] == 200
    joined = room_message(ann_rec, 1)
    assert joined["type"] == "system" and joined["system"]["arguments"]["userId"] == bob["id"]

    status, _, _ = server.request("PATCH", f"/api/v1/meetings/{meeting}", {"startsAt": iso(30)}, ann["token"])
    assert status == 200
    assert room_message(ann_rec, 2)["system"]["arguments"]["changed"] == "time"

    devices = []
    for name in ("phone", "laptop"):
        conn, rec = connect_ws(server, bob["token"])
        conn.subscribe("/user/queue/errors", id="errors")
        conn.subscribe(f"/topic/meetings.{meeting}.chat", id="room", headers={"receipt": name})
        rec.wait_for("RECEIPT")
        devices.append((conn, rec))

    started = time.monotonic()
    assert server.request("POST", f"/api/v1/meetings/{meeting}/leave", token=bob["token"])[0] == 204
    for _, rec in devices:
        told = rec.wait_for("MESSAGE", lambda f: f.headers.get("destination") == "/user/queue/errors")
        body = json.loads(told.body)
        assert body["code"] == "meeting.notMember"
        assert body["destination"] == f"/topic/meetings.{meeting}.chat" and body["subscription"] == "room"
    assert time.monotonic() - started < 1.0
    assert room_message(ann_rec, 3)["system"]["kind"] == "memberLeft"

    send(ann_conn, meeting, "chat", {"text": "bye", "clientMessageId": str(uuid.uuid4())}, "bye")
    assert room_message(ann_rec, 4)["text"] == "bye"
    for conn, rec in devices:
        conn.subscribe("/user/queue/notifications", id="later", headers={"receipt": "later"})
        rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "later")
        assert not [f for f in rec.messages() if f.headers.get("destination", "").startswith("/topic/")]
        conn.disconnect()
    ann_conn.disconnect()
