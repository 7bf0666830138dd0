"""Issue 20, "Injection and integrity" and the search bounds: free text, e-mail addresses, NUL
and lengths are checked at the boundary, searches cost bounded work (docs/security.md)."""
import datetime
import os
import urllib.parse
import uuid

import pytest

from mail_reading import maildrop


def _soon() -> str:
    return (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=30)).strftime("%Y-%m-%dT18:00:00Z")


def _email() -> str:
    return f"u-{uuid.uuid4().hex[:10]}@example.org"


def _register(server, email=None, display_name="Ann"):
    return server.request("POST", "/api/v1/auth/register",
                          {"email": email or _email(), "password": "correct horse battery", "displayName": display_name})


def _field_codes(body) -> dict:
    return {e["field"]: e["code"] for e in (body or {}).get("errors", [])}


def _mails(server) -> list:
    return maildrop(server.data)


@pytest.mark.parametrize("name", ["Ann\nBcc: victim@example.org", "Ann\r\nX", "Mal\u0000lory", "Ann\u202Egro.evil", "Tab\there"])
def test_one_line_display_names_refuse_control_characters_and_mail_nothing(meetupd, name):
    server = meetupd()
    status, _, body = _register(server, display_name=name)
    assert status == 422, body
    assert _field_codes(body)["displayName"] == "field.invalidCharacters"
    assert _mails(server) == []


def test_multi_line_fields_take_lf_only_and_one_line_fields_none(meetupd):
    server = meetupd()
    user = server.register_user()
    profile = {"displayName": "Ann", "bio": "Hikes\non weekends", "city": "Lviv"}
    assert server.request("PUT", "/api/v1/me/profile", profile, token=user["token"])[0] == 200
    status, _, body = server.request("PUT", "/api/v1/me/profile", {**profile, "bio": "a\r\nb", "city": "Lv\niv"}, token=user["token"])
    assert status == 422
    assert _field_codes(body) == {"bio": "field.invalidCharacters", "city": "field.invalidCharacters"}
    meeting = {"title": "Walk", "description": "Line one\nline two", "visibility": "public",
               "startsAt": _soon(), "place": {"lat": 50.45, "lon": 30.52}}
    assert server.request("POST", "/api/v1/meetings", meeting, token=user["token"])[0] == 201
    status, _, body = server.request("POST", "/api/v1/meetings", {**meeting, "title": "Walk\u2066 in the park"}, token=user["token"])
    assert status == 422 and _field_codes(body) == {"title": "field.invalidCharacters"}


def test_nul_is_refused_in_every_body_field_and_query_parameter(meetupd):
    server = meetupd()
    user = server.register_user()
    status, _, body = server.request("POST", "/api/v1/friends/requests", {"userId": "abc\u0000def"}, token=user["token"])
    assert status == 422 and _field_codes(body) == {"userId": "field.invalidCharacters"}
    status, _, body = server.request("GET", "/api/v1/users?q=" + urllib.parse.quote("Mal\u0000lory"), token=user["token"])
    assert status == 422 and _field_codes(body) == {"q": "field.invalidCharacters"}
    # A literal backslash-u text is not a NUL.
    profile = {"displayName": "Ann", "bio": "type \\u0000 to see"}
    status, _, body = server.request("PUT", "/api/v1/me/profile", profile, token=user["token"])
    assert status == 200 and body["bio"] == "type \\u0000 to see"


def test_lengths_count_unicode_scalars_and_bytes_not_characters(meetupd):
    server = meetupd()
    user = server.register_user()
    meeting = {"title": "x", "visibility": "public", "startsAt": _soon(), "place": {"lat": 50.45, "lon": 30.52}}
    # One grapheme cluster of 30,000 combining marks: one "character", 60 KB.
    status, _, body = server.request("POST", "/api/v1/meetings", {**meeting, "title": "a" + "\u0301" * 30000}, token=user["token"])
    assert status == 422 and _field_codes(body) == {"title": "field.tooLong"}
    status, _, body = _register(server, display_name="e" + "\u0301" * 200)
    assert status == 422 and _field_codes(body)["displayName"] == "field.tooLong"
    # 120 four-byte scalars fit the scalar limit but not the byte limit (3 bytes a scalar).
    status, _, body = server.request("POST", "/api/v1/meetings", {**meeting, "title": "\U0001F600" * 120}, token=user["token"])
    assert status == 422 and _field_codes(body) == {"title": "field.tooLong"}
    assert server.request("POST", "/api/v1/meetings", {**meeting, "title": "Похід " * 20}, token=user["token"])[0] == 201


@pytest.mark.parametrize("address", [
    "a@example.org,b@example.org", "a@example.org\u0000", "Ann <a@example.org>", "a@example.org\r\nBcc: b@example.org",
    "\"a b\"@example.org", "a@[127.0.0.1]", "a..b@example.org",
])
def test_email_addresses_are_one_plain_addr_spec(meetupd, address):
    server = meetupd()
    status, _, body = _register(server, email=address)
    assert status == 422, body
    assert _field_codes(body)["email"] in ("email.invalid", "field.invalidCharacters")
    assert _mails(server) == []


def test_confirmation_mail_headers_carry_only_the_checked_address(meetupd):
    server = meetupd()
    email = _email()
    assert _register(server, email=email, display_name="Ганна")[0] == 201
    [mail] = _mails(server)
    headers = dict(mail.raw_items())  # as written, before any decoding
    assert headers["To"] == email
    assert all(f"{name}: {value}".isascii() for name, value in mail.raw_items())


def test_searches_are_signed_in_and_bounded(meetupd):
    server = meetupd()
    user = server.register_user()
    assert server.request("GET", "/api/v1/activities?q=hik")[0] == 401
    assert server.request("GET", "/api/v1/activities?q=hik", token=user["token"])[0] == 200
    for path in ["/api/v1/activities?q=", "/api/v1/users?q="]:
        assert server.request("GET", path + "a" * 64, token=user["token"])[0] == 200
        status, _, body = server.request("GET", path + "a" * 65, token=user["token"])
        assert status == 422 and _field_codes(body) == {"q": "field.tooLong"}, body
        status, _, body = server.request("GET", path + urllib.parse.quote("h" + "\u0301" * 100), token=user["token"])
        assert status == 422 and _field_codes(body) == {"q": "field.tooLong"}, body
    status, _, body = server.request("GET", "/api/v1/places/search?q=" + urllib.parse.quote("K" + "\u0301" * 300), token=user["token"])
    assert status == 422 and body["code"] == "place.invalidQuery" and _field_codes(body) == {"q": "field.tooLong"}


def test_nearby_search_is_rate_limited_per_user(meetupd):
    server = meetupd()
    prober, other = server.register_user(), server.register_user()
    for user in (prober, other):
        assert server.request("PUT", "/api/v1/me/location", {"lat": 50.45, "lon": 30.52, "share": True}, token=user["token"])[0] == 200
    path = "/api/v1/users/nearby?lat=50.45&lon=30.52&radiusKm=5"
    statuses = [server.request("GET", path, token=prober["token"])[0] for _ in range(20)]
    assert statuses == [200] * 20
    status, headers, body = server.request("GET", path, token=prober["token"])
    assert status == 429 and body["code"] == "nearbySearch.rateLimited" and int(headers["Retry-After"]) >= 1
    # Another user's searches are their own.
    assert server.request("GET", path, token=other["token"])[0] == 200
