"""Reports from the app (POST /reports, GET /me/reports), and moderators' decisions over
REST with a moderator's token and from `meetupd admin reports` in a separate process."""
import json

from admin_support import admin, admin_json, refused
from direct_support import befriend
from meetings_support import create_meeting, register_users
from stomp_support import connect_ws


def report(server, user, target_type, target_id, reason="spam", **extra):
    return server.request("POST", "/api/v1/reports",
                          {"targetType": target_type, "targetId": target_id, "reason": reason, **extra}, user["token"])


def test_one_open_report_per_target_and_nothing_reported_that_the_reporter_cannot_see(meetupd):
    server = meetupd()
    ann, bob, cat = server.register_user(), server.register_user(), server.register_user()
    status, _, filed = report(server, ann, "user", bob["id"], details="Sends ads to everyone")
    assert status == 201 and filed["status"] == "open" and filed["targetId"] == bob["id"] and filed["details"]
    status, _, problem = report(server, ann, "user", bob["id"], reason="still spam")
    assert status == 409 and problem["code"] == "report.alreadyOpen"
    status, _, _ = report(server, cat, "user", bob["id"])
    assert status == 201  # another reporter's report is their own

    for target_type, target_id in [("user", "no-such-user"), ("user", ann["id"]), ("meeting", "no-such-meeting"),
                                   ("message", "no-such-message")]:
        status, _, problem = report(server, ann, target_type, target_id)
        assert status == 404 and problem["code"] == "report.targetNotFound", (target_type, target_id)
    private = create_meeting(server, bob, visibility="private", title="Secret")
    status, _, problem = report(server, ann, "meeting", private["id"])
    assert status == 404 and problem["code"] == "report.targetNotFound"
    status, _, _ = report(server, bob, "meeting", private["id"])
    assert status == 201

    status, _, problem = report(server, ann, "planet", "x", reason="")
    assert status == 422 and {(e["field"], e["code"]) for e in problem["errors"]} == {
        ("targetType", "field.invalid"), ("reason", "field.required")}
    status, _, problem = report(server, ann, "user", cat["id"], reason="x" * 201)
    assert status == 422 and problem["errors"][0]["code"] == "field.tooLong"

    status, _, mine = server.request("GET", "/api/v1/me/reports", token=ann["token"])
    assert status == 200 and [r["id"] for r in mine["items"]] == [filed["id"]] and mine["nextCursor"] is None
    status, _, theirs = server.request("GET", "/api/v1/me/reports", token=bob["token"])
    assert [r["targetType"] for r in theirs["items"]] == ["meeting"]


def test_moderators_resolve_reports_over_rest_and_the_cli(meetupd):
    server = meetupd()
    ann, bob, mod = server.register_user(), server.register_user(), server.register_user()
    _, _, about_bob = report(server, ann, "user", bob["id"])
    meeting = create_meeting(server, bob, title="Pyramid scheme")
    _, _, about_meeting = report(server, ann, "meeting", meeting["id"], reason="fraud")

    status, _, problem = server.request("GET", "/api/v1/admin/reports", token=mod["token"])
    assert status == 403 and problem["code"] == "moderation.forbidden"
    admin_json(server, "users", "promote", mod["id"])

    status, _, listed = server.request("GET", "/api/v1/admin/reports?open=true", token=mod["token"])
    assert status == 200 and {r["id"] for r in listed["items"]} == {about_bob["id"], about_meeting["id"]}
    assert {r["id"] for r in admin_json(server, "reports", "list", "--open")} == {about_bob["id"], about_meeting["id"]}
    assert admin_json(server, "reports", "show", about_meeting["id"])["reason"] == "fraud"
    assert "report.notFound" in refused(server, "reports", "show", "no-such-report")
    refused(server, "reports", "resolve", about_meeting["id"], "--action", "shrug", code=64)

    dismissed = admin_json(server, "reports", "resolve", about_meeting["id"], "--action", "dismiss", "--note", "satire")
    assert dismissed["status"] == "resolved" and dismissed["resolution"] == "dismiss"
    assert "report.resolved" in refused(server, "reports", "resolve", about_meeting["id"], "--action", "ban")

    status, _, problem = server.request("POST", f"/api/v1/admin/reports/{about_bob['id']}/resolve", {"action": "shrug"}, mod["token"])
    assert status == 422 and problem["errors"][0]["field"] == "action"
    status, _, banned = server.request("POST", f"/api/v1/admin/reports/{about_bob['id']}/resolve",
                                       {"action": "ban", "note": "ads"}, mod["token"])
    assert status == 200 and banned["resolution"] == "ban", banned
    status, _, _ = server.request("GET", "/api/v1/me", token=bob["token"])
    assert status == 401
    status, _, shown = server.request("GET", f"/api/v1/admin/users/{bob['id']}", token=mod["token"])
    assert shown["user"]["banned"] and shown["user"]["banReason"] == "ads"

    status, _, audit = server.request("GET", "/api/v1/admin/audit", token=mod["token"])
    lines = [(e["action"], e["actor"]) for e in audit["items"]]
    assert lines[:3] == [("report.resolve", "user:" + mod["id"]), ("user.ban", "user:" + mod["id"]),
                         ("report.resolve", "cli:tester")]
    status, _, stats = server.request("GET", "/api/v1/admin/stats", token=mod["token"])
    assert status == 200 and stats["openReports"] == 0 and stats["bannedUsers"] == 1 and stats["moderators"] == 1


def test_moderators_act_over_rest_like_the_cli(meetupd):
    server = meetupd()
    mod, bob = server.register_user(), server.register_user(display_name="Bob Rest")
    admin_json(server, "users", "promote", mod["id"])
    token = mod["token"]
    meeting = create_meeting(server, bob)
    status, _, users = server.request("GET", "/api/v1/admin/users?q=Bob%20Rest", token=token)
    assert status == 200 and [u["id"] for u in users["items"]] == [bob["id"]]
    status, _, problem = server.request("GET", "/api/v1/admin/users?limit=0", token=token)
    assert status == 422 and problem["errors"][0]["field"] == "limit"
    status, _, problem = server.request("POST", f"/api/v1/admin/users/{bob['id']}/ban", {}, token)
    assert status == 422 and problem["errors"][0] == {**problem["errors"][0], "field": "reason", "code": "field.required"}
    status, _, problem = server.request("POST", f"/api/v1/admin/users/{mod['id']}/ban", {"reason": "oops"}, token)
    assert status == 409 and problem["code"] == "moderation.notOnYourself"
    status, _, banned = server.request("POST", f"/api/v1/admin/users/{bob['id']}/ban", {"reason": "spam"}, token)
    assert status == 200 and banned["banned"]
    status, _, unbanned = server.request("POST", f"/api/v1/admin/users/{bob['id']}/unban", {}, token)
    assert status == 200 and not unbanned["banned"]
    status, _, problem = server.request("POST", "/api/v1/admin/users/nobody/promote", token=token)
    assert status == 404 and problem["code"] == "user.notFound"

    status, _, cancelled = server.request("POST", f"/api/v1/admin/meetings/{meeting['id']}/cancel", {"reason": "scam"}, token)
    assert status == 200 and cancelled["status"] == "cancelled"
    status, _, listed = server.request("GET", "/api/v1/admin/meetings?all=true", token=token)
    assert [m["id"] for m in listed["items"]] == [meeting["id"]]
    status, _, problem = server.request("GET", "/api/v1/admin/meetings/nothing", token=token)
    assert status == 404 and problem["code"] == "meeting.notFound"


def test_a_direct_message_is_reported_by_its_recipient_and_read_by_moderators(meetupd):
    server = meetupd()
    ann, bob, cat, mod = register_users(server, 4)
    befriend(server, ann, bob)
    admin_json(server, "users", "promote", mod["id"])
    conn, recorder = connect_ws(server, ann["token"])
    conn.send(f"/app/direct.{bob['id']}", json.dumps({"text": "send me money", "clientMessageId": "c1"}),
              content_type="application/json", headers={"receipt": "sent"})
    recorder.wait_for("RECEIPT", lambda f: f.headers.get("receipt-id") == "sent")
    conn.disconnect()
    status, _, page = server.request("GET", f"/api/v1/direct/{ann['id']}/messages", token=bob["token"])
    assert status == 200, page
    message_id = page["items"][0]["id"]

    status, _, problem = report(server, cat, "message", message_id)  # not her conversation
    assert status == 404 and problem["code"] == "report.targetNotFound"
    status, _, filed = report(server, bob, "message", message_id, reason="scam")
    assert status == 201, filed

    shown = admin_json(server, "reports", "show", filed["id"])
    assert shown["roomId"].startswith("direct:") and shown["reason"] == "scam"
    assert (shown["message"]["text"], shown["message"]["senderId"]) == ("send me money", ann["id"])
    status, _, over_rest = server.request("GET", f"/api/v1/admin/reports/{filed['id']}", token=mod["token"])
    assert status == 200 and over_rest["message"] == shown["message"] and over_rest["roomId"] == shown["roomId"]
    status, _, about_ann = report(server, bob, "user", ann["id"])
    assert status == 201
    not_a_message = admin_json(server, "reports", "show", about_ann["id"])
    assert not_a_message["roomId"] is None and not_a_message["message"] is None
    table = admin(server, "reports", "show", filed["id"])
    assert table.returncode == 0 and "send me money" in table.stdout and "direct:" in table.stdout

    # Redaction takes the text out of the conversation and tells Bob's open session at once.
    conn, recorder = connect_ws(server, bob["token"])
    conn.subscribe("/user/queue/direct", id="direct", headers={"receipt": "listening"})
    recorder.wait_for("RECEIPT", lambda f: f.headers.get("receipt-id") == "listening")
    resolved = admin_json(server, "reports", "resolve", filed["id"], "--action", "redact", "--note", "scam")
    assert resolved["resolution"] == "redact"
    deleted = json.loads(recorder.wait_for("MESSAGE", lambda f: json.loads(f.body).get("type") == "deleted").body)
    assert (deleted["refersToSeq"], deleted["roomId"]) == (1, shown["roomId"])
    conn.disconnect()
    status, _, page = server.request("GET", f"/api/v1/direct/{ann['id']}/messages", token=bob["token"])
    assert [(m["type"], m.get("text")) for m in page["items"]] == [("deleted", None), ("message", None)]

    assert "report.resolved" in refused(server, "reports", "resolve", filed["id"], "--action", "redact")
    resolved = admin_json(server, "reports", "resolve", about_ann["id"], "--action", "ban", "--note", "scam")
    assert resolved["resolution"] == "ban"
    assert server.request("GET", "/api/v1/me", token=ann["token"])[0] == 401
