"""Read markers and the chat list through stomp.py over `/ws` and plain HTTP: a marker set over
STOMP (with a receipt) shows in `GET /me/rooms`, never moves back, and the list pages by cursor
in the order of last activity."""
import json
import uuid

from meetings_support import create_meeting, join, register_users
from stomp_support import connect_ws


def post(conn, meeting, text, receipt):
    body = json.dumps({"text": text, "clientMessageId": str(uuid.uuid4())})
    conn.send(f"/app/meetings.{meeting}.chat", body, content_type="application/json", headers={"receipt": receipt})


def rooms(server, user, query=""):
    status, _, page = server.request("GET", "/api/v1/me/rooms" + query, token=user["token"])
    assert status == 200, page
    return page


def test_read_markers_and_unread_counts(meetupd):
    server = meetupd()
    ann, bob = register_users(server, 2)
    first = create_meeting(server, ann, title="First")["id"]
    second = create_meeting(server, ann, title="Second")["id"]
    for meeting in (first, second):
        join(server, bob, meeting)  # seq 1 of each room: the note that Bob joined
    bob_conn, bob_rec = connect_ws(server, bob["token"])
    ann_conn, ann_rec = connect_ws(server, ann["token"])
    ann_conn.subscribe("/user/queue/errors", id="errors")
    for index in range(4):
        post(bob_conn, second, f"second {index}", f"s{index}")
        bob_rec.wait_for("RECEIPT", lambda f, r=f"s{index}": f.headers["receipt-id"] == r)
    post(bob_conn, first, "first", "f")
    bob_rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "f")

    items = rooms(server, ann)["items"]
    # Bob's join notes count, as his messages do; Bob's own never count for him.
    assert [(r["meetingId"], r["unreadCount"], r["role"]) for r in items] == [
        (first, 2, "organizer"), (second, 5, "organizer")]
    assert items[0]["lastMessage"]["text"] == "first"
    assert [r["unreadCount"] for r in rooms(server, bob)["items"]] == [0, 0]

    ann_conn.send(f"/app/meetings.{second}.read", json.dumps({"seq": 3}), content_type="application/json",
                  headers={"receipt": "read"})
    ann_rec.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "read")
    status, _, marker = server.request("POST", f"/api/v1/meetings/{second}/messages/read", {"seq": 1}, ann["token"])
    assert status == 200 and marker == {"lastReadSeq": 3, "unreadCount": 2}
    assert [r["unreadCount"] for r in rooms(server, ann)["items"]] == [2, 2]

    ann_conn.send(f"/app/meetings.{second}.read", json.dumps({"seq": 99}), content_type="application/json",
                  headers={"receipt": "too-far"})
    refusal = ann_rec.wait_for("MESSAGE", lambda f: f.headers.get("receipt-id") == "too-far")
    assert refusal.headers["code"] == "request.invalidFields" and "seq: field.outOfRange" in json.loads(refusal.body)["message"]

    page = rooms(server, ann, "?limit=1")
    assert [r["meetingId"] for r in page["items"]] == [first]
    rest = rooms(server, ann, f"?limit=1&cursor={page['nextCursor']}")
    assert [r["meetingId"] for r in rest["items"]] == [second]
    for conn in (ann_conn, bob_conn):
        conn.disconnect()
