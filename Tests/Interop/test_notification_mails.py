"""Invitations, meetings that move and cancelled meetings are mailed, through the `smtp`
transport to a real SMTP server the test starts (aiosmtpd): multipart/alternative with a plain-text and an HTML part in
the recipient's language, the meeting's https link, the per-user e-mail setting honoured, and a
temporary SMTP refusal retried rather than losing the mail."""
import os
import sqlite3
import time
import uuid

from mail_reading import html_of, text_of, token_in
from meetings_support import create_meeting, iso
from smtp_support import WAIT, smtp_server

PUBLIC = "https://meetup.example.org"


def signed_up(server, mailbox, name, locale):
    """A confirmed, signed-in user whose confirmation came through the SMTP server."""
    address = f"{name.lower()}-{uuid.uuid4().hex[:8]}@example.org"
    body = {"email": address, "password": "correct horse battery", "displayName": name, "locale": locale}
    assert server.request("POST", "/api/v1/auth/register", body)[0] == 201
    [mail] = mailbox.wait_for(address)
    assert server.request("POST", "/api/v1/auth/confirm", {"token": token_in(mail, "confirm")})[0] == 200
    status, _, login = server.request("POST", "/api/v1/auth/login", {"email": address, "password": body["password"]})
    assert status == 200, login
    return {"id": login["user"]["id"], "email": address, "token": login["accessToken"]}


def parts(mail):
    """The plain-text and HTML parts of a multipart/alternative mail."""
    assert mail.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in mail.iter_parts()] == ["text/plain", "text/html"]
    return text_of(mail), html_of(mail)


def query(server, sql):
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def queued_mails(server):
    return query(server, "SELECT count(*) FROM mailJob")[0][0]


def mail_jobs(server):
    """(state, attempts) of every queued mail."""
    return query(server, "SELECT state, attempts FROM mailJob ORDER BY id")


def last_error(server):
    return query(server, "SELECT lastError FROM mailJob")[0][0]


def wait_for_empty_outbox(server):
    """Sent mails leave the outbox just after the SMTP server took them."""
    deadline = time.monotonic() + WAIT
    while queued_mails(server):
        assert time.monotonic() < deadline, "the mail outbox never emptied"
        time.sleep(0.05)


def test_invitations_and_cancellations_are_mailed_in_the_recipients_language(meetupd):
    controller, mailbox = smtp_server(auth=False)
    try:
        server = meetupd("--mail-transport", "smtp", "--smtp-host", "127.0.0.1", "--smtp-port", str(controller.port),
                         "--public-url", PUBLIC, "--push-retry-base", "0.2", "--mail-max-attempts", "2")
        ann, bob, cat = (signed_up(server, mailbox, *person) for person in (("Ann", "en"), ("Bob", "uk"), ("Cat", "en")))

        # Cat wants no invitation mails; the other topic stays on.
        status, _, settings = server.request("PUT", "/api/v1/me/notification-settings", {"email": {"invitations": False}},
                                             token=cat["token"])
        assert status == 200 and settings == {"quietHours": None, "email": {"invitations": False, "meetingChanges": True}}
        assert server.request("GET", "/api/v1/me/notification-settings", token=bob["token"])[2]["email"] == \
            {"invitations": True, "meetingChanges": True}

        meeting = create_meeting(server, ann, title="Hiking <Carpathians>", inviteeIds=[bob["id"], cat["id"]])
        link = f"{PUBLIC}/m/{meeting['id']}"
        [_, invitation] = mailbox.wait_for(bob["email"], 2)  # after the confirmation
        assert invitation["Subject"] == "Ann запрошує вас: Hiking <Carpathians>"
        text, html = parts(invitation)
        assert "Вітаємо, Bob!" in text and "Ann запрошує вас на зустріч «Hiking <Carpathians>»." in text
        assert f"Переглянути запрошення: {link}" in text and "Коли: " in text and "Де: " in text
        assert '<html lang="uk">' in html and f'href="{link}"' in html and "Переглянути запрошення</a>" in html
        assert "Hiking &lt;Carpathians&gt;" in html and "<Carpathians>" not in html
        # Cat's invitation was never queued: once Bob's mail left, the outbox is empty and Cat has none.
        wait_for_empty_outbox(server)
        assert not [m for m in mailbox.messages if cat["email"] in m.rcpt_tos][1:]  # her confirmation only

        for invitee in (bob, cat):
            invitations = server.request("GET", "/api/v1/me/invitations", token=invitee["token"])[2]["items"]
            assert server.request("POST", f"/api/v1/invitations/{invitations[0]['id']}/accept", token=invitee["token"])[0] == 200

        # A new description is not worth a mail; a new time is, to both members.
        meeting_path = f"/api/v1/meetings/{meeting['id']}"
        assert server.request("PATCH", meeting_path, {"description": "Bring water"}, token=ann["token"])[0] == 200
        assert server.request("PATCH", meeting_path, {"startsAt": iso(48)}, token=ann["token"])[0] == 200
        moved = mailbox.wait_for(bob["email"], 3)[2]
        assert moved["Subject"] == "Зміни: Hiking <Carpathians>" and "Коли: " in parts(moved)[0]
        assert mailbox.wait_for(cat["email"], 2)[1]["Subject"] == "Changed: Hiking <Carpathians>"
        wait_for_empty_outbox(server)
        assert [len([m for m in mailbox.messages if u["email"] in m.rcpt_tos]) for u in (bob, cat)] == [3, 2]

        # The first attempt meets a temporary refusal; the mail goes again and nothing is lost.
        mailbox.refuse_next = 1
        assert server.request("DELETE", f"/api/v1/meetings/{meeting['id']}", token=ann["token"])[0] in (200, 204)
        cancelled_uk = mailbox.wait_for(bob["email"], 4)[3]
        cancelled_en = mailbox.wait_for(cat["email"], 3)[2]
        assert mailbox.refused == 1
        assert cancelled_uk["Subject"] == "Скасовано: Hiking <Carpathians>"
        assert cancelled_en["Subject"] == "Cancelled: Hiking <Carpathians>"
        text, html = parts(cancelled_en)
        assert text.startswith("Hello Cat,") and "Ann cancelled the meeting “Hiking <Carpathians>”." in text
        assert f"Open the meeting: {link}" in text and '<html lang="en">' in html and f'href="{link}"' in html
        assert "changes to your meetings" in text
        wait_for_empty_outbox(server)
        assert [m["Subject"] for m in mailbox.wait_for(ann["email"])] == ["Confirm your e-mail address"]

        # Refused as often as --mail-max-attempts allows: the mail stays, dead, with the reason.
        mailbox.refuse_next = 2
        create_meeting(server, ann, title="Picnic", inviteeIds=[bob["id"]])
        deadline = time.monotonic() + WAIT
        while (dead := mail_jobs(server)) != [("dead", 2)]:
            assert time.monotonic() < deadline, f"the mail never died: {dead}"
            time.sleep(0.05)
        assert mailbox.refused == 3 and "451" in last_error(server)
        # Bob got his confirmation, the invitation, the move and the cancellation: the Picnic never went.
        assert len([m for m in mailbox.messages if bob["email"] in m.rcpt_tos]) == 4
        # Sent: three confirmations (account mails share the outbox and its counter), the
        # invitation, two moves, two cancellations; failed: one retried, two for the Picnic.
        metrics = server.request("GET", "/metrics")[2]
        assert 'notification_mails_total{outcome="sent"} 8' in metrics
        assert 'notification_mails_total{outcome="failed"} 3' in metrics
    finally:
        controller.stop()
