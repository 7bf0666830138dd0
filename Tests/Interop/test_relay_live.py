"""What is live but never stored crosses nodes too (docs/scaling.md, `LiveRelay`): typing in a
room and in a direct conversation, members on the way (live and in a new subscriber's
snapshot), a member's departure ending their subscriptions on the other node (also while the relay is
down), and presence (a
friend online on one node is online to a friend on another, in the snapshot and live, and
offline once gone from every node)."""
import json
import time

from direct_support import befriend
from meetings_support import register_users
from relay_support import nodes, room, wait_until
from stomp_support import connect_ws


def subscribed(node, user, destination):
    """A session of `user` on `node` with a receipted subscription to `destination`."""
    conn, recorder = connect_ws(node, user["token"])
    conn.subscribe(destination, id="live", headers={"receipt": "live"})
    recorder.wait_for("RECEIPT", lambda f: f.headers.get("receipt-id") == "live")
    return conn, recorder


def keep_typing_until_heard(sender, destination, recorder, heard_on):
    """Typing is relayed live and never stored: what is sent before the other node follows the
    topic on the relay is gone, as for a client that subscribes a moment later. So type (the
    relay lets through one start a second) until the other node's session hears it."""
    deadline = time.monotonic() + 60
    while not [f for f in recorder.messages() if f.headers["destination"] == heard_on]:
        assert time.monotonic() < deadline, f"nothing heard on {heard_on}"
        sender.send(destination, json.dumps({"typing": True}), content_type="application/json")
        time.sleep(1.1)
    return json.loads(next(f for f in recorder.messages() if f.headers["destination"] == heard_on).body)


def test_typing_crosses_nodes_in_rooms_and_direct_conversations(meetupd, rabbitmq):
    a, b = nodes(meetupd, rabbitmq)
    ann, bob = register_users(a, 2)
    befriend(a, ann, bob)
    meeting = room(a, [ann, bob])
    topic = f"/topic/meetings.{meeting}.typing"
    listener, on_b = subscribed(b, bob, topic)
    listener.subscribe("/user/queue/typing", id="direct-typing")
    typist, _ = connect_ws(a, ann["token"])
    assert keep_typing_until_heard(typist, f"/app/meetings.{meeting}.typing", on_b, topic) == \
        {"userId": ann["id"], "meetingId": meeting, "typing": True}
    assert keep_typing_until_heard(typist, f"/app/direct.{bob['id']}.typing", on_b, "/user/queue/typing") == \
        {"userId": ann["id"], "meetingId": None, "typing": True}
    typist.disconnect()
    listener.disconnect()


def test_members_on_the_way_show_on_every_node(meetupd, rabbitmq):
    # The meeting starts in a day: open the sharing window that far.
    a, b = nodes(meetupd, rabbitmq, "--location-lead", "172800")
    ann, bob, cat = register_users(a, 3)
    meeting = room(a, [ann, bob, cat])
    topic = f"/topic/meetings.{meeting}.locations"
    watcher, on_b = subscribed(b, bob, topic)
    walker, on_a = connect_ws(a, ann["token"])
    position = {"lat": 50.45, "lon": 30.52, "accuracy": 8.0}
    # Live only, like typing: report (within the rate limit) until the other node hears it.
    deadline = time.monotonic() + 60
    while not [f for f in on_b.messages() if f.headers["destination"] == topic]:
        assert time.monotonic() < deadline, "ann's position never reached b"
        walker.send(f"/app/meetings.{meeting}.location", json.dumps(position), content_type="application/json")
        time.sleep(1.5)
    heard = json.loads(next(f for f in on_b.messages() if f.headers["destination"] == topic).body)
    assert heard["userId"] == ann["id"] and (heard["lat"], heard["lon"]) == (50.45, 30.52)
    # A new subscriber on b starts from a snapshot that has ann in it.
    late, on_late = subscribed(b, cat, topic)
    snapshot = [json.loads(f.body) for f in on_late.messages() if f.headers["destination"] == topic]
    assert [entry["userId"] for entry in snapshot] == [ann["id"]]
    walker.send(f"/app/meetings.{meeting}.location", json.dumps({"stop": True}), content_type="application/json")
    wait_until(lambda: any(json.loads(f.body).get("stopped") for f in on_b.messages()
                           if f.headers["destination"] == topic), "ann's stop on b")
    for conn in (watcher, walker, late):
        conn.disconnect()


def test_a_member_who_leaves_on_one_node_stops_hearing_the_room_on_another(meetupd, rabbitmq):
    a, b = nodes(meetupd, rabbitmq)
    ann, bob = register_users(a, 2)
    meeting = room(a, [ann, bob])
    chat = f"/topic/meetings.{meeting}.chat"
    reader, on_b = subscribed(b, bob, chat)
    reader.subscribe("/user/queue/errors", id="errors")
    writer, _ = connect_ws(a, ann["token"])
    writer.send(f"/app/meetings.{meeting}.chat", json.dumps({"text": "hello", "clientMessageId": "c1"}),
                content_type="application/json")
    # The room's first post reaching b means b follows the room on the relay.
    wait_until(lambda: any(f.headers["destination"] == chat for f in on_b.messages()), "the first post on b")
    assert a.request("POST", f"/api/v1/meetings/{meeting}/leave", token=bob["token"])[0] == 204
    refusal = on_b.wait_for("MESSAGE", lambda f: f.headers["destination"] == "/user/queue/errors")
    assert json.loads(refusal.body)["code"] == "meeting.notMember"
    heard = len([f for f in on_b.messages() if f.headers["destination"] == chat])
    writer.send(f"/app/meetings.{meeting}.chat", json.dumps({"text": "after", "clientMessageId": "c2"}),
                content_type="application/json", headers={"receipt": "after"})
    time.sleep(2.5)  # longer than the relay's sweep: nothing more may arrive on b
    assert len([f for f in on_b.messages() if f.headers["destination"] == chat]) == heard
    writer.disconnect()
    reader.disconnect()


def test_a_leave_while_the_relay_is_down_still_ends_the_room_on_another_node(meetupd, rabbitmq):
    a, b = nodes(meetupd, rabbitmq)
    ann, bob = register_users(a, 2)
    meeting = room(a, [ann, bob])
    chat = f"/topic/meetings.{meeting}.chat"
    reader, on_b = subscribed(b, bob, chat)
    reader.subscribe("/user/queue/errors", id="errors", headers={"receipt": "errors"})
    on_b.wait_for("RECEIPT", lambda f: f.headers.get("receipt-id") == "errors")
    rabbitmq.stop()
    try:
        # a's departure reaches nobody through the relay: b learns it from the change log.
        assert a.request("POST", f"/api/v1/meetings/{meeting}/leave", token=bob["token"])[0] == 204
        refusal = on_b.wait_for("MESSAGE", lambda f: f.headers["destination"] == "/user/queue/errors")
        assert json.loads(refusal.body)["code"] == "meeting.notMember"
        assert chat in refusal.body
    finally:
        rabbitmq.start()
    # Once a member on b hears a post made after the restart, bob would have heard it too.
    writer, on_writer = subscribed(b, ann, chat)
    writer.send(f"/app/meetings.{meeting}.chat", json.dumps({"text": "after", "clientMessageId": "c1"}),
                content_type="application/json")
    wait_until(lambda: any(f.headers["destination"] == chat and "after" in f.body for f in on_writer.messages()),
               "the post after the restart on b")
    assert not [f for f in on_b.messages() if f.headers["destination"] == chat]
    writer.disconnect()
    reader.disconnect()


def test_presence_is_the_same_on_every_node(meetupd, rabbitmq):
    a, b = nodes(meetupd, rabbitmq, "--presence-grace", "1")
    ann, bob = register_users(a, 2)
    befriend(a, ann, bob)
    ann_conn, _ = connect_ws(a, ann["token"])

    def ann_in_snapshot():
        """A fresh subscription on b: how its snapshot shows ann."""
        conn, recorder = subscribed(b, bob, "/topic/presence.friends")
        status = next(json.loads(f.body)["status"] for f in recorder.messages()
                      if json.loads(f.body)["userId"] == ann["id"])
        return conn, recorder, status

    deadline = time.monotonic() + 60
    while True:
        bob_conn, on_b, status = ann_in_snapshot()
        if status == "online":
            break
        bob_conn.disconnect()
        assert time.monotonic() < deadline, "ann never showed online on b"
        time.sleep(0.5)
    ann_conn.disconnect()
    wait_until(lambda: [json.loads(f.body)["status"] for f in on_b.messages()
                        if json.loads(f.body)["userId"] == ann["id"]][-1] == "offline", "ann offline on b")
    bob_conn.disconnect()
