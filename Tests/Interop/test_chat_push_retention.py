"""Finished chat pushes are forgotten after a day (ChatPushRetention): the sweep that runs when
the server starts deletes chat notifications older than the retention whose pushes are done,
with their push jobs, and keeps a recent one and an old one still waiting."""
import datetime as dt
import os
import sqlite3
import time

from meetings_support import create_meeting, join
from notifications_support import add_device, quiet_hours_around_now
from test_chat_pushes import DELAY, WAIT, post, read_all
from test_push_dispatch import wait_for_pushes


def chat_pushes(server, user):
    """[(notification id, job state)] of the user's chat pushes, oldest first."""
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        return db.execute("""SELECT notification.id, pushJob.state FROM notification
                             LEFT JOIN pushJob ON pushJob.notificationId = notification.id
                             WHERE notification.kind = 'chat.message' AND notification.userId = ?
                             ORDER BY notification.seq""", [user["id"]]).fetchall()
    finally:
        db.close()


def test_finished_chat_pushes_older_than_a_day_are_forgotten_at_start(meetupd):
    server = meetupd("--chat-push-delay", str(DELAY))
    ann, bob = server.register_user(display_name="Ann"), server.register_user(display_name="Bob")
    meeting = create_meeting(server, ann, title="Hiking")["id"]
    join(server, bob, meeting)
    add_device(server, bob, "ef" * 32)
    for count, text in enumerate(("First", "Second"), start=1):
        post(server, ann, meeting, text)
        wait_for_pushes(server, count)
        read_all(server, bob, meeting)
    # Quiet hours around now hold the third push: it stays pending.
    hours, _ = quiet_hours_around_now()
    assert server.request("PUT", "/api/v1/me/notification-settings", {"quietHours": hours}, bob["token"])[0] == 200
    post(server, ann, meeting, "Third")
    (first, done1), (second, done2), (third, waiting) = chat_pushes(server, bob)
    assert (done1, done2, waiting) == ("delivered", "delivered", "pending")
    server.stop()

    # Two days pass for the first and the third; the second stays recent.
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        old = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=2)).strftime("%Y-%m-%d %H:%M:%S.000")
        db.execute("UPDATE notification SET createdAt = ? WHERE id IN (?, ?)", [old, first, third])
        db.commit()
    finally:
        db.close()

    restarted = meetupd("--chat-push-delay", str(DELAY), data=server.data)
    deadline = time.monotonic() + WAIT
    while chat_pushes(restarted, bob)[0][0] == first:
        assert time.monotonic() < deadline, "the old finished chat push was never forgotten"
        time.sleep(0.05)
    assert chat_pushes(restarted, bob) == [(second, "delivered"), (third, "pending")]
