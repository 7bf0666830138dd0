"""`meetupd admin` on content, as a separate process: reading a room, deleting a meeting,
erasing a user while others' chat stays readable."""
import json

from admin_support import admin_json, refused, wait_for
from meetings_support import create_meeting
from stomp_support import connect_ws
from test_admin_cli import feed_ids


def post(server, user, meeting_id, text, client_id):
    conn, recorder = connect_ws(server, user["token"])
    conn.send(f"/app/meetings.{meeting_id}.chat", json.dumps({"text": text, "clientMessageId": client_id}),
              content_type="application/json", headers={"receipt": client_id})
    recorder.wait_for("RECEIPT")
    return conn, recorder


def test_a_room_is_read_and_a_deleted_author_leaves_their_messages_readable(meetupd):
    server = meetupd()
    ann, bob = server.register_user(display_name="Ann"), server.register_user(display_name="Bob")
    meeting = create_meeting(server, ann)
    assert server.request("POST", f"/api/v1/meetings/{meeting['id']}/join", token=bob["token"])[0] == 200
    ann_conn, _ = post(server, ann, meeting["id"], "welcome", "a1")
    bob_conn, bob_rec = post(server, bob, meeting["id"], "buy my coins", "b1")

    # Posts only: the room also holds the system message of Bob joining.
    posts = lambda listed: [m for m in listed if m.get("text") is not None]
    shown = posts(admin_json(server, "messages", "show", meeting["id"]))
    assert [(m["senderName"], m["text"]) for m in shown] == [("Ann", "welcome"), ("Bob", "buy my coins")]
    assert [m["seq"] for m in admin_json(server, "messages", "show", meeting["id"], "--around", "1", "--limit", "2")] == [1, 2]
    assert "meeting.notFound" in refused(server, "messages", "show", "no-such-meeting")

    refused(server, "users", "delete", bob["id"], code=64)  # --reason is required
    assert admin_json(server, "users", "delete", bob["email"], "--reason", "spam account") == {"deleted": bob["email"]}
    assert wait_for(lambda: any(kind == "ERROR" for kind, _ in bob_rec.frames), 1.0)
    assert "user.notFound" in refused(server, "users", "show", bob["id"])
    assert server.request("GET", "/api/v1/me", token=bob["token"])[0] == 401
    after = posts(admin_json(server, "messages", "show", meeting["id"]))
    assert [(m.get("senderId"), m["text"]) for m in after] == [(ann["id"], "welcome"), (None, "buy my coins")]
    status, _, history = server.request("GET", f"/api/v1/meetings/{meeting['id']}/messages", token=ann["token"])
    assert status == 200 and len([m for m in history["items"] if m["type"] == "message"]) == 2
    assert admin_json(server, "audit", "list")[0]["action"] == "user.delete"
    ann_conn.disconnect()


def test_a_deleted_meeting_leaves_the_feed_at_once(meetupd):
    server = meetupd()
    ann = server.register_user()
    meeting = create_meeting(server, ann)
    assert meeting["id"] in feed_ids(server, ann)
    assert admin_json(server, "meetings", "delete", meeting["id"], "--reason", "duplicate") == {"deleted": meeting["id"]}
    assert wait_for(lambda: meeting["id"] not in feed_ids(server, ann), 1.0)
    assert server.request("GET", "/api/v1/meetings/" + meeting["id"], token=ann["token"])[0] == 404
    assert "meeting.notFound" in refused(server, "meetings", "delete", meeting["id"], "--reason", "again")


def test_a_cli_redaction_reaches_the_room_as_deleted(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    meeting = create_meeting(server, ann)
    assert server.request("POST", f"/api/v1/meetings/{meeting['id']}/join", token=bob["token"])[0] == 200
    listener, heard = connect_ws(server, ann["token"])
    listener.subscribe(f"/topic/meetings.{meeting['id']}.chat", id="room", headers={"receipt": "room"})
    heard.wait_for("RECEIPT")
    post(server, bob, meeting["id"], "buy my coins", "b1")
    # The room also carries the system message of Bob joining, which may come first.
    bodies = lambda: [json.loads(m.body) for m in heard.messages()]
    assert wait_for(lambda: any(b["type"] == "message" for b in bodies()), 5.0)
    message = next(b for b in bodies() if b["type"] == "message")
    refused(server, "messages", "redact", message["id"], code=64)  # --reason is required
    assert admin_json(server, "messages", "redact", message["id"], "--reason", "scam") == {"redacted": message["id"]}
    assert wait_for(lambda: any(b["type"] == "deleted" for b in bodies()), 1.0)
    assert "moderation.noChange" in refused(server, "messages", "redact", message["id"], "--reason", "again")
    assert "chatMessage.notFound" in refused(server, "messages", "redact", "no-such-message", "--reason", "x")
    assert admin_json(server, "audit", "list")[0]["action"] == "chatMessage.redact"
    listener.disconnect()


def test_moderators_read_redact_and_delete_over_rest(meetupd):
    server = meetupd()
    mod, ann, bob = server.register_user(), server.register_user(display_name="Ann"), server.register_user()
    admin_json(server, "users", "promote", mod["id"])
    meeting = create_meeting(server, ann)
    conn, _ = post(server, ann, meeting["id"], "buy my coins", "a1")
    call = lambda method, path, body=None, token=mod["token"]: server.request(method, "/api/v1/admin" + path, body, token)

    status, _, problem = call("GET", f"/meetings/{meeting['id']}/messages", token=bob["token"])
    assert status == 403 and problem["code"] == "moderation.forbidden"
    status, _, listed = call("GET", f"/meetings/{meeting['id']}/messages")
    message = next(m for m in listed["items"] if m.get("text") == "buy my coins")
    assert status == 200 and message["senderName"] == "Ann" and listed["nextCursor"] is None
    status, _, problem = call("GET", f"/meetings/{meeting['id']}/messages?around=x")
    assert status == 422 and problem["code"] == "request.invalidFields" and problem["errors"][0]["field"] == "around"
    assert call("GET", "/meetings/nothing/messages")[2]["code"] == "meeting.notFound"

    status, _, problem = call("POST", f"/messages/{message['id']}/redact", {})
    assert status == 422 and problem["errors"][0]["field"] == "reason"
    assert call("POST", f"/messages/{message['id']}/redact", {"reason": "scam"})[0] == 204
    status, _, problem = call("POST", f"/messages/{message['id']}/redact", {"reason": "scam"})
    assert status == 409 and problem["code"] == "moderation.noChange"
    assert call("POST", "/messages/nothing/redact", {"reason": "x"})[2]["code"] == "chatMessage.notFound"
    listed = call("GET", f"/meetings/{meeting['id']}/messages")[2]["items"]
    assert next(m for m in listed if m["id"] == message["id"])["deletedAt"] is not None

    assert call("POST", f"/meetings/{meeting['id']}/delete", {"reason": "scam"})[0] == 204
    assert call("POST", f"/meetings/{meeting['id']}/delete", {"reason": "scam"})[2]["code"] == "meeting.notFound"
    status, _, problem = call("POST", f"/users/{mod['id']}/delete", {"reason": "oops"})
    assert status == 409 and problem["code"] == "moderation.notOnYourself"
    assert call("POST", f"/users/{bob['id']}/delete", {"reason": "spam"})[0] == 204
    assert call("POST", f"/users/{bob['id']}/delete", {"reason": "spam"})[2]["code"] == "user.notFound"
    assert server.request("GET", "/api/v1/me", token=bob["token"])[0] == 401
    actions = [e["action"] for e in call("GET", "/audit")[2]["items"]]
    assert actions[:3] == ["user.delete", "meeting.delete", "chatMessage.redact"]
    conn.disconnect()
