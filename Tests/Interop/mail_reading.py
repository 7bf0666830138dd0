"""The one way tests and tools read what meetupd mails: messages parsed with Python's `email`
package (MIME parts and encoded headers decoded, whatever the transfer encoding), the token of
an account mail taken from its plain-text part, and the maildrop read once the server's mail
outbox has sent the account mails it holds (they are sent by the dispatcher, after the request
that queued them has answered)."""
import email
import email.policy
import glob
import os
import re
import sqlite3
import time

WAIT = 30  # seconds the outbox may take on a loaded machine; never a timing assertion


def parse(raw: bytes) -> email.message.EmailMessage:
    """A message from its bytes (an `.eml` file, an SMTP envelope's content)."""
    return email.message_from_bytes(raw, policy=email.policy.default)


def text_of(message) -> str:
    """The plain-text part, decoded."""
    return message.get_body(preferencelist=("plain",)).get_content()


def html_of(message) -> str | None:
    """The HTML part, decoded, if the mail has one."""
    part = message.get_body(preferencelist=("html",))
    return part.get_content() if part is not None else None


def token_in(message, action: str) -> str | None:
    """The token of an account mail whose link is for `action` (`confirm`, `reset`), else None."""
    match = re.search(r"https?://[^/\s]+/auth/" + action + r"\?token=([A-Za-z0-9_-]+)", text_of(message))
    return match.group(1) if match else None


def wait_for_account_mails(data: str, timeout: float = WAIT):
    """Returns once no account mail waits in the outbox of the server on `data` (sent, or dead)."""
    deadline = time.monotonic() + timeout
    path = os.path.join(data, "meetupd.sqlite")
    pause = 0.002  # a mail usually leaves within milliseconds: look again soon, then less often
    while True:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            waiting = connection.execute(
                "SELECT count(*) FROM mailJob WHERE purpose IS NOT NULL AND state <> 'dead'").fetchone()[0]
        finally:
            connection.close()
        if waiting == 0:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{waiting} account mails still unsent after {timeout} s")
        time.sleep(pause)
        pause = min(0.05, pause * 2)


def maildrop(data: str, to: str | None = None) -> list:
    """The messages in the maildrop of `data` (to `to` only, if given), oldest first, once the
    account mails queued so far are written."""
    wait_for_account_mails(data)
    messages = []
    for path in sorted(glob.glob(os.path.join(data, "maildrop", "*.eml"))):
        with open(path, "rb") as f:
            message = parse(f.read())
        if to is None or message["To"] == to:
            messages.append(message)
    return messages


def mailed_token(data: str, address: str, action: str) -> str:
    """The token in the newest mail to `address` whose link is for `action` (confirm, reset)."""
    for message in reversed(maildrop(data, to=address)):
        token = token_in(message, action)
        if token:
            return token
    raise AssertionError(f"no {action} mail to {address}")
