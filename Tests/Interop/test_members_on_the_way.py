"""Members on the way through stomp.py over `/ws`: a member's position reaches the meeting's
subscribers with distance and ETA, outsiders are refused, a stop and a lost connection end the
sharing, positions are rate-limited, and nothing of them reaches the SQLite files."""
import glob
import json
import math
import os
import struct

from meetings_support import create_meeting, join, register_users
from stomp_support import connect_ws, subscribe_for_answer

# A position nobody else uses, so that finding it in a file can only mean it was stored.
LAT, LON = 50.4612345, 30.5412345


def send_position(conn, meeting, receipt, **body):
    conn.send(f"/app/meetings.{meeting}.location", json.dumps(body or {"lat": LAT, "lon": LON, "accuracy": 8.0}),
              content_type="application/json", headers={"receipt": receipt})


def answer(recorder, receipt):
    return recorder.wait_for(("RECEIPT", "MESSAGE"), lambda f: f.headers.get("receipt-id") == receipt)


def haversine_m(a, b):
    (lat1, lon1), (lat2, lon2) = [(math.radians(x), math.radians(y)) for x, y in (a, b)]
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371008.8 * math.asin(min(1, math.sqrt(h)))


def test_members_on_the_way_share_stop_and_leave_nothing_on_disk(meetupd):
    # The meeting starts in a day: open the window that far, and end lost sharing after 1 s.
    server = meetupd("--location-lead", "172800", "--location-disconnect-grace", "1")
    ann, bob, cat = register_users(server, 3)
    meeting = create_meeting(server, ann)
    join(server, bob, meeting["id"])
    topic = f"/topic/meetings.{meeting['id']}.locations"
    ann_conn, ann_rec = connect_ws(server, ann["token"])
    assert subscribe_for_answer(ann_conn, ann_rec, topic).cmd == "RECEIPT"
    bob_conn, bob_rec = connect_ws(server, bob["token"])
    bob_conn.subscribe("/user/queue/errors", id="errors")

    send_position(bob_conn, meeting["id"], "p1")
    assert answer(bob_rec, "p1").cmd == "RECEIPT"
    update = json.loads(ann_rec.wait_for("MESSAGE", lambda f: f.headers["destination"] == topic).body)
    distance = haversine_m((LAT, LON), (meeting["place"]["lat"], meeting["place"]["lon"]))
    assert set(update) == {"userId", "lat", "lon", "distanceMeters", "etaSeconds", "updatedAt"}
    assert update["userId"] == bob["id"] and (update["lat"], update["lon"]) == (LAT, LON)
    assert abs(update["distanceMeters"] - distance) <= 2
    assert abs(update["etaSeconds"] - distance / 1.4) <= 2  # walking pace: no speed known yet

    # An outsider is refused like in the chat room; a member's bad body is refused by field.
    cat_conn, cat_rec = connect_ws(server, cat["token"])
    cat_conn.subscribe("/user/queue/errors", id="errors")
    send_position(cat_conn, meeting["id"], "outsider")
    assert answer(cat_rec, "outsider").headers["code"] == "meeting.notMember"
    send_position(bob_conn, meeting["id"], "bad", lat=LAT, lon=200.0, accuracy=5.0, speed=-1.0)
    refusal = answer(bob_rec, "bad")
    assert refusal.headers["code"] == "location.invalid"
    assert "lon: field.outOfRange" in refusal.body and "speed: field.outOfRange" in refusal.body

    # A stop is heard by the subscribers.
    send_position(bob_conn, meeting["id"], "stop", stop=True)
    assert answer(bob_rec, "stop").cmd == "RECEIPT"
    stopped = ann_rec.wait_for("MESSAGE", lambda f: f.headers["destination"] == topic and "stopped" in json.loads(f.body))
    assert json.loads(stopped.body) == {"userId": bob["id"], "stopped": True}

    # Positions are rate-limited per user: a burst of five, then one a second.
    for index in range(12):
        send_position(bob_conn, meeting["id"], f"r{index}")
    answers = [answer(bob_rec, f"r{index}") for index in range(12)]
    assert any(a.headers.get("code") == "locationSharing.rateLimited" for a in answers)
    assert answers[0].cmd == "RECEIPT"

    # Bob's connection drops: after the grace his sharing ends by itself.
    bob_conn.disconnect()
    lost = ann_rec.wait_for("MESSAGE", lambda f: f.headers["destination"] == topic and "stopped" in json.loads(f.body)
                            and f is not stopped)
    assert json.loads(lost.body) == {"userId": bob["id"], "stopped": True}
    for conn in (ann_conn, cat_conn):
        conn.disconnect()

    # Positions live in memory only: no file of the data directory holds one, as text or as
    # SQLite's big-endian REAL.
    server.stop()
    needles = [str(LAT).encode(), str(LON).encode(), struct.pack(">d", LAT), struct.pack(">d", LON)]
    files = [p for p in glob.glob(os.path.join(server.data, "**"), recursive=True) if os.path.isfile(p)]
    assert any(p.endswith(".sqlite") or "meetupd" in os.path.basename(p) for p in files), files
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        assert not any(needle in data for needle in needles), path
