"""Chat messages become pushes for members away from the room: a burst collapses into one push
per device and room, worded in the device's language with plural forms ("Cat та ще 2
учасники: …", "Hiking: 5 нових повідомлень"), with the badge counting unread inbox entries and
chat messages; nobody reading the room (subscribed over STOMP) gets one, nor anybody who read
it before the push fell due; muted meetings get none and quiet hours hold them. Direct messages
push the same way ("Ann: …"), unless the recipient follows `/user/queue/direct`."""
import datetime as dt
import json
import os
import sqlite3
import time
import uuid

from direct_support import befriend
from meetings_support import create_meeting, join
from notifications_support import add_device, inbox, quiet_hours_around_now
from stomp_support import connect_ws
from test_push_dispatch import pushdrop, wait_for_pushes

DELAY = 2  # --chat-push-delay: seconds a room's push waits for more messages
WAIT = 20  # seconds anything may take on a loaded machine; never a timing assertion


def post(server, user, meeting, *texts):
    """Posts `texts` to the meeting's room over STOMP, each answered by a receipt (committed)."""
    send_all(server, user, f"/app/meetings.{meeting}.chat", texts)


def send_all(server, user, destination, texts):
    """Sends `texts` to a STOMP `destination` as `user`, each answered by a receipt (committed)."""
    conn, recorder = connect_ws(server, user["token"])
    try:
        for index, text in enumerate(texts):
            body = json.dumps({"text": text, "clientMessageId": str(uuid.uuid4())})
            conn.send(destination, body, content_type="application/json", headers={"receipt": f"p{index}"})
            recorder.wait_for("RECEIPT", lambda f, r=f"p{index}": f.headers["receipt-id"] == r)
    finally:
        conn.disconnect()


def read_all(server, user, meeting):
    """Moves the user's read marker to the room's last seq."""
    status, _, rooms = server.request("GET", "/api/v1/me/rooms", token=user["token"])
    assert status == 200, rooms
    last = next(r["lastSeq"] for r in rooms["items"] if r["meetingId"] == meeting)
    status, _, marker = server.request("POST", f"/api/v1/meetings/{meeting}/messages/read", {"seq": last}, user["token"])
    assert status == 200 and marker["unreadCount"] == 0, marker


def chat_jobs(server, user):
    """(state, dueAt) of the user's chat push jobs, from the SQLite file."""
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        return db.execute("""SELECT pushJob.state, pushJob.dueAt FROM pushJob
                             JOIN notification ON notification.id = pushJob.notificationId
                             WHERE notification.kind = 'chat.message' AND notification.userId = ?""", [user["id"]]).fetchall()
    finally:
        db.close()


def chat_notifications(server, user):
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        return db.execute("SELECT count(*) FROM notification WHERE kind = 'chat.message' AND userId = ?", [user["id"]]).fetchone()[0]
    finally:
        db.close()


def room_with_reader(server):
    """Ann's meeting "Hiking" with members Bob, Cat and Rita; Rita, who has read the room and her
    inbox so far, has an iPhone in Ukrainian and an Android phone in English."""
    ann, bob, cat, rita = (server.register_user(display_name=name) for name in ("Ann", "Bob", "Cat", "Rita"))
    meeting = create_meeting(server, ann, title="Hiking")["id"]
    for user in (rita, bob, cat):
        join(server, user, meeting)
    read_all(server, rita, meeting)
    assert server.request("POST", "/api/v1/notifications/read", {"all": True}, rita["token"])[0] == 200
    iphone = add_device(server, rita, "cd" * 32, locale="uk-UA")
    pixel = add_device(server, rita, "fcm:rita", service="fcm", locale="en")
    return meeting, ann, bob, cat, rita, iphone, pixel


def is_chat(push):
    body = push["body"]
    return (body.get("kind") or body.get("message", {}).get("data", {}).get("kind")) == "chat.message"


def by_service(files):
    return {f["service"]: f for f in files.values()}


def test_a_burst_of_messages_is_one_push_per_device_worded_with_plurals(meetupd):
    server = meetupd("--chat-push-delay", str(DELAY))
    meeting, ann, bob, cat, rita, iphone, pixel = room_with_reader(server)
    post(server, ann, meeting, "Hi all")
    post(server, bob, meeting, "Coming!")
    post(server, cat, meeting, "Me too")
    # One notification for the burst: later messages found its push still waiting.
    assert len(chat_jobs(server, rita)) == 2 and chat_notifications(server, rita) == 1

    first = wait_for_pushes(server, 2)
    apns, fcm = by_service(first)["apns"], by_service(first)["fcm"]
    assert apns["token"] == iphone["token"] and fcm["token"] == pixel["token"]
    assert apns["headers"]["apns-collapse-id"] == f"chat.{meeting}"
    body = apns["body"]
    assert body["aps"]["alert"] == {"title": "Hiking: 3 нові повідомлення", "body": "Cat та ще 2 учасники: Me too"}
    assert body["aps"]["thread-id"] == f"meeting.{meeting}" and body["aps"]["badge"] == 3
    assert body["kind"] == "chat.message" and body["subjectId"] == meeting and body["deeplink"] == f"meetup://chat/{meeting}"
    message = fcm["body"]["message"]
    assert message["notification"] == {"title": "Hiking: 3 new messages", "body": "Cat and 2 others: Me too"}
    assert message["data"]["badge"] == "3" and message["android"]["collapse_key"] == f"chat.{meeting}"
    assert message["android"]["notification"]["tag"] == f"chat.{meeting}"
    # Chat pushes are not inbox entries: the room list counts them.
    assert all(n["kind"] != "chat.message" for n in inbox(server, rita)["items"])

    # Still unread, two more: the next push (replacing this one on the phone) counts all five,
    # and an invitation in the inbox adds to the badge.
    create_meeting(server, bob, title="Picnic", inviteeIds=[rita["id"]])
    post(server, ann, meeting, "Start at 9", "Bring water")
    files = wait_for_pushes(server, 6)
    newest = by_service({name: f for name, f in files.items() if name not in first and is_chat(f)})
    assert newest["apns"]["body"]["aps"]["alert"] == {"title": "Hiking: 5 нових повідомлень", "body": "Ann та ще 2 учасники: Bring water"}
    assert newest["apns"]["body"]["aps"]["badge"] == 6
    assert newest["fcm"]["body"]["message"]["notification"] == {"title": "Hiking: 5 new messages", "body": "Ann and 2 others: Bring water"}

    # Read, then one message from one sender: no count, no "others".
    read_all(server, rita, meeting)
    post(server, bob, meeting, "See you")
    files = wait_for_pushes(server, 8)
    alerts = [f["body"]["aps"]["alert"] for f in files.values() if f["service"] == "apns"]
    assert {"title": "Hiking", "body": "Bob: See you"} in alerts
    fcm_texts = [f["body"]["message"]["notification"] for f in files.values() if f["service"] == "fcm"]
    assert {"title": "Hiking", "body": "Bob: See you"} in fcm_texts
    assert len(pushdrop(server)) == 8


def wait_until(condition, what):
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_no_push_to_a_reader_of_the_room_a_muted_meeting_in_quiet_hours_or_once_read(meetupd):
    server = meetupd("--chat-push-delay", str(DELAY))
    meeting, ann, bob, cat, rita, iphone, pixel = room_with_reader(server)

    # Rita has the room open on one device: the push is withdrawn when it falls due.
    conn, recorder = connect_ws(server, rita["token"])
    conn.subscribe(f"/topic/meetings.{meeting}.chat", id="room", headers={"receipt": "sub"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "sub")
    post(server, ann, meeting, "Are you there?")
    assert len(chat_jobs(server, rita)) == 2
    wait_until(lambda: chat_jobs(server, rita) == [], "the pushes of a room being read are withdrawn")
    assert pushdrop(server) == {}
    conn.disconnect()

    # Away from the room again: the next message is pushed (so the above was no accident).
    post(server, ann, meeting, "Rita?")
    pushes = by_service(wait_for_pushes(server, 2))
    assert pushes["fcm"]["body"]["message"]["notification"]["body"] == "Ann: Rita?"

    # Muted: no chat push is even queued; unmuted, queued again.
    read_all(server, rita, meeting)
    assert server.request("PUT", f"/api/v1/meetings/{meeting}/mute", token=rita["token"])[0] == 204
    before = chat_notifications(server, rita)
    post(server, bob, meeting, "Muted?")
    assert chat_notifications(server, rita) == before
    assert server.request("DELETE", f"/api/v1/meetings/{meeting}/mute", token=rita["token"])[0] == 204

    # Quiet hours around now in Kyiv: held until they end.
    hours, now = quiet_hours_around_now()
    assert server.request("PUT", "/api/v1/me/notification-settings", {"quietHours": hours}, rita["token"])[0] == 200
    post(server, cat, meeting, "Late night?")
    pending = [due for state, due in chat_jobs(server, rita) if state == "pending"]
    expected = (now + dt.timedelta(hours=2)).replace(second=0, microsecond=0).timestamp()
    assert len(pending) == 2 and all(abs(due - expected) < 61 for due in pending)
    assert len(pushdrop(server)) == 2

    # Read before the push falls due (the test moves it to now): nothing is left to tell, so it
    # is dropped instead of sent.
    read_all(server, rita, meeting)
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"), timeout=10)
    try:
        with db:
            db.execute("UPDATE pushJob SET dueAt = 0 WHERE state = 'pending'")
    finally:
        db.close()
    wait_until(lambda: not [1 for state, _ in chat_jobs(server, rita) if state in ("pending", "sending")],
               "a push of a room read meanwhile is dropped")
    assert [state for state, _ in chat_jobs(server, rita)] == ["delivered", "delivered"]
    assert len(pushdrop(server)) == 2


def test_a_direct_message_is_pushed_once_per_burst_unless_the_friend_is_online(meetupd):
    delay = 4  # long enough for both messages of the burst to commit on a loaded machine
    server = meetupd("--chat-push-delay", str(delay))
    ann, bob = (server.register_user(display_name=name) for name in ("Ann", "Bob"))
    befriend(server, ann, bob)
    iphone = add_device(server, bob, "ef" * 32, locale="uk-UA")
    room = f"direct:{min(ann['id'], bob['id'])}:{max(ann['id'], bob['id'])}"

    # Two messages within the delay: one notification, one job for Bob's one device.
    send_all(server, ann, f"/app/direct.{bob['id']}", ["Hi Bob", "Are you there?"])
    assert len(chat_jobs(server, bob)) == 1 and chat_notifications(server, bob) == 1
    assert chat_jobs(server, ann) == []
    (push,) = wait_for_pushes(server, 1).values()
    assert push["token"] == iphone["token"] and push["headers"]["apns-collapse-id"] == f"chat.{room}"
    body = push["body"]
    assert body["aps"]["alert"] == {"title": "Ann: 2 нові повідомлення", "body": "Ann: Are you there?"}
    # Badge: the friend request in his inbox and the two unread messages.
    assert body["aps"]["thread-id"] == room and body["aps"]["badge"] == 3
    assert body["kind"] == "chat.message" and body["deeplink"] == f"meetup://direct/{ann['id']}"

    # Bob online (following his direct queue): the next message's push is withdrawn.
    conn, recorder = connect_ws(server, bob["token"])
    conn.subscribe("/user/queue/direct", id="direct", headers={"receipt": "sub"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "sub")
    send_all(server, ann, f"/app/direct.{bob['id']}", ["Saw you online"])
    assert len(chat_jobs(server, bob)) == 2
    wait_until(lambda: [state for state, _ in chat_jobs(server, bob)] == ["delivered"], "an open conversation's push is withdrawn")
    conn.disconnect()
    assert len(pushdrop(server)) == 1


def test_a_muted_direct_conversation_is_not_pushed(meetupd):
    server = meetupd("--chat-push-delay", str(DELAY))
    ann, bob, cat = (server.register_user(display_name=name) for name in ("Ann", "Bob", "Cat"))
    befriend(server, ann, bob)
    befriend(server, cat, bob)
    add_device(server, bob, "ab" * 32)
    assert server.request("PUT", f"/api/v1/direct/{ann['id']}/mute", token=bob["token"])[0] == 204
    assert server.request("PUT", f"/api/v1/direct/{ann['id']}/mute", token=bob["token"])[0] == 204  # twice is once
    # Muting Ann leaves Cat's conversation alone.
    send_all(server, ann, f"/app/direct.{bob['id']}", ["Muted?"])
    send_all(server, cat, f"/app/direct.{bob['id']}", ["Not muted"])
    (push,) = wait_for_pushes(server, 1).values()
    assert push["body"]["deeplink"] == f"meetup://direct/{cat['id']}" and chat_notifications(server, bob) == 1
    _, _, rooms = server.request("GET", "/api/v1/me/rooms", token=bob["token"])
    assert sum(r["unreadCount"] for r in rooms["items"] if r.get("userId") == ann["id"]) == 1, "still unread, only not pushed"
    assert {r["userId"]: r["muted"] for r in rooms["items"]} == {ann["id"]: True, cat["id"]: False}

    assert server.request("DELETE", f"/api/v1/direct/{ann['id']}/mute", token=bob["token"])[0] == 204
    send_all(server, ann, f"/app/direct.{bob['id']}", ["And now?"])
    assert chat_notifications(server, bob) == 2 and len(chat_jobs(server, bob)) == 2

    stranger = server.register_user()
    for user_id in (stranger["id"], "nope"):
        status, _, problem = server.request("PUT", f"/api/v1/direct/{user_id}/mute", token=bob["token"])
        assert status == 404 and problem["code"] == "user.notFound", problem
