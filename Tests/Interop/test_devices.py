"""Devices through REST: registration, refresh, a token moving between users, unregistering
directly or with the logout of the phone's session."""


def _register(server, user, token="a" * 64, **fields):
    body = {"pushService": "apns", "token": token, "locale": "uk-UA", **fields}
    return server.request("POST", "/api/v1/devices", body, token=user["token"])


def _devices(server, user):
    status, _, body = server.request("GET", "/api/v1/me/devices", token=user["token"])
    assert status == 200, body
    assert body["nextCursor"] is None
    return body["items"]


def test_a_device_is_registered_refreshed_and_unregistered(meetupd):
    server = meetupd()
    ann = server.register_user()
    status, _, phone = _register(server, ann, appVersion="1.2", environment="sandbox")
    assert status == 201, phone
    assert phone["pushService"] == "apns" and phone["environment"] == "sandbox" and phone["enabled"] is True
    status, _, tablet = _register(server, ann, token="fcm-token:1", pushService="fcm", locale="en")
    assert status == 201 and tablet["environment"] == "production"

    # The same token again refreshes the device it names.
    status, _, again = _register(server, ann, locale="en", appVersion="1.3")
    assert status == 200 and again["id"] == phone["id"] and again["locale"] == "en" and again["appVersion"] == "1.3"
    assert again["environment"] == "production"
    assert {d["id"] for d in _devices(server, ann)} == {phone["id"], tablet["id"]}

    assert server.request("DELETE", f"/api/v1/devices/{phone['id']}", token=ann["token"])[0] == 204
    assert [d["id"] for d in _devices(server, ann)] == [tablet["id"]]
    status, _, problem = server.request("DELETE", f"/api/v1/devices/{phone['id']}", token=ann["token"])
    assert status == 404 and problem["code"] == "device.notFound"


def test_a_token_moves_to_the_user_who_registers_it_last(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    _, _, anns = _register(server, ann)
    status, _, bobs = _register(server, bob)
    assert status == 201 and bobs["id"] != anns["id"]
    assert _devices(server, ann) == []
    assert [d["id"] for d in _devices(server, bob)] == [bobs["id"]]
    # Nobody else's device can be removed, and the answer does not say it exists.
    status, _, problem = server.request("DELETE", f"/api/v1/devices/{bobs['id']}", token=ann["token"])
    assert status == 404 and problem["code"] == "device.notFound"


def test_logout_may_unregister_the_phone_signing_out(meetupd):
    server = meetupd()
    ann = server.register_user()
    _, _, phone = _register(server, ann)
    _, _, other = _register(server, ann, token="b" * 64)
    status, _, _ = server.request("POST", "/api/v1/auth/logout", {"deviceId": phone["id"]}, token=ann["token"])
    assert status == 204
    status, _, login = server.request("POST", "/api/v1/auth/login", {"email": ann["email"], "password": ann["password"]})
    ann["token"] = login["accessToken"]
    assert [d["id"] for d in _devices(server, ann)] == [other["id"]]
    # A plain logout leaves the devices alone.
    assert server.request("POST", "/api/v1/auth/logout", token=ann["token"])[0] == 204


def test_bad_registrations_name_each_field(meetupd):
    server = meetupd()
    ann = server.register_user()
    status, _, problem = _register(server, ann, pushService="mpns", token="has space", locale="x", environment="dev",
                                   appVersion="9" * 65)
    assert status == 422 and problem["code"] == "request.invalidFields"
    assert {(e["field"], e["code"]) for e in problem["errors"]} == {
        ("pushService", "field.invalid"), ("token", "device.invalidToken"), ("locale", "locale.invalid"),
        ("environment", "field.invalid"), ("appVersion", "field.tooLong")}
    status, _, problem = server.request("POST", "/api/v1/devices", {"pushService": "apns", "locale": "en"}, token=ann["token"])
    assert status == 422 and problem["errors"][0]["field"] == "token"
    assert server.request("GET", "/api/v1/me/devices")[0] == 401
