"""Considerate pushes: a muted meeting and quiet hours hold back pushes, never the inbox."""
import datetime as dt
import os
import sqlite3
import time

from meetings_support import create_meeting
from notifications_support import add_device, inbox


def _jobs(server):
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        return db.execute("""SELECT notification.kind, pushJob.dueAt FROM pushJob
                             JOIN notification ON notification.id = pushJob.notificationId""").fetchall()
    finally:
        db.close()


def test_a_muted_meeting_is_not_pushed_but_stays_in_the_inbox(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    add_device(server, bob, "a" * 64)
    meeting = create_meeting(server, ann)
    assert server.request("POST", f"/api/v1/meetings/{meeting['id']}/join", token=bob["token"])[0] == 200
    assert server.request("PUT", f"/api/v1/meetings/{meeting['id']}/mute", token=bob["token"])[0] == 204
    rooms = server.request("GET", "/api/v1/me/rooms", token=bob["token"])[2]["items"]
    assert [(r["meetingId"], r["muted"]) for r in rooms] == [(meeting["id"], True)]
    server.request("PATCH", f"/api/v1/meetings/{meeting['id']}", {"title": "Morning run"}, token=ann["token"])
    assert [n["kind"] for n in inbox(server, bob)["items"]] == ["meeting.edited"]
    assert _jobs(server) == []
    assert server.request("DELETE", f"/api/v1/meetings/{meeting['id']}/mute", token=bob["token"])[0] == 204
    server.request("PATCH", f"/api/v1/meetings/{meeting['id']}", {"title": "Noon run"}, token=ann["token"])
    assert [kind for kind, _ in _jobs(server)] == ["meeting.edited"]
    status, _, problem = server.request("PUT", "/api/v1/meetings/nope/mute", token=bob["token"])
    assert status == 404 and problem["code"] == "meeting.notFound"


def test_quiet_hours_hold_pushes_until_they_end_in_the_users_time_zone(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    add_device(server, ann, "b" * 64)
    kyiv = dt.timezone(dt.timedelta(hours=2))  # Europe/Kyiv in November
    now = dt.datetime.now(kyiv)
    start, end = (now - dt.timedelta(hours=1)).strftime("%H:%M"), (now + dt.timedelta(hours=2)).strftime("%H:%M")
    settings = {"quietHours": {"start": start, "end": end, "timeZone": "Europe/Kyiv"}}
    status, _, answer = server.request("PUT", "/api/v1/me/notification-settings", settings, token=ann["token"])
    mails = {"invitations": True, "meetingChanges": True}  # untouched: a PUT changes only what it names
    assert status == 200 and answer == settings | {"email": mails}
    assert server.request("GET", "/api/v1/me/notification-settings", token=ann["token"])[2] == answer

    server.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])
    [(kind, due)] = _jobs(server)
    expected = (now + dt.timedelta(hours=2)).replace(second=0, microsecond=0).timestamp()
    assert kind == "friendRequest.sent" and abs(due - expected) < 61
    time.sleep(1.5)
    assert not os.listdir(os.path.join(server.data, "pushdrop")), "held until the quiet hours end"
    assert len(inbox(server, ann)["items"]) == 1

    # Without quiet hours pushes go at once.
    status, _, answer = server.request("PUT", "/api/v1/me/notification-settings", {"quietHours": None}, token=ann["token"])
    assert status == 200 and answer == {"quietHours": None, "email": mails}
    bad = {"quietHours": {"start": "25:00", "end": "7", "timeZone": "Mars/Olympus"}}
    status, _, problem = server.request("PUT", "/api/v1/me/notification-settings", bad, token=ann["token"])
    assert status == 422
    assert {e["field"] for e in problem["errors"]} == {"quietHours.start", "quietHours.end", "quietHours.timeZone"}
