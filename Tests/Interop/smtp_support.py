"""A real SMTP server (aiosmtpd) on a free loopback port for the mail tests: it keeps every
message it accepts, can answer the next DATA commands with a temporary refusal (451), and
waits for mails with a deadline."""
import threading
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

import mail_reading
from loopback import free_port

WAIT = 20  # seconds a mail may take on a loaded machine; never a timing assertion
USER, PASSWORD = "meetupd", "s3cret-пароль"


class Mailbox:
    """The SMTP server's handler: keeps every message it accepts."""

    def __init__(self):
        self.messages = []
        self.refuse_next = 0  # DATA commands still to answer with 451 (a transient failure)
        self.mechanisms = []  # the AUTH mechanisms clients signed in with
        self.refused = 0
        self.cond = threading.Condition()

    async def handle_DATA(self, server, session, envelope):
        with self.cond:
            if self.refuse_next > 0:
                self.refuse_next -= 1
                self.refused += 1
                return "451 Try again later"
            self.messages.append(envelope)
            self.cond.notify_all()
        return "250 Message accepted"

    def wait(self, count):
        """The first `count` envelopes, once they arrived."""
        return self.wait_until(lambda messages: len(messages) >= count, f"{count} mails")

    def wait_for(self, address, count=1):
        """The first `count` messages to `address`, parsed, once they arrived."""
        envelopes = self.wait_until(lambda messages: len([m for m in messages if address in m.rcpt_tos]) >= count,
                                    f"{count} mails to {address}")
        return [parse(m) for m in envelopes if address in m.rcpt_tos][:count]

    def wait_until(self, condition, what):
        deadline = time.monotonic() + WAIT
        with self.cond:
            while not condition(self.messages):
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"expected {what}, got {len(self.messages)} mails"
                self.cond.wait(remaining)
            return list(self.messages)


def parse(envelope):
    """The message an envelope carries (``mail_reading.parse``)."""
    return mail_reading.parse(envelope.content)


def smtp_server(auth=True, port=None, **options):
    """A started server (on `port`, else a free one) and its mailbox; stop it with `controller.stop()`."""
    mailbox = Mailbox()

    def authenticate(server, session, envelope, mechanism, auth_data):
        mailbox.mechanisms.append(mechanism)
        return AuthResult(success=auth_data.login == USER.encode() and auth_data.password == PASSWORD.encode())

    if auth:
        options |= {"authenticator": authenticate, "auth_required": True}
    controller = Controller(mailbox, hostname="127.0.0.1", port=port or free_port(), **options)
    controller.start()
    return controller, mailbox
