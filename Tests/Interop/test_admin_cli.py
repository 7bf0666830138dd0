"""`meetupd admin` as a separate process beside a running server: users, meetings, the
audit log, statistics, database backup and check; success and failure paths, --json parsed."""
import os
import sqlite3
import subprocess
import tempfile
import threading

from admin_support import BINARY, admin, admin_json, refused, wait_for
from meetings_support import KYIV, create_meeting
from stomp_support import connect_ws


def test_help_names_every_group():
    result = subprocess.run([BINARY, "admin", "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for group in ["users", "meetings", "messages", "reports", "audit", "stats", "db", "notifications"]:
        assert group in result.stdout
    ban = subprocess.run([BINARY, "admin", "users", "ban", "--help"], capture_output=True, text=True, timeout=60)
    assert ban.returncode == 0 and "--reason" in ban.stdout and "--json" in ban.stdout and "--data-dir" in ban.stdout


def test_users_are_listed_searched_shown_and_moderated(meetupd):
    server = meetupd()
    ann = server.register_user(display_name="Ann Moderator")
    bob = server.register_user(display_name="Bob Spammer")

    listed = admin_json(server, "users", "list")
    assert {ann["id"], bob["id"]} <= {user["id"] for user in listed}
    table = admin(server, "users", "list")
    assert table.returncode == 0 and bob["email"] in table.stdout and table.stdout.startswith("id ")
    found = admin_json(server, "users", "search", "Spammer")
    assert [user["id"] for user in found] == [bob["id"]]
    shown = admin_json(server, "users", "show", bob["email"])
    assert shown["user"]["id"] == bob["id"] and shown["activeSessions"] == 1 and shown["user"]["confirmed"]

    reason = refused(server, "users", "show", "nobody@example.org")
    assert reason.count("\n") == 0 and "user.notFound" in reason
    assert "user.notFound" in refused(server, "users", "ban", "nobody@example.org", "--reason", "x")
    refused(server, "users", "ban", bob["id"], code=64)  # --reason is required
    refused(server, "users", "list", "--limit", "0", code=64)

    banned = admin_json(server, "users", "ban", bob["id"], "--reason", "spam")
    assert banned["banned"] and banned["banReason"] == "spam"
    status, _, problem = server.request("GET", "/api/v1/me", token=bob["token"])
    assert status == 401, problem
    assert "moderation.noChange" in refused(server, "users", "ban", bob["id"], "--reason", "again")
    status, _, problem = server.request("POST", "/api/v1/auth/login", {"email": bob["email"], "password": bob["password"]})
    assert status == 403 and problem["code"] == "account.banned"

    assert not admin_json(server, "users", "unban", bob["email"], "--reason", "appeal")["banned"]
    status, _, _ = server.request("POST", "/api/v1/auth/login", {"email": bob["email"], "password": bob["password"]})
    assert status == 200
    assert "moderation.noChange" in refused(server, "users", "unban", bob["id"])

    assert admin_json(server, "users", "promote", ann["id"])["role"] == "moderator"
    assert "moderation.noChange" in refused(server, "users", "promote", ann["id"])
    assert admin_json(server, "users", "demote", ann["id"])["role"] == "user"
    assert "moderation.noChange" in refused(server, "users", "confirm", ann["id"])

    actions = [(entry["action"], entry["targetId"], entry["actor"]) for entry in admin_json(server, "audit", "list")]
    assert actions == [("user.demote", ann["id"], "cli:tester"), ("user.promote", ann["id"], "cli:tester"),
                       ("user.unban", bob["id"], "cli:tester"), ("user.ban", bob["id"], "cli:tester")]
    about_bob = admin_json(server, "audit", "list", "--target", bob["id"])
    assert [entry["action"] for entry in about_bob] == ["user.unban", "user.ban"]
    assert about_bob[1]["reason"] == "spam"
    history = admin_json(server, "users", "show", bob["id"])["history"]
    assert [entry["action"] for entry in history] == ["user.unban", "user.ban"]


def test_a_user_confirmed_by_a_moderator_can_sign_in(meetupd):
    server = meetupd()
    status, _, _ = server.request("POST", "/api/v1/auth/register",
                                  {"email": "late@example.org", "password": "correct horse battery", "displayName": "Late"})
    assert status == 201
    assert admin_json(server, "users", "confirm", "late@example.org")["confirmed"]
    status, _, _ = server.request("POST", "/api/v1/auth/login", {"email": "late@example.org", "password": "correct horse battery"})
    assert status == 200


def test_the_audit_log_is_never_edited(meetupd):
    server = meetupd()
    bob = server.register_user()
    admin_json(server, "users", "ban", bob["id"], "--reason", "spam")
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        for sql in ["UPDATE auditLog SET reason = 'nothing'", "DELETE FROM auditLog"]:
            try:
                with db:
                    db.execute(sql)
                raise AssertionError(sql + " was allowed")
            except sqlite3.DatabaseError as error:
                assert "never edited" in str(error)
    finally:
        db.close()
    assert admin_json(server, "audit", "list")[0]["reason"] == "spam"


def feed_ids(server, user) -> set[str]:
    status, _, page = server.request(
        "GET", f"/api/v1/meetings?lat={KYIV['lat']}&lon={KYIV['lon']}&radiusKm=50&limit=50", token=user["token"])
    assert status == 200, page
    return {meeting["id"] for meeting in page["items"]}


def test_a_cli_cancel_leaves_the_feed_at_once_and_tells_the_members(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    meeting = create_meeting(server, ann, title="Dubious gathering")
    status, _, _ = server.request("POST", f"/api/v1/meetings/{meeting['id']}/join", token=bob["token"])
    assert status == 200
    assert meeting["id"] in feed_ids(server, bob)
    listed = admin_json(server, "meetings", "list", "--search", "Dubious")
    assert [m["id"] for m in listed] == [meeting["id"]] and listed[0]["memberCount"] == 2

    cancelled = admin_json(server, "meetings", "cancel", meeting["id"], "--reason", "scam")
    assert cancelled["status"] == "cancelled"
    assert wait_for(lambda: meeting["id"] not in feed_ids(server, bob), 1.0)
    status, _, read = server.request("GET", "/api/v1/meetings/" + meeting["id"], token=bob["token"])
    assert status == 200 and read["status"] == "cancelled"
    assert admin_json(server, "meetings", "show", meeting["id"])["status"] == "cancelled"
    assert admin_json(server, "meetings", "list") == []
    assert [m["id"] for m in admin_json(server, "meetings", "list", "--all")] == [meeting["id"]]
    assert "meeting.cancelled" in refused(server, "meetings", "cancel", meeting["id"], "--reason", "again")
    assert "meeting.notFound" in refused(server, "meetings", "show", "no-such-meeting")
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        kinds = [row[0] for row in db.execute("SELECT kind FROM event ORDER BY id")]
    finally:
        db.close()
    assert kinds[-1] == "meeting.cancelled"
    assert admin_json(server, "audit", "list")[0]["action"] == "meeting.cancel"


def test_stats_and_notifications(meetupd):
    server = meetupd()
    ann = server.register_user()
    create_meeting(server, ann)
    conn, _ = connect_ws(server, ann["token"])
    conn2, _ = connect_ws(server, ann["token"])
    stats = admin_json(server, "stats")
    assert stats["users"] == 1 and stats["confirmedUsers"] == 1 and stats["meetings"] == 1 and stats["upcomingMeetings"] == 1
    # Asked of the running server over its socket: two sessions of one user.
    assert stats["live"] == {"stompSessions": 2, "stompUsers": 1}
    # The same figures over REST, from the broker itself.
    admin_json(server, "users", "promote", ann["id"])
    status, _, rest = server.request("GET", "/api/v1/admin/stats", token=ann["token"])
    assert status == 200 and rest["live"] == {"stompSessions": 2, "stompUsers": 1} and rest["moderators"] == 1
    assert set(rest) == set(stats) and all(rest[key] == stats[key] for key in stats if key != "moderators")
    conn.disconnect()
    conn2.disconnect()
    pushes = admin_json(server, "notifications", "stats")
    mails = pushes.pop("mails")
    assert set(pushes) == {"pending", "sending", "delivered", "dead"} and all(isinstance(v, int) for v in pushes.values())
    assert mails == {"pending": 0, "sending": 0, "dead": 0}  # the confirmation mail was sent
    assert "mails dead" in admin(server, "notifications", "stats").stdout
    assert admin_json(server, "notifications", "retry-dead") == {"retried": 0}
    assert admin_json(server, "notifications", "retry-dead", "--mails") == {"retried": 0}
    assert admin_json(server, "notifications", "purge", "--days", "7") == {"purged": 0}
    refused(server, "notifications", "purge", "--days", "0", code=64)
    server.stop()
    assert admin_json(server, "stats")["live"] is None
    assert "server not running" in admin(server, "stats").stdout


def test_a_backup_under_write_load_opens_and_passes_the_integrity_check(meetupd):
    server = meetupd()
    ann = server.register_user()
    stop = threading.Event()
    created = []

    def write_meetings():
        while not stop.is_set():
            created.append(create_meeting(server, ann)["id"])

    writer = threading.Thread(target=write_meetings)
    writer.start()
    try:
        wait_for(lambda: len(created) >= 5, 30)
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "copy.sqlite")
            result = admin_json(server, "db", "backup", path)
            assert result["path"] == path and int(result["bytes"]) > 0
            assert "backup.fileExists" in refused(server, "db", "backup", path)
            copy = sqlite3.connect(path)
            try:
                assert copy.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
                copied = copy.execute("SELECT count(*) FROM meeting").fetchone()[0]
            finally:
                copy.close()
    finally:
        stop.set()
        writer.join()
    assert 5 <= copied <= len(created)
    assert admin_json(server, "db", "check")["ok"] == "true"
