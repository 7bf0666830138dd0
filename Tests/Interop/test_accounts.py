"""Accounts through a plain HTTP client: the life cycle other interop tests build on."""


def test_register_confirm_login_me_logout(meetupd):
    server = meetupd()
    user = server.register_user(display_name="Taras")
    status, _, me = server.request("GET", "/api/v1/me", token=user["token"])
    assert status == 200
    assert me["id"] == user["id"] and me["email"] == user["email"] and me["displayName"] == "Taras"
    status, _, _ = server.request("POST", "/api/v1/auth/logout", token=user["token"])
    assert status == 204
    status, headers, problem = server.request("GET", "/api/v1/me", token=user["token"])
    assert status == 401
    assert headers["Content-Type"] == "application/problem+json"
    assert problem["code"] == "auth.invalidToken"


def test_unknown_route_is_problem_json(meetupd):
    server = meetupd()
    status, headers, problem = server.request("GET", "/api/v1/nothing-here")
    assert status == 404
    assert headers["Content-Type"] == "application/problem+json"
    assert problem["status"] == 404 and problem["code"] == "route.notFound" and problem["title"]
