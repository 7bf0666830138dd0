"""The change log: writes made by another process reach the running server's feed index
within a second, by a nudge on the data directory's Unix socket or by polling."""
import os
import socket
import sqlite3
import time

from admin_support import wait_for
from meetings_support import KYIV, create_meeting


def feed_ids(server, user) -> set[str]:
    status, _, page = server.request(
        "GET", f"/api/v1/meetings?lat={KYIV['lat']}&lon={KYIV['lon']}&radiusKm=50&limit=50", token=user["token"])
    assert status == 200, page
    return {meeting["id"] for meeting in page["items"]}


def write(server, sql: str, *arguments):
    """A write by this (Python) process, as the admin CLI or the sqlite3 shell would make it."""
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"), timeout=10)
    try:
        with db:
            db.execute(sql, arguments)
    finally:
        db.close()


def nudge(server):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(os.path.join(server.data, "meetupd.sock"))


def test_another_process_cancelling_a_meeting_empties_the_feed_by_polling(meetupd):
    server = meetupd()
    ann = server.register_user()
    meeting = create_meeting(server, ann)
    assert meeting["id"] in feed_ids(server, ann)

    write(server, "UPDATE meeting SET cancelledAt = ? WHERE id = ?", time.time(), meeting["id"])
    # No nudge: the poll (every half second) finds it.
    assert wait_for(lambda: meeting["id"] not in feed_ids(server, ann), 1.0)


def test_a_nudged_server_follows_at_once(meetupd):
    server = meetupd()
    ann = server.register_user()
    meeting = create_meeting(server, ann, title="Before")
    write(server, "UPDATE meeting SET cancelledAt = ? WHERE id = ?", time.time(), meeting["id"])
    nudge(server)
    assert wait_for(lambda: meeting["id"] not in feed_ids(server, ann), 1.0)
    # Undone by the other process: back in the feed.
    write(server, "UPDATE meeting SET cancelledAt = NULL WHERE id = ?", meeting["id"])
    nudge(server)
    assert wait_for(lambda: meeting["id"] in feed_ids(server, ann), 1.0)


def test_the_log_records_in_process_writes_too_and_the_socket_is_in_the_data_directory(meetupd):
    server = meetupd()
    ann = server.register_user()
    before = time.time()
    meeting = create_meeting(server, ann)
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        rows = db.execute("SELECT topic, subject, createdAt FROM changeLog ORDER BY id").fetchall()
        number = db.execute("SELECT number FROM meeting WHERE id = ?", (meeting["id"],)).fetchone()[0]
    finally:
        db.close()
    assert ("meeting", str(number)) in {(topic, subject) for topic, subject, _ in rows}
    assert all(created >= before - 1 for _, _, created in rows)
    assert os.path.exists(os.path.join(server.data, "meetupd.sock"))
