"""Direct messages through stomp.py over `/ws`: two friends on two devices each. Delivery to
every session of both users, receipts, clientMessageId idempotency, history and read markers
over REST, the conversation in `/me/rooms`, resuming with `since-seq` on `/user/queue/direct`,
and refusals for strangers, unknown users and blocks (also while a conversation is live), all
answered alike."""
import json
import uuid

from admin_support import admin_json
from direct_support import befriend
from media_support import encode, fetch, picture, uploaded
from meetings_support import register_users
from stomp_support import connect_ws


def device(server, user):
    """A stomp.py session of `user`, listening to its direct queue and its errors."""
    conn, recorder = connect_ws(server, user["token"])
    conn.subscribe("/user/queue/errors", id="errors")
    conn.subscribe("/user/queue/direct", id="direct", headers={"receipt": "direct-ready"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "direct-ready")
    return conn, recorder


def send(conn, recorder, peer, text, receipt, client_id=None):
    """Sends a direct message to `peer` and waits for its answer: the RECEIPT or the refusal."""
    body = json.dumps({"text": text, "clientMessageId": client_id or str(uuid.uuid4())})
    conn.send(f"/app/direct.{peer['id']}", body, content_type="application/json", headers={"receipt": receipt})
    return recorder.wait_for(("RECEIPT", "MESSAGE"), lambda f: f.headers.get("receipt-id") == receipt)


def direct_messages(recorder):
    return [f for f in recorder.messages() if f.headers["destination"] == "/user/queue/direct"]


def test_friends_write_to_each_other_on_every_device(meetupd):
    server = meetupd()
    ann, bob = register_users(server, 2)
    befriend(server, ann, bob)
    ann_phone, ann_tablet, bob_phone, bob_tablet = (device(server, u) for u in (ann, ann, bob, bob))

    answer = send(*ann_phone, bob, "hi Bob", "r1", client_id="c-1")
    assert answer.cmd == "RECEIPT"
    # Every session of both users gets it, the sender's other device too; the sending device as well.
    for _, recorder in (ann_phone, ann_tablet, bob_phone, bob_tablet):
        recorder.wait_for("MESSAGE", lambda f: f.headers["destination"] == "/user/queue/direct")
    message = json.loads(direct_messages(bob_tablet[1])[0].body)
    assert message["text"] == "hi Bob" and message["seq"] == 1 and message["meetingId"] is None
    assert message["sender"]["id"] == ann["id"] and message["recipientId"] == bob["id"]
    assert direct_messages(bob_tablet[1])[0].headers["inbox-seq"] == "1"

    # The same clientMessageId again: answered, stored and delivered once.
    assert send(*ann_tablet, bob, "hi Bob", "r2", client_id="c-1").cmd == "RECEIPT"
    assert send(*bob_phone, ann, "hello Ann", "r3").cmd == "RECEIPT"
    for _, recorder in (ann_phone, bob_tablet):
        recorder.wait_for("MESSAGE", lambda f: json.loads(f.body)["text"] == "hello Ann")
    assert [json.loads(f.body)["seq"] for f in direct_messages(ann_phone[1])] == [1, 2]

    # History over REST, newest first, for both; none for a stranger.
    status, _, page = server.request("GET", f"/api/v1/direct/{ann['id']}/messages", token=bob["token"])
    assert status == 200 and [m["text"] for m in page["items"]] == ["hello Ann", "hi Bob"]
    status, _, page = server.request("GET", f"/api/v1/direct/{bob['id']}/messages?limit=1", token=ann["token"])
    assert [m["seq"] for m in page["items"]] == [2] and page["nextCursor"] == "2"

    # The conversation is in the chat list, with the unread count; the read marker moves it.
    rooms = server.request("GET", "/api/v1/me/rooms", token=bob["token"])[2]["items"]
    assert [(r["kind"], r["userId"], r["title"], r["unreadCount"], r["readOnly"]) for r in rooms] == [
        ("direct", ann["id"], "Test User", 1, False)]
    conn, recorder = bob_phone
    conn.send(f"/app/direct.{ann['id']}.read", json.dumps({"seq": 2}), content_type="application/json",
              headers={"receipt": "read"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "read")
    assert server.request("GET", "/api/v1/me/rooms", token=bob["token"])[2]["items"][0]["unreadCount"] == 0
    status, _, marker = server.request("POST", f"/api/v1/direct/{ann['id']}/messages/read", {"seq": 1}, bob["token"])
    assert status == 200 and marker == {"lastReadSeq": 2, "unreadCount": 0}

    # A phone that was away resumes from the last inbox-seq it saw: nothing missed, nothing twice.
    bob_phone[0].disconnect()
    assert send(*ann_phone, bob, "while you were away", "r4").cmd == "RECEIPT"
    conn, recorder = connect_ws(server, bob["token"])
    conn.subscribe("/user/queue/direct", id="direct", headers={"since-seq": "1", "receipt": "caught-up"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "caught-up")
    assert send(*ann_phone, bob, "welcome back", "r5").cmd == "RECEIPT"
    recorder.wait_for("MESSAGE", lambda f: json.loads(f.body)["text"] == "welcome back")
    assert [(f.headers["inbox-seq"], json.loads(f.body)["text"]) for f in direct_messages(recorder)] == [
        ("2", "hello Ann"), ("3", "while you were away"), ("4", "welcome back")]
    for conn in (conn, ann_phone[0], ann_tablet[0], bob_tablet[0]):
        conn.disconnect()


def test_a_resend_past_the_rate_limit_gets_its_receipt(meetupd):
    """A phone that lost its connection re-sends what it had not seen receipted: past the rate
    limit, a repeat is still answered with a RECEIPT (and stores nothing), a new message is not."""
    server = meetupd()
    ann, bob = register_users(server, 2)
    befriend(server, ann, bob)
    sent = []

    def send_until_limited(phone):
        while True:
            answer = send(*phone, bob, f"m{len(sent)}", f"r{len(sent)}", client_id=f"c-{len(sent)}")
            if answer.cmd != "RECEIPT":
                return answer
            sent.append(f"c-{len(sent)}")
            assert len(sent) < 400

    phone = device(server, ann)
    assert send_until_limited(phone).headers["code"] == "chatMessage.rateLimited" and len(sent) >= 10
    phone[0].disconnect()
    # Back on the limit after the reconnect (the limit refilled meanwhile), then the re-sends.
    phone = device(server, ann)
    assert send_until_limited(phone).headers["code"] == "chatMessage.rateLimited"
    for client_id in (sent[0], sent[-1]):
        answer = send(*phone, bob, "again", f"re-{client_id}", client_id=client_id)
        assert answer.cmd == "RECEIPT", (answer.headers, answer.body)
    status, _, page = server.request("GET", f"/api/v1/direct/{ann['id']}/messages?limit=200", token=bob["token"])
    assert status == 200 and len(page["items"]) == len(sent) and "again" not in [m["text"] for m in page["items"]]
    phone[0].disconnect()


def test_an_inbox_position_past_the_last_is_refused(meetupd):
    """`since-seq` past the inbox's newest entry would hold back live messages unseen: refused on
    the errors queue, and the subscription ends, so the same id subscribes again from 0."""
    server = meetupd()
    ann, bob = register_users(server, 2)
    befriend(server, ann, bob)
    assert send(*device(server, ann), bob, "hello", "r1").cmd == "RECEIPT"
    conn, recorder = connect_ws(server, bob["token"])
    conn.subscribe("/user/queue/errors", id="errors")
    conn.subscribe("/user/queue/direct", id="direct", headers={"since-seq": "7", "receipt": "ahead"})
    refusal = recorder.wait_for("MESSAGE", lambda f: f.headers.get("receipt-id") == "ahead")
    assert refusal.headers["code"] == "request.invalidFields" and "since-seq: field.outOfRange" in refusal.body
    conn.subscribe("/user/queue/direct", id="direct", headers={"since-seq": "0", "receipt": "again"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "again")
    assert [json.loads(f.body)["text"] for f in direct_messages(recorder)] == ["hello"]
    conn.disconnect()


def test_strangers_unknown_users_and_blocks_are_refused_alike(meetupd):
    server = meetupd()
    ann, bob, cat = register_users(server, 3)
    befriend(server, ann, bob)
    ann_conn, ann_rec = device(server, ann)
    bob_conn, bob_rec = device(server, bob)
    assert send(ann_conn, ann_rec, bob, "before", "before").cmd == "RECEIPT"
    bob_rec.wait_for("MESSAGE", lambda f: f.headers["destination"] == "/user/queue/direct")

    stranger = send(ann_conn, ann_rec, cat, "hi", "stranger")
    unknown = send(ann_conn, ann_rec, {"id": "no-such-user"}, "hi", "unknown")
    myself = send(ann_conn, ann_rec, ann, "hi", "myself")
    for refusal in (stranger, unknown, myself):
        assert refusal.cmd == "MESSAGE" and refusal.headers["code"] == "user.notFound"
    assert json.loads(stranger.body)["message"] == json.loads(unknown.body)["message"]
    assert [server.request("GET", f"/api/v1/direct/{who}/messages", token=ann["token"])[2]["code"]
            for who in (cat["id"], "no-such-user")] == ["user.notFound", "user.notFound"]

    # Bob blocks Ann while the conversation is live: her next message is refused and reaches nobody.
    assert server.request("POST", "/api/v1/blocks", {"userId": ann["id"]}, bob["token"])[0] in (200, 201, 204)
    blocked = send(ann_conn, ann_rec, bob, "after", "after")
    assert blocked.cmd == "MESSAGE" and blocked.headers["code"] == "user.notFound"
    assert send(bob_conn, bob_rec, ann, "nor back", "back").headers["code"] == "user.notFound"
    assert [json.loads(f.body)["text"] for f in direct_messages(bob_rec)] == ["before"]
    # The conversation leaves both chat lists, and its history is closed to both, also to a
    # device that resumes its inbox from the start.
    for user, other in ((ann, bob), (bob, ann)):
        assert server.request("GET", "/api/v1/me/rooms", token=user["token"])[2]["items"] == []
        assert server.request("GET", f"/api/v1/direct/{other['id']}/messages", token=user["token"])[0] == 404
        assert replayed_inbox(server, user) == []
    for conn in (ann_conn, bob_conn):
        conn.disconnect()


def replayed_inbox(server, user):
    """The texts a new device of `user` gets resuming its direct inbox from the start."""
    conn, recorder = connect_ws(server, user["token"])
    conn.subscribe("/user/queue/direct", id="direct", headers={"since-seq": "0", "receipt": "caught-up"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "caught-up")
    texts = [json.loads(f.body)["text"] for f in direct_messages(recorder)]
    conn.disconnect()
    return texts


def test_a_banned_friends_conversation_is_closed_while_the_ban_lasts(meetupd):
    """A ban hides the banned user everywhere, their conversations too: the list, the unread
    count of the badge and the inbox's replay leave it out, as its history does, until the ban
    is lifted."""
    server = meetupd()
    ann, bob = register_users(server, 2)
    befriend(server, ann, bob)
    ann_conn, ann_rec = device(server, ann)
    for text in ("one", "two"):
        assert send(ann_conn, ann_rec, bob, text, text).cmd == "RECEIPT"
    ann_conn.disconnect()
    admin_json(server, "users", "ban", ann["email"], "--reason", "spam")
    assert server.request("GET", "/api/v1/me/rooms", token=bob["token"])[2]["items"] == []
    assert server.request("GET", f"/api/v1/direct/{ann['id']}/messages", token=bob["token"])[0] == 404
    assert replayed_inbox(server, bob) == []
    admin_json(server, "users", "unban", ann["email"], "--reason", "appeal")
    rooms = server.request("GET", "/api/v1/me/rooms", token=bob["token"])[2]["items"]
    assert [(r["userId"], r["unreadCount"]) for r in rooms] == [(ann["id"], 2)]
    assert replayed_inbox(server, bob) == ["one", "two"]


def test_an_unfriended_conversation_stays_readable_but_closed(meetupd):
    server = meetupd()
    ann, bob = register_users(server, 2)
    befriend(server, ann, bob)
    ann_conn, ann_rec = device(server, ann)
    assert send(ann_conn, ann_rec, bob, "bye", "bye").cmd == "RECEIPT"
    assert server.request("DELETE", f"/api/v1/friends/{ann['id']}", token=bob["token"])[0] == 204
    assert send(ann_conn, ann_rec, bob, "really?", "again").headers["code"] == "user.notFound"
    rooms = server.request("GET", "/api/v1/me/rooms", token=bob["token"])[2]["items"]
    assert [(r["userId"], r["readOnly"], r["lastMessage"]["text"]) for r in rooms] == [(ann["id"], True, "bye")]
    status, _, page = server.request("GET", f"/api/v1/direct/{ann['id']}/messages", token=bob["token"])
    assert status == 200 and [m["text"] for m in page["items"]] == ["bye"]
    ann_conn.disconnect()


def test_a_photo_in_a_direct_message_is_for_the_two_of_them(meetupd):
    server = meetupd()
    ann, bob, cat = register_users(server, 3)
    befriend(server, ann, bob)
    photo = uploaded(server, ann, encode(picture(64, 48), "JPEG"))["id"]
    conn, recorder = device(server, ann)
    body = json.dumps({"text": "", "clientMessageId": "p-1", "attachments": [photo]})
    conn.send(f"/app/direct.{bob['id']}", body, content_type="application/json", headers={"receipt": "photo"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "photo")
    delivered = recorder.wait_for("MESSAGE", lambda f: f.headers["destination"] == "/user/queue/direct")
    assert json.loads(delivered.body)["attachments"] == [photo]
    assert [fetch(f"/api/v1/media/{photo}", server, who)[0] for who in (bob, cat)] == [200, 404]
    conn.disconnect()


def change(conn, recorder, peer, action, body, receipt):
    """Edits or deletes in the conversation with `peer`; the RECEIPT or the refusal."""
    conn.send(f"/app/direct.{peer['id']}.{action}", json.dumps(body), content_type="application/json",
              headers={"receipt": receipt})
    return recorder.wait_for(("RECEIPT", "MESSAGE"), lambda f: f.headers.get("receipt-id") == receipt)


def test_authors_edit_and_delete_their_direct_messages_on_every_device(meetupd):
    server = meetupd()
    ann, bob = register_users(server, 2)
    befriend(server, ann, bob)
    ann_phone, bob_phone = device(server, ann), device(server, bob)
    assert send(*ann_phone, bob, "see you at 6", "r1").cmd == "RECEIPT"
    assert send(*ann_phone, bob, "bring a torch", "r2").cmd == "RECEIPT"

    # Only the author changes a message: Bob is refused, and nothing reaches anyone.
    refusal = change(*bob_phone, ann, "edit", {"seq": 1, "text": "see you at 7"}, "x1")
    assert refusal.cmd == "MESSAGE" and refusal.headers["code"] == "chatMessage.notAuthor"
    refusal = change(*bob_phone, ann, "delete", {"seq": 99}, "x2")
    assert refusal.cmd == "MESSAGE" and refusal.headers["code"] == "chatMessage.notFound"

    assert change(*ann_phone, bob, "edit", {"seq": 1, "text": "see you at 7"}, "e1").cmd == "RECEIPT"
    assert change(*ann_phone, bob, "delete", {"seq": 2}, "d1").cmd == "RECEIPT"
    # Both inboxes get both events, each with its own seq and inbox-seq, referring to the message.
    for _, recorder in (ann_phone, bob_phone):
        recorder.wait_for("MESSAGE", lambda f: json.loads(f.body).get("type") == "deleted")
        events = [(json.loads(f.body), f.headers) for f in direct_messages(recorder)][2:]
        assert [(e["type"], e["seq"], e["refersToSeq"], e.get("text")) for e, _ in events] == [
            ("edited", 3, 1, "see you at 7"), ("deleted", 4, 2, None)]
        assert [h["inbox-seq"] for _, h in events] == ["3", "4"]

    # History shows the latest state: the edited text, the deleted message's seq without text.
    status, _, page = server.request("GET", f"/api/v1/direct/{ann['id']}/messages", token=bob["token"])
    latest = {m["seq"]: m for m in page["items"]}
    assert status == 200 and latest[1]["text"] == "see you at 7" and latest[1]["editedAt"]
    assert latest[2].get("text") is None and latest[2]["deletedAt"]

    # A device that was away replays the events in its inbox order.
    conn, recorder = connect_ws(server, bob["token"])
    conn.subscribe("/user/queue/direct", id="direct", headers={"since-seq": "2", "receipt": "caught-up"})
    recorder.wait_for("RECEIPT", lambda f: f.headers["receipt-id"] == "caught-up")
    assert [json.loads(f.body)["type"] for f in direct_messages(recorder)] == ["edited", "deleted"]
    conn.disconnect()

    # Once they are no longer friends, the conversation is closed to changes too.
    status, _, _ = server.request("DELETE", f"/api/v1/friends/{bob['id']}", token=ann["token"])
    assert status == 204
    refusal = change(*ann_phone, bob, "edit", {"seq": 1, "text": "never mind"}, "e2")
    assert refusal.cmd == "MESSAGE" and refusal.headers["code"] == "chatRoom.readOnly"
    for conn, _ in (ann_phone, bob_phone):
        conn.disconnect()
