"""A meeting's STOMP rooms through stomp.py over `/ws`: members only, and a private meeting
the caller has no part in is refused exactly like a meeting that does not exist."""
import json

from meetings_support import create_meeting, register_users
from stomp_support import connect_ws, subscribe_for_answer


def test_meeting_rooms_are_for_members_only(meetupd):
    server = meetupd()
    ann, bob, cy, dan = register_users(server, 4)
    public = create_meeting(server, ann)["id"]
    private = create_meeting(server, ann, visibility="private", inviteeIds=[dan["id"]])["id"]
    assert server.request("POST", f"/api/v1/meetings/{public}/join", token=bob["token"])[0] == 200

    sessions = {}
    for name, user in [("organizer", ann), ("member", bob), ("outsider", cy), ("invitee", dan)]:
        conn, rec = connect_ws(server, user["token"])
        conn.subscribe("/user/queue/errors", id="errors")
        sessions[name] = (conn, rec)

    def answer(who, destination):
        return subscribe_for_answer(*sessions[who], destination)

    for room in ("chat", "typing", "locations"):
        assert answer("organizer", f"/topic/meetings.{public}.{room}").cmd == "RECEIPT"
        assert answer("organizer", f"/topic/meetings.{private}.{room}").cmd == "RECEIPT"
        assert answer("member", f"/topic/meetings.{public}.{room}").cmd == "RECEIPT"

    refused = answer("outsider", f"/topic/meetings.{public}.chat")
    assert refused.cmd == "MESSAGE" and refused.headers["code"] == "meeting.notMember"
    body = json.loads(refused.body)
    assert body["code"] == "meeting.notMember" and body["destination"] == f"/topic/meetings.{public}.chat"
    assert answer("invitee", f"/topic/meetings.{private}.chat").headers["code"] == "meeting.notMember"

    hidden = json.loads(answer("outsider", f"/topic/meetings.{private}.chat").body)
    unknown = json.loads(answer("outsider", "/topic/meetings.doesNotExist.chat").body)
    assert hidden["code"] == unknown["code"] == "meeting.notFound"
    # Apart from what the client named (the destination, and the subscription's id), the two
    # refusals are the same.
    echoed = ("destination", "subscription")
    assert {k: v for k, v in hidden.items() if k not in echoed} == {k: v for k, v in unknown.items() if k not in echoed}
    # The session carries on after its refusals.
    assert answer("outsider", f"/topic/meetings.{public}.typing").headers["code"] == "meeting.notMember"
    for conn, _ in sessions.values():
        conn.disconnect()


def test_without_an_errors_queue_a_refusal_ends_the_session_alike(meetupd):
    server = meetupd()
    ann, cy = register_users(server, 2)
    private = create_meeting(server, ann, visibility="private")["id"]
    messages = []
    for meeting in (private, "doesNotExist"):
        conn, rec = connect_ws(server, cy["token"])
        conn.subscribe(f"/topic/meetings.{meeting}.chat", id="chat")
        messages.append(rec.wait_for("ERROR").headers["message"])
        rec.wait_for("DISCONNECTED")
    assert messages[0] == messages[1]


def test_a_session_ends_with_its_sign_in(meetupd):
    """Logging out over REST ends the sign-in of a connected STOMP session too, at once and
    without waiting for its next frame: ERROR `auth.sessionEnded`, then the close."""
    server = meetupd()
    (ann,) = register_users(server, 1)
    meeting = create_meeting(server, ann)["id"]
    conn, rec = connect_ws(server, ann["token"])
    conn.subscribe("/user/queue/errors", id="errors")
    assert subscribe_for_answer(conn, rec, f"/topic/meetings.{meeting}.typing").cmd == "RECEIPT"

    assert server.request("POST", "/api/v1/auth/logout", token=ann["token"])[0] == 204
    error = rec.wait_for("ERROR")
    assert error.headers["code"] == "auth.sessionEnded"
    rec.wait_for("DISCONNECTED")
