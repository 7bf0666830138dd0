"""A ban made by `meetupd admin` in another process closes the banned user's live STOMP
sessions within a second, with an ERROR naming the reason; others stay connected."""
from admin_support import admin_json, wait_for
from stomp_support import connect_ws


def test_a_cli_ban_closes_the_live_sessions_of_the_user(meetupd):
    server = meetupd()
    bob, ann = server.register_user(), server.register_user()
    banned_session, banned = connect_ws(server, bob["token"])
    bystander, bystander_rec = connect_ws(server, ann["token"])

    admin_json(server, "users", "ban", bob["email"], "--reason", "harassment")
    # Within a second of the CLI's commit (the CLI has exited by now).
    assert wait_for(lambda: any(kind == "ERROR" for kind, _ in banned.frames), 1.0), banned.frames
    error = banned.wait_for("ERROR")
    assert error.headers["code"] == "auth.sessionEnded" and "harassment" in error.headers["message"]
    banned.wait_for("DISCONNECTED")

    bystander.subscribe("/user/queue/errors", id="errors", headers={"receipt": "still-here"})
    bystander_rec.wait_for("RECEIPT")
    bystander.disconnect()
    # The token does not come back: a reconnect is refused.
    status, _, _ = server.request("GET", "/api/v1/me", token=bob["token"])
    assert status == 401
