"""Ending a sign-in reaches the live STOMP sessions it opened, on both transports, without
waiting for the session's next frame (issue 20)."""
import stomp

from loopback import free_port
from stomp_support import Recorder, connect_ws


def connect_tcp(server, token):
    conn = stomp.Connection12([("127.0.0.1", server.stomp_port)], heartbeats=(0, 0))
    recorder = Recorder()
    conn.set_listener("recorder", recorder)
    conn.connect(passcode=token, wait=True)
    return conn, recorder


def login(server, user):
    status, _, body = server.request("POST", "/api/v1/auth/login", {"email": user["email"], "password": user["password"]})
    assert status == 200, body
    return body["accessToken"]


def started(meetupd):
    return meetupd("--stomp-port", str(free_port()))


def test_a_password_reset_ends_every_session_of_the_user(meetupd):
    server = started(meetupd)
    ann = server.register_user()
    bob = server.register_user()
    sessions = [connect_ws(server, ann["token"]), connect_tcp(server, login(server, ann))]
    bystander, bystander_rec = connect_ws(server, bob["token"])

    assert server.request("POST", "/api/v1/auth/password/forgot", {"email": ann["email"]})[0] == 202
    reset = {"token": server.mailed_token(ann["email"], "reset"), "newPassword": "another horse battery"}
    assert server.request("POST", "/api/v1/auth/password/reset", reset)[0] in (200, 204)

    for _, rec in sessions:
        error = rec.wait_for("ERROR")
        assert error.headers["code"] == "auth.sessionEnded"
        assert "password was reset" in error.headers["message"]
        rec.wait_for("DISCONNECTED")
    # Another user's session is untouched and still served.
    bystander.subscribe("/user/queue/errors", id="errors", headers={"receipt": "still-here"})
    bystander_rec.wait_for("RECEIPT")
    assert not [kind for kind, _ in bystander_rec.frames if kind == "ERROR"]
    bystander.disconnect()


def test_logout_ends_only_the_sessions_of_that_token(meetupd):
    server = started(meetupd)
    ann = server.register_user()
    other_token = login(server, ann)
    revoked, revoked_rec = connect_tcp(server, ann["token"])
    kept, kept_rec = connect_tcp(server, other_token)

    assert server.request("POST", "/api/v1/auth/logout", token=ann["token"])[0] == 204
    error = revoked_rec.wait_for("ERROR")
    assert error.headers["code"] == "auth.sessionEnded" and "signed out" in error.headers["message"]
    revoked_rec.wait_for("DISCONNECTED")
    kept.subscribe("/user/queue/errors", id="errors", headers={"receipt": "kept"})
    kept_rec.wait_for("RECEIPT")
    kept.disconnect()
