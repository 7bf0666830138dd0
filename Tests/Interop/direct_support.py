"""Helpers shared by the direct-message and presence interop tests: making two users friends."""


def befriend(server, one, other):
    """Makes `one` and `other` friends: a request from `one`, accepted by `other`."""
    status, _, request = server.request("POST", "/api/v1/friends/requests", {"userId": other["id"]}, token=one["token"])
    assert status == 201, request
    status, _, accepted = server.request("POST", f"/api/v1/friends/requests/{request['id']}/accept", token=other["token"])
    assert status == 200, accepted
