"""Account mails (address confirmation, password reset) go through the mail outbox like the
notification mails: the request answers at once even while the SMTP server is away, the mail
follows with retries, as multipart/alternative (text and HTML) in the account's language with
the https link, and the token it carries is never stored in clear: not in the mail table, not
anywhere in the SQLite files."""
import glob
import os
import sqlite3
import time
import uuid

from admin_support import admin_json
from mail_reading import html_of, text_of, token_in
from loopback import free_port
from smtp_support import WAIT, smtp_server

PUBLIC = "https://meetup.example.org"


def rows(server, sql):
    db = sqlite3.connect(f"file:{os.path.join(server.data, 'meetupd.sqlite')}?mode=ro", uri=True, timeout=10)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def wait_until(condition, what):
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def stored_anywhere(server, secret: str) -> bool:
    """Whether `secret` appears in any file of the database (main file, WAL, shared memory)."""
    for path in glob.glob(os.path.join(server.data, "meetupd.sqlite*")):
        with open(path, "rb") as f:
            if secret.encode() in f.read():
                return True
    return False


def test_account_mails_wait_out_an_smtp_outage_and_never_store_their_token(meetupd):
    port = free_port()
    server = meetupd("--mail-transport", "smtp", "--smtp-host", "127.0.0.1", "--smtp-port", str(port),
                     "--public-url", PUBLIC, "--push-retry-base", "0.2")
    olya = f"olya-{uuid.uuid4().hex[:8]}@example.org"
    body = {"email": olya, "password": "correct horse battery", "displayName": "Оля", "locale": "uk"}
    # Nothing listens on the SMTP port: the registration still answers, the mail waits.
    status, _, registered = server.request("POST", "/api/v1/auth/register", body)
    assert status == 201, registered
    wait_until(lambda: rows(server, "SELECT attempts FROM mailJob")[0][0] >= 2, "two failed attempts")
    [job] = rows(server, "SELECT userId, purpose, notificationId, lastError FROM mailJob")
    assert job[:3] == (registered["id"], "confirmEmail", None) and job[3]

    controller, mailbox = smtp_server(auth=False, port=port)
    try:
        [mail] = mailbox.wait_for(olya)
        assert mail.get_content_type() == "multipart/alternative"
        assert [p.get_content_type() for p in mail.iter_parts()] == ["text/plain", "text/html"]
        text, html = text_of(mail), html_of(mail)
        assert mail["Subject"] == "Підтвердьте адресу електронної пошти"
        assert text.startswith("Вітаємо, Оля!") and "Вітаємо, Оля!" in html and '<html lang="uk">' in html
        token = token_in(mail, "confirm")
        link = f"{PUBLIC}/auth/confirm?token={token}"
        assert link in text and f'href="{link}"' in html
        assert f"Або введіть цей код у застосунку: {token}" in text and token in html
        assert not stored_anywhere(server, token)
        wait_until(lambda: not rows(server, "SELECT id FROM mailJob"), "the sent mail to leave the outbox")
        assert server.request("POST", "/api/v1/auth/confirm", {"token": token})[0] == 200

        # A reset in English, the same way.
        ann = f"ann-{uuid.uuid4().hex[:8]}@example.org"
        assert server.request("POST", "/api/v1/auth/register", {**body, "email": ann, "displayName": "Ann", "locale": "en"})[0] == 201
        assert server.request("POST", "/api/v1/auth/confirm", {"token": token_in(mailbox.wait_for(ann)[0], "confirm")})[0] == 200
        assert server.request("POST", "/api/v1/auth/password/forgot", {"email": ann})[0] == 202
        reset = mailbox.wait_for(ann, 2)[1]
        assert reset["Subject"] == "Reset your password" and text_of(reset).startswith("Hello Ann,")
        token = token_in(reset, "reset")
        assert f'href="{PUBLIC}/auth/reset?token={token}"' in html_of(reset)
        assert not stored_anywhere(server, token)
        assert server.request("POST", "/api/v1/auth/password/reset", {"token": token, "newPassword": "a brand new password"})[0] == 204
    finally:
        controller.stop()


def test_a_dead_mail_is_counted_and_revived_by_the_operator_with_a_fresh_token(meetupd):
    controller, mailbox = smtp_server(auth=False)
    try:
        server = meetupd("--mail-transport", "smtp", "--smtp-host", "127.0.0.1", "--smtp-port", str(controller.port),
                         "--public-url", PUBLIC, "--mail-max-attempts", "1")
        mailbox.refuse_next = 1  # one 451 is the last attempt: the mail dies
        address = f"dan-{uuid.uuid4().hex[:8]}@example.org"
        body = {"email": address, "password": "correct horse battery", "displayName": "Dan", "locale": "en"}
        assert server.request("POST", "/api/v1/auth/register", body)[0] == 201
        wait_until(lambda: rows(server, "SELECT state FROM mailJob") == [("dead",)], "the mail to die")
        assert mailbox.refused == 1 and not mailbox.messages
        assert admin_json(server, "notifications", "stats")["mails"] == {"pending": 0, "sending": 0, "dead": 1}
        assert admin_json(server, "notifications", "retry-dead") == {"retried": 0}  # pushes: none dead
        assert admin_json(server, "notifications", "retry-dead", "--mails") == {"retried": 1}
        [mail] = mailbox.wait_for(address)
        assert server.request("POST", "/api/v1/auth/confirm", {"token": token_in(mail, "confirm")})[0] == 200
        wait_until(lambda: not rows(server, "SELECT id FROM mailJob"), "the revived mail to leave the outbox")
        assert admin_json(server, "notifications", "stats")["mails"] == {"pending": 0, "sending": 0, "dead": 0}
        entries = [e for e in admin_json(server, "audit", "list") if e["action"] == "notification.retryDead"]
        assert [(e["targetType"], e["actor"]) for e in entries] == [("mailJob", "cli:tester"), ("pushJob", "cli:tester")]
    finally:
        controller.stop()
