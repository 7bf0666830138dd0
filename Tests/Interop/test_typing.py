"""Typing indicators through stomp.py over `/ws`: relayed to the room's members and to the other
member of a direct conversation, throttled to one start a second per sender, stopped by the
server after a few seconds of silence, refused to outsiders, and never stored."""
import json
import time

from direct_support import befriend
from meetings_support import create_meeting, join, register_users
from stomp_support import connect_ws


def typing(conn, destination, value, receipt):
    conn.send(destination, json.dumps({"typing": value}), content_type="application/json", headers={"receipt": receipt})


def typing_events(recorder, destination):
    return [json.loads(f.body) for f in recorder.messages() if f.headers["destination"] == destination]


def test_typing_in_a_meeting_room_is_relayed_throttled_and_stopped(meetupd):
    server = meetupd()
    ann, bob, cat = register_users(server, 3)
    meeting = create_meeting(server, ann)["id"]
    join(server, bob, meeting)
    topic = f"/topic/meetings.{meeting}.typing"
    ann_conn, ann_rec = connect_ws(server, ann["token"])
    ann_conn.subscribe(topic, id="typing", headers={"receipt": "sub"})
    ann_rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "sub")
    bob_conn, bob_rec = connect_ws(server, bob["token"])

    # Five starts in a burst: one is relayed.
    for index in range(5):
        typing(bob_conn, f"/app/meetings.{meeting}.typing", True, f"t{index}")
    bob_rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "t4")
    first = ann_rec.wait_for("MESSAGE", lambda f: f.headers["destination"] == topic)
    assert json.loads(first.body) == {"userId": bob["id"], "meetingId": meeting, "typing": True}
    # Silence: the server stops it after about five seconds (waited for up to ten).
    stop = ann_rec.wait_for("MESSAGE", lambda f: f.headers["destination"] == topic and not json.loads(f.body)["typing"])
    assert json.loads(stop.body)["userId"] == bob["id"]
    assert [e["typing"] for e in typing_events(ann_rec, topic)] == [True, False]

    # A start and an explicit stop are both relayed.
    time.sleep(1.1)
    typing(bob_conn, f"/app/meetings.{meeting}.typing", True, "again")
    typing(bob_conn, f"/app/meetings.{meeting}.typing", False, "done")
    bob_rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "done")
    ann_rec.wait_messages(4)
    assert [e["typing"] for e in typing_events(ann_rec, topic)] == [True, False, True, False]

    # An outsider is refused; nothing of it is stored in the room.
    cat_conn, cat_rec = connect_ws(server, cat["token"])
    cat_conn.subscribe("/user/queue/errors", id="errors")
    typing(cat_conn, f"/app/meetings.{meeting}.typing", True, "outsider")
    refusal = cat_rec.wait_for("MESSAGE", lambda f: f.headers.get("receipt-id") == "outsider")
    assert refusal.headers["code"] == "meeting.notMember"
    history = server.request("GET", f"/api/v1/meetings/{meeting}/messages", token=ann["token"])[2]["items"]
    assert [m["type"] for m in history] == ["system"]
    for conn in (ann_conn, bob_conn, cat_conn):
        conn.disconnect()


def test_typing_in_a_direct_conversation_reaches_the_friend_only(meetupd):
    server = meetupd()
    ann, bob, cat = register_users(server, 3)
    befriend(server, ann, bob)
    bob_conn, bob_rec = connect_ws(server, bob["token"])
    bob_conn.subscribe("/user/queue/typing", id="typing", headers={"receipt": "sub"})
    bob_rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "sub")
    ann_conn, ann_rec = connect_ws(server, ann["token"])
    ann_conn.subscribe("/user/queue/errors", id="errors")
    typing(ann_conn, f"/app/direct.{bob['id']}.typing", True, "t")
    event = bob_rec.wait_for("MESSAGE", lambda f: f.headers["destination"] == "/user/queue/typing")
    assert json.loads(event.body) == {"userId": ann["id"], "meetingId": None, "typing": True}
    typing(ann_conn, f"/app/direct.{cat['id']}.typing", True, "stranger")
    refusal = ann_rec.wait_for("MESSAGE", lambda f: f.headers.get("receipt-id") == "stranger")
    assert refusal.headers["code"] == "user.notFound"
    assert server.request("GET", "/api/v1/me/rooms", token=ann["token"])[2]["items"] == []
    for conn in (ann_conn, bob_conn):
        conn.disconnect()
