"""Mail through the `smtp` transport to a real SMTP server the test starts on loopback
(aiosmtpd): AUTH PLAIN over plain text where the operator allows it, and STARTTLS with a
certificate the test makes, the server refusing any mail before TLS and sign-in. The account
mails arrive whole (UTF-8 subject, the confirmation link) and work."""
import os
import re
import shutil
import ssl
import subprocess
import tempfile
import uuid

import pytest

from push_fakes import Credentials
from mail_reading import token_in
from smtp_support import PASSWORD, USER, parse, smtp_server


def register(server, locale):
    address = f"user-{uuid.uuid4().hex[:12]}@example.org"
    status, _, body = server.request("POST", "/api/v1/auth/register",
                                     {"email": address, "password": "correct horse battery", "displayName": "Оля",
                                      "locale": locale})
    assert status == 201, body
    return address


def confirmation(envelope, address):
    assert envelope.mail_from == "no-reply@meetupd.local" and envelope.rcpt_tos == [address]
    message = parse(envelope)
    assert message["To"] == address
    return message, token_in(message, "confirm")


# Plain-text AUTH is the operator's choice here (a relay on the same host); aiosmtpd warns.
# PLAIN where offered; LOGIN with a server that offers nothing else.
@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
@pytest.mark.parametrize("mechanism,excluded", [("PLAIN", []), ("LOGIN", ["PLAIN"])])
def test_account_mail_over_smtp_with_auth_plain_or_login(meetupd, monkeypatch, mechanism, excluded):
    controller, mailbox = smtp_server(auth_require_tls=False, auth_exclude_mechanism=excluded)
    try:
        monkeypatch.setenv("MEETUPD_SMTP_PASSWORD", PASSWORD)
        server = meetupd("--mail-transport", "smtp", "--smtp-host", "127.0.0.1", "--smtp-port", str(controller.port),
                         "--smtp-username", USER)
        address = register(server, "uk")
        [envelope] = mailbox.wait(1)
        assert mailbox.mechanisms == [mechanism]
        message, token = confirmation(envelope, address)
        assert re.search(r"[а-яіїє]", message["Subject"]), message["Subject"]
        assert server.request("POST", "/api/v1/auth/confirm", {"token": token})[0] == 200
        assert not os.path.exists(os.path.join(server.data, "maildrop")) or not os.listdir(os.path.join(server.data, "maildrop"))
    finally:
        controller.stop()


def test_account_mail_over_starttls(meetupd, monkeypatch):
    folder = tempfile.mkdtemp(prefix="meetupd-smtp-")
    credentials = Credentials(folder)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(credentials.cert_file, credentials.key_file)
    controller, mailbox = smtp_server(tls_context=context, require_starttls=True)
    try:
        monkeypatch.setenv("MEETUPD_SMTP_PASSWORD", PASSWORD)
        server = meetupd("--mail-transport", "smtp", "--smtp-host", "127.0.0.1", "--smtp-port", str(controller.port),
                         "--smtp-starttls", "--smtp-ca-file", credentials.cert_file, "--smtp-username", USER)
        address = register(server, "en")
        [envelope] = mailbox.wait(1)
        _, token = confirmation(envelope, address)
        assert server.request("POST", "/api/v1/auth/confirm", {"token": token})[0] == 200
    finally:
        controller.stop()
        shutil.rmtree(folder, ignore_errors=True)


def test_bad_smtp_settings_are_refused_before_start():
    binary = os.environ.get("MEETUPD_BIN", ".build/debug/meetupd")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEETUPD_SMTP")}
    for flags, words in ((["--mail-transport", "smtp"], "--smtp-host"), (["--mail-transport", "pigeon"], "maildrop or smtp"),
                         (["--mail-transport", "smtp", "--smtp-host", "h", "--smtp-username", "u"], "MEETUPD_SMTP_PASSWORD"),
                         (["--mail-max-attempts", "0"], "between 1 and 100")):
        result = subprocess.run([binary, "serve", "--port", "0", *flags], capture_output=True, text=True, timeout=60, env=env)
        assert result.returncode != 0 and words in result.stderr, result.stderr
