"""`meetupd admin users` on accounts, as a separate process against a running server:
temporary bans that lapse by themselves, a password reset mailed on a moderator's word, and
what `users show` gathers (devices, reports)."""
import datetime
import time

from admin_support import admin, admin_json, refused, wait_for
from meetings_support import create_meeting
from notifications_support import add_device


def rfc3339(seconds_from_now: float) -> str:
    moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds_from_now)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def login(server, user):
    return server.request("POST", "/api/v1/auth/login", {"email": user["email"], "password": user["password"]})


def test_a_temporary_ban_lapses_by_itself_on_the_running_server(meetupd):
    server = meetupd()
    ann, bob, carl, mod = (server.register_user() for _ in range(4))
    assert "--until" in refused(server, "users", "ban", ann["id"], "--reason", "x", "--until", "next week", code=64)
    assert "moderation.banEndPassed" in refused(server, "users", "ban", ann["id"], "--reason", "x", "--until", "2020-01-01")

    # Ann at login (lifted at once), Bob by the server's sweep (within its 5 s period).
    # (The debug CLI takes a second or two to start on a busy machine: hence 6 s.)
    until = rfc3339(6)
    banned = admin_json(server, "users", "ban", ann["email"], "--reason", "cool off", "--until", until)
    assert banned["banned"] and banned["bannedUntil"] == until
    status, _, problem = login(server, ann)
    assert status == 403 and problem["code"] == "account.banned"
    assert server.request("GET", "/api/v1/me", token=ann["token"])[0] == 401
    assert admin_json(server, "users", "ban", bob["id"], "--reason", "cool off", "--until", until)["banned"]

    # Over REST too: `until` must lie ahead.
    admin_json(server, "users", "promote", mod["id"])
    status, _, problem = server.request("POST", f"/api/v1/admin/users/{carl['id']}/ban", {"reason": "x", "until": "2020-01-01T00:00:00Z"},
                                        token=mod["token"])
    assert status == 422 and problem["code"] == "moderation.banEndPassed"
    status, _, carl_banned = server.request("POST", f"/api/v1/admin/users/{carl['id']}/ban", {"reason": "x", "until": rfc3339(3600)},
                                            token=mod["token"])
    assert status == 200 and carl_banned["bannedUntil"] is not None

    time.sleep(max(0.0, datetime.datetime.fromisoformat(until.replace("Z", "+00:00")).timestamp() - time.time()) + 1.0)
    status, _, session = login(server, ann)
    assert status == 200 and session["user"]["id"] == ann["id"]
    shown = lambda: admin_json(server, "users", "show", bob["id"])["user"]
    assert wait_for(lambda: not shown()["banned"], 8.0)
    assert shown().get("bannedUntil") is None
    lapses = [e for e in admin_json(server, "audit", "list") if e["action"] == "user.banLapsed"]
    assert sorted(e["targetId"] for e in lapses) == sorted([ann["id"], bob["id"]]) and lapses[0]["actor"] == "system"


def test_a_moderator_mails_a_password_reset_and_sees_devices_and_reports(meetupd):
    server = meetupd()
    ann, bob = server.register_user(display_name="Ann"), server.register_user()
    assert "user.notFound" in refused(server, "users", "reset-password", "nobody@example.org")
    # Queued by the CLI, sent by the running server with its own public address in the link.
    assert admin_json(server, "users", "reset-password", ann["id"]) == {"mailed": ann["email"]}
    token = server.mailed_token(ann["email"], "reset")
    status, _, _ = server.request("POST", "/api/v1/auth/password/reset", {"token": token, "newPassword": "a brand new password"})
    assert status == 204
    ann["password"] = "a brand new password"
    status, _, session = login(server, ann)
    assert status == 200
    ann["token"] = session["accessToken"]  # the reset ended the old sessions
    assert admin_json(server, "audit", "list")[0]["action"] == "user.resetPassword"

    add_device(server, ann, "a" * 64, appVersion="2.1")
    meeting = create_meeting(server, ann)
    for target_type, target_id in [("user", ann["id"]), ("meeting", meeting["id"])]:
        status, _, _ = server.request("POST", "/api/v1/reports", {"targetType": target_type, "targetId": target_id, "reason": "spam"},
                                      token=bob["token"])
        assert status == 201
    details = admin_json(server, "users", "show", ann["email"])
    assert [(d["pushService"], d["appVersion"]) for d in details["devices"]] == [("apns", "2.1")]
    assert "token" not in details["devices"][0]
    assert sorted(r["targetType"] for r in details["reports"]) == ["meeting", "user"]
    table = admin(server, "users", "show", ann["id"]).stdout
    assert "device" in table and "report" in table and "apns" in table

    admin_json(server, "users", "ban", ann["id"], "--reason", "spam")
    assert "account.banned" in refused(server, "users", "reset-password", ann["id"])


def test_a_moderator_mails_a_password_reset_over_rest(meetupd):
    server = meetupd()
    mod, ann, bob = (server.register_user() for _ in range(3))
    admin_json(server, "users", "promote", mod["id"])
    path = "/api/v1/admin/users/{}/reset-password"
    status, _, problem = server.request("POST", path.format(bob["id"]), token=ann["token"])
    assert status == 403 and problem["code"] == "moderation.forbidden"

    status, _, answer = server.request("POST", path.format(ann["id"]), token=mod["token"])
    assert status == 200 and answer == {"mailed": ann["email"]}
    token = server.mailed_token(ann["email"], "reset")  # the same mail as the CLI's and forgot's
    status, _, _ = server.request("POST", "/api/v1/auth/password/reset", {"token": token, "newPassword": "another new password"})
    assert status == 204
    status, _, _ = login(server, {**ann, "password": "another new password"})
    assert status == 200
    entry = admin_json(server, "audit", "list", "--target", ann["id"])[0]
    assert (entry["action"], entry["actor"]) == ("user.resetPassword", "user:" + mod["id"])

    status, _, problem = server.request("POST", path.format("nobody@example.org"), token=mod["token"])
    assert status == 404 and problem["code"] == "user.notFound"
    admin_json(server, "users", "ban", bob["id"], "--reason", "spam")
    status, _, problem = server.request("POST", path.format(bob["id"]), token=mod["token"])
    assert status == 403 and problem["code"] == "account.banned"
