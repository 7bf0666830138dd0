"""Presence through stomp.py over `/ws`, with a 2-second grace: a snapshot of the friends when
subscribing to `/topic/presence.friends`, online with the first device and offline only after
the last one has been gone for the grace (a quick reconnect makes no flap), away at once from
`/app/presence`, hidden presence, and strangers hearing nothing."""
import json
import time
from datetime import datetime

from direct_support import befriend
from meetings_support import register_users
from stomp_support import connect_ws


def watch(server, user):
    conn, recorder = connect_ws(server, user["token"])
    conn.subscribe("/topic/presence.friends", id="presence", headers={"receipt": "snapshot"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "snapshot")
    return conn, recorder


def statuses(recorder, user):
    return [json.loads(f.body)["status"] for f in recorder.messages()
            if f.headers["destination"] == "/topic/presence.friends" and json.loads(f.body)["userId"] == user["id"]]


def wait_status(recorder, user, count):
    deadline = time.monotonic() + 10
    while len(statuses(recorder, user)) < count:
        assert time.monotonic() < deadline, statuses(recorder, user)
        time.sleep(0.02)
    return statuses(recorder, user)


def test_friends_see_each_other_come_and_go_without_flaps(meetupd):
    server = meetupd("--presence-grace", "2")
    ann, bob, cat = register_users(server, 3)
    befriend(server, ann, bob)
    ann_conn, ann_rec = watch(server, ann)
    cat_conn, cat_rec = watch(server, cat)
    # The snapshot: Bob, a friend, offline and never seen.
    assert [json.loads(f.body) for f in ann_rec.messages()] == [{"userId": bob["id"], "status": "offline", "lastSeenAt": None}]

    phone, _ = connect_ws(server, bob["token"])
    tablet, _ = connect_ws(server, bob["token"])
    assert wait_status(ann_rec, bob, 2) == ["offline", "online"]
    phone.send("/app/presence", json.dumps({"status": "away"}), content_type="application/json", headers={"receipt": "a"})
    tablet.send("/app/presence", json.dumps({"status": "away"}), content_type="application/json", headers={"receipt": "b"})
    assert wait_status(ann_rec, bob, 3)[-1] == "away"
    # The phone drops and reconnects within the grace: no offline, no flap.
    phone.disconnect()
    tablet.disconnect()
    phone, _ = connect_ws(server, bob["token"])
    assert wait_status(ann_rec, bob, 4)[-1] == "online"
    phone.disconnect()
    final = wait_status(ann_rec, bob, 5)
    assert final == ["offline", "online", "away", "online", "offline"]
    last = [json.loads(f.body) for f in ann_rec.messages()][-1]
    assert last["lastSeenAt"] is not None
    # A new subscriber's snapshot shows the last-seen time.
    again, again_rec = watch(server, ann)
    assert json.loads(again_rec.messages()[0].body)["status"] == "offline"
    assert cat_rec.messages() == []  # not a friend: hears nothing
    for conn in (ann_conn, cat_conn, again):
        conn.disconnect()


def test_hidden_presence_looks_offline_to_everyone(meetupd):
    server = meetupd("--presence-grace", "2")
    ann, bob = register_users(server, 2)
    befriend(server, ann, bob)
    ann_conn, ann_rec = watch(server, ann)
    bob_conn, _ = connect_ws(server, bob["token"])
    assert wait_status(ann_rec, bob, 2) == ["offline", "online"]
    status, _, body = server.request("PUT", "/api/v1/me/presence", {"hidden": True}, bob["token"])
    assert status == 200 and body == {"hidden": True}
    assert wait_status(ann_rec, bob, 3)[-1] == "offline"
    assert json.loads(ann_rec.messages()[-1].body)["lastSeenAt"] is None
    # Reconnecting while hidden tells nobody anything.
    bob_conn.disconnect()
    bob_conn, _ = connect_ws(server, bob["token"])
    time.sleep(0.5)
    again, again_rec = watch(server, ann)
    assert [json.loads(f.body)["status"] for f in again_rec.messages()] == ["offline"]
    assert statuses(ann_rec, bob) == ["offline", "online", "offline"]
    for conn in (ann_conn, bob_conn, again):
        conn.disconnect()


def test_a_block_stops_presence_at_once(meetupd):
    server = meetupd("--presence-grace", "2")
    ann, bob = register_users(server, 2)
    befriend(server, ann, bob)
    ann_conn, ann_rec = watch(server, ann)
    bob_conn, _ = connect_ws(server, bob["token"])
    assert wait_status(ann_rec, bob, 2) == ["offline", "online"]
    assert server.request("POST", "/api/v1/blocks", {"userId": bob["id"]}, ann["token"])[0] in (200, 201, 204)
    bob_conn.send("/app/presence", json.dumps({"status": "away"}), content_type="application/json", headers={"receipt": "a"})
    bob_conn.disconnect()
    time.sleep(3)  # past the grace: an offline event would have gone out by now
    assert statuses(ann_rec, bob) == ["offline", "online"]
    ann_conn.disconnect()


def test_a_friends_profile_says_when_they_were_last_seen(meetupd):
    server = meetupd("--presence-grace", "1")
    ann, bob, cat = register_users(server, 3)
    befriend(server, ann, bob)

    def last_seen(viewer):
        status, _, profile = server.request("GET", f"/api/v1/users/{bob['id']}", token=viewer["token"])
        assert status == 200, profile
        return profile.get("lastSeenAt")

    assert last_seen(ann) is None  # never connected
    ann_conn, ann_rec = watch(server, ann)
    bob_conn, _ = connect_ws(server, bob["token"])
    wait_status(ann_rec, bob, 2)
    assert last_seen(ann) is not None  # online: seen now
    assert last_seen(cat) is None  # a stranger learns nothing
    bob_conn.disconnect()
    assert wait_status(ann_rec, bob, 3)[-1] == "offline"
    went = datetime.fromisoformat(json.loads(ann_rec.messages()[-1].body)["lastSeenAt"])
    assert abs((datetime.fromisoformat(last_seen(ann)) - went).total_seconds()) < 1  # offline: when the friends were told
    assert server.request("PUT", "/api/v1/me/presence", {"hidden": True}, bob["token"])[0] == 200
    assert last_seen(ann) is None  # hidden from everyone
    ann_conn.disconnect()
