"""Issue 19, mail floods: account mails are limited per address mailed and per client address,
answered as success where an answer would tell whether an account exists, counted in
/metrics, and kept in SQLite so that a restart does not reset them."""
import re
import uuid

from mail_reading import maildrop


def _mails_to(server, email: str) -> int:
    return len(maildrop(server.data, to=email))


def _held_back(server, limit: str) -> float:
    _, _, text = server.request("GET", "/metrics")
    match = re.search(r'^mail_held_back_total\{limit="' + limit + r'"\} (\S+)$', text, re.M)
    return float(match.group(1)) if match else 0.0


def _post(server, path, body):
    status, headers, answer = server.request("POST", "/api/v1/auth/" + path, body)
    return status, answer


def test_forgot_password_flood_stops_mailing_answers_the_same_and_survives_a_restart(meetupd):
    server = meetupd("--mail-per-address", "3")
    user = server.register_user()                       # the confirmation is mail 1 of 3
    unknown = f"nobody-{uuid.uuid4().hex[:8]}@example.org"
    answers = [_post(server, "password/forgot", {"email": user["email"]}) for _ in range(6)]
    assert answers == [(202, None)] * 6
    assert [_post(server, "password/forgot", {"email": unknown}) for _ in range(2)] == [(202, None)] * 2
    assert _mails_to(server, user["email"]) == 3
    assert _held_back(server, "recipient") == 4
    server.stop()

    again = meetupd("--mail-per-address", "3", data=server.data)
    assert _post(again, "password/forgot", {"email": user["email"]}) == (202, None)
    assert _post(again, "confirm/resend", {"email": user["email"]}) == (202, None)
    assert _mails_to(again, user["email"]) == 3
    assert _held_back(again, "recipient") == 1          # counted once: resend has nothing to send


def test_resend_confirmation_is_limited_per_address(meetupd):
    server = meetupd("--mail-per-address", "2")
    email = f"u-{uuid.uuid4().hex[:8]}@example.org"
    assert _post(server, "register", {"email": email, "password": "correct horse battery", "displayName": "Ann"})[0] == 201
    assert [_post(server, "confirm/resend", {"email": email}) for _ in range(4)] == [(202, None)] * 4
    assert _mails_to(server, email) == 2
    # The newest mailed token still confirms.
    assert server.request("POST", "/api/v1/auth/confirm", {"token": server.mailed_token(email, "confirm")})[0] == 200


def test_registrations_from_one_client_address_are_limited_and_the_limit_survives_a_restart(meetupd):
    server = meetupd("--mail-per-client", "3")
    def register():
        email = f"u-{uuid.uuid4().hex[:8]}@example.org"
        status, headers, body = server.request(
            "POST", "/api/v1/auth/register", {"email": email, "password": "correct horse battery", "displayName": "Ann"})
        return status, headers, body, email
    for _ in range(3):
        assert register()[0] == 201
    status, headers, body, email = register()
    assert status == 429 and body["code"] == "mail.tooMany" and int(headers["Retry-After"]) > 0
    assert _mails_to(server, email) == 0
    # Refused entirely: the address can register once the window has passed.
    assert server.request("POST", "/api/v1/auth/login", {"email": email, "password": "correct horse battery"})[0] == 401
    assert _held_back(server, "client") == 1
    server.stop()

    server = meetupd("--mail-per-client", "3", data=server.data)
    assert register()[0] == 429
