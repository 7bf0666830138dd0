"""The dispatcher through the default `file` transport: each event makes the documented APNs
and FCM JSON in the device's language, one file per delivery in <data>/pushdrop/; jobs
survive a SIGKILL in the middle of a batch, and a push repeated after it carries the same
notification id."""
import glob
import json
import os
import signal
import sqlite3
import time

from meetings_support import create_meeting
from notifications_support import add_device, inbox

WAIT = 20  # seconds a delivery may take on a loaded machine; never a timing assertion


def pushdrop(server):
    """Every delivery file, parsed, by name."""
    files = {}
    for path in glob.glob(os.path.join(server.data, "pushdrop", "*.json")):
        with open(path, encoding="utf-8") as f:
            files[os.path.basename(path)] = json.load(f)
    return files


def wait_for_pushes(server, count):
    deadline = time.monotonic() + WAIT
    while True:
        files = pushdrop(server)
        if len(files) >= count:
            return files
        assert time.monotonic() < deadline, f"expected {count} pushes, got {len(files)}"
        time.sleep(0.05)


def test_each_event_makes_apns_and_fcm_payloads_in_the_device_language(meetupd):
    server = meetupd()
    ann = server.register_user(display_name="Ann")
    bob = server.register_user(display_name="Bob")
    iphone = add_device(server, ann, "ab" * 32, locale="uk-UA", environment="sandbox")
    pixel = add_device(server, ann, "fcm:token-1", service="fcm", locale="en")
    server.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])
    notification = inbox(server, ann)["items"][0]

    files = wait_for_pushes(server, 2)
    by_service = {f["service"]: f for f in files.values()}
    apns, fcm = by_service["apns"], by_service["fcm"]
    assert apns["token"] == iphone["token"] and apns["environment"] == "sandbox"
    assert apns["headers"]["apns-push-type"] == "alert" and apns["headers"]["apns-topic"] == "org.example.meetup"
    assert apns["headers"]["apns-collapse-id"] == "friends" and apns["headers"]["apns-priority"] == "10"
    assert int(apns["headers"]["apns-expiration"]) > time.time()
    assert apns["body"] == {
        "aps": {"alert": {"title": "Новий запит на дружбу", "body": "Bob хоче з вами дружити."}, "badge": 1,
                "sound": "default", "thread-id": "friends"},
        "notificationId": notification["id"], "kind": "friendRequest.sent", "subjectId": notification["subjectId"],
        "deeplink": "meetup://friends/requests"}
    message = fcm["body"]["message"]
    assert fcm["token"] == pixel["token"] and message["token"] == pixel["token"]
    assert message["notification"] == {"title": "New friend request", "body": "Bob wants to be your friend."}
    assert message["data"] == {"notificationId": notification["id"], "kind": "friendRequest.sent",
                               "subjectId": notification["subjectId"], "deeplink": "meetup://friends/requests",
                               "badge": "1"}
    assert message["android"]["collapse_key"] == "friends" and message["android"]["notification"]["notification_count"] == 1

    # A meeting's notifications are threaded per meeting; the badge counts what is unread.
    meeting = create_meeting(server, bob, title="Evening run", inviteeIds=[ann["id"]])
    files = wait_for_pushes(server, 4)
    invites = [f for f in files.values() if f["body"].get("kind", f["body"].get("message", {}).get("data", {}).get("kind")) == "invitation.sent"]
    apns = next(f for f in invites if f["service"] == "apns")
    assert apns["body"]["aps"]["thread-id"] == f"meeting.{meeting['id']}" and apns["body"]["aps"]["badge"] == 2
    assert apns["body"]["aps"]["alert"]["title"] == "Запрошення: Evening run"
    assert apns["body"]["deeplink"] == f"meetup://meetings/{meeting['id']}"
    fcm = next(f for f in invites if f["service"] == "fcm")
    assert fcm["body"]["message"]["notification"]["title"] == "You're invited: Evening run"


def _jobs(data):
    db = sqlite3.connect(os.path.join(data, "meetupd.sqlite"))
    try:
        return db.execute("SELECT id, notificationId, state FROM pushJob").fetchall()
    finally:
        db.close()


def _add_backlog(data, copies):
    """Clones the existing jobs `copies` times, pending: a backlog larger than a batch."""
    db = sqlite3.connect(os.path.join(data, "meetupd.sqlite"))
    try:
        for _ in range(copies):
            db.execute("""INSERT INTO pushJob (notificationId, deviceId, state, attempts, dueAt, updatedAt)
                          SELECT notificationId, deviceId, 'pending', 0, dueAt, updatedAt FROM pushJob WHERE attempts = 1""")
        db.commit()
    finally:
        db.close()


def _jobs_in_claim_order(data):
    """The ids of pending jobs, in the order the dispatcher claims them (oldest due first)."""
    db = sqlite3.connect(os.path.join(data, "meetupd.sqlite"))
    try:
        return [row[0] for row in db.execute("SELECT id FROM pushJob WHERE state = 'pending' ORDER BY dueAt, id")]
    finally:
        db.close()


def _state(data, job_id):
    db = sqlite3.connect(os.path.join(data, "meetupd.sqlite"))
    try:
        return db.execute("SELECT state FROM pushJob WHERE id = ?", (job_id,)).fetchone()[0]
    finally:
        db.close()


def test_a_sigkill_in_the_middle_of_a_batch_loses_nothing(meetupd):
    server = meetupd()
    ann = server.register_user()
    bob = server.register_user()
    for n in range(10):
        add_device(server, ann, f"{n:064x}")
    server.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])
    wait_for_pushes(server, 10)
    server.stop()
    _add_backlog(server.data, 300)  # 3,010 jobs

    # One job in the middle of the backlog is held: its file is written aside first
    # (FilePushTransport), and a FIFO in that place blocks the write until the kill. So the
    # kill lands for certain while a batch is claimed ("sending") but not recorded.
    held = _jobs_in_claim_order(server.data)[1500]
    fifo = os.path.join(server.data, "pushdrop", f".{held}-1.json.tmp")
    os.mkfifo(fifo)
    server = meetupd(data=server.data)
    deadline = time.monotonic() + 60
    while _state(server.data, held) != "sending":
        assert time.monotonic() < deadline, "the held job was never claimed"
        time.sleep(0.05)
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait()
    assert _state(server.data, held) == "sending"
    # Some of the jobs claimed before the held one are done: the cut is real, not just the held batch.
    assert any(state == "delivered" for _, _, state in _jobs(server.data))
    os.remove(fifo)

    server = meetupd(data=server.data)
    deadline = time.monotonic() + 60
    while any(state != "delivered" for _, _, state in _jobs(server.data)):
        assert time.monotonic() < deadline, "the backlog was not delivered"
        time.sleep(0.2)
    jobs = {job_id: notification for job_id, notification, _ in _jobs(server.data)}
    files = pushdrop(server)
    delivered = {}
    for name, push in files.items():
        job_id, attempt = (int(part) for part in name[:-len(".json")].split("-"))
        assert push["jobId"] == job_id and push["attempt"] == attempt
        # Nothing that is not a job, and a repeat carries the notification's id.
        assert push["notificationId"] == jobs[job_id] == push["body"]["notificationId"]
        delivered.setdefault(job_id, []).append(attempt)
    assert set(delivered) == set(jobs)
