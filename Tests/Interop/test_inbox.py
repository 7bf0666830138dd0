"""The in-app inbox: every event that tells someone something lands there, localized, newest
first, paged; it is marked read by ids or all at once, and arrives live on
/user/queue/notifications for connected sessions."""
import json

from meetings_support import create_meeting
from notifications_support import inbox
from stomp_support import connect_ws


def test_events_land_in_the_inbox_localized_and_are_marked_read(meetupd):
    server = meetupd()
    ann = server.register_user(display_name="Ann")
    bob = server.register_user(display_name="Bob")
    status, _, request = server.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])
    assert status == 201, request
    meeting = create_meeting(server, ann, title="Evening run", inviteeIds=[bob["id"]])

    page = inbox(server, ann)
    assert [n["kind"] for n in page["items"]] == ["friendRequest.sent"]
    first = page["items"][0]
    assert first["title"] == "New friend request" and first["body"] == "Bob wants to be your friend."
    assert first["deeplink"] == "meetup://friends/requests" and first["subjectId"] == request["id"] and not first["read"]
    assert inbox(server, ann, "uk")["items"][0]["body"] == "Bob хоче з вами дружити."

    invitation = inbox(server, bob, "uk")["items"][0]
    assert invitation["kind"] == "invitation.sent" and invitation["title"] == "Запрошення: Evening run"
    assert invitation["deeplink"] == f"meetup://meetings/{meeting['id']}"

    # The invitee answers; the organizer hears of it.
    invitations = server.request("GET", "/api/v1/me/invitations", token=bob["token"])[2]["items"]
    assert server.request("POST", f"/api/v1/invitations/{invitations[0]['id']}/accept", token=bob["token"])[0] == 200
    kinds = [n["kind"] for n in inbox(server, ann)["items"]]
    assert kinds == ["invitation.accepted", "friendRequest.sent"]

    # Paging, newest first.
    one = inbox(server, ann, limit=1)
    assert len(one["items"]) == 1 and one["nextCursor"]
    rest = inbox(server, ann, limit=1, cursor=one["nextCursor"])
    assert rest["items"][0]["kind"] == "friendRequest.sent" and rest["nextCursor"] is None

    status, _, answer = server.request("POST", "/api/v1/notifications/read", {"ids": [first["id"], "unknown"]}, token=ann["token"])
    assert status == 200 and answer == {"unreadCount": 1}
    # Someone else's ids change nothing of theirs.
    assert server.request("POST", "/api/v1/notifications/read", {"ids": [invitation["id"]]}, token=ann["token"])[2] == {"unreadCount": 1}
    assert inbox(server, bob)["items"][0]["read"] is False
    assert server.request("POST", "/api/v1/notifications/read", {"all": True}, token=ann["token"])[2] == {"unreadCount": 0}
    assert all(n["read"] for n in inbox(server, ann)["items"])


def test_a_withdrawn_friend_request_is_taken_back(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    _, _, request = server.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])
    assert len(inbox(server, ann)["items"]) == 1
    assert server.request("DELETE", f"/api/v1/friends/requests/{request['id']}", token=bob["token"])[0] == 204
    assert inbox(server, ann)["items"] == []


def test_bad_inbox_requests_name_the_field(meetupd):
    server = meetupd()
    ann = server.register_user()
    for query, field in [("limit=0", "limit"), ("limit=x", "limit"), ("cursor=abc", "cursor")]:
        status, _, problem = server.request("GET", f"/api/v1/notifications?{query}", token=ann["token"])
        assert status == 422 and problem["errors"][0]["field"] == field, (query, problem)
    for body, field in [({}, "ids"), ({"ids": ["a"], "all": True}, "all"), ({"ids": ["x"] * 501}, "ids")]:
        status, _, problem = server.request("POST", "/api/v1/notifications/read", body, token=ann["token"])
        assert status == 422 and problem["errors"][0]["field"] == field, (body, problem)


def test_notifications_arrive_live_for_connected_sessions(meetupd):
    server = meetupd()
    ann = server.register_user(display_name="Ann")
    bob = server.register_user(display_name="Bob")
    conn, recorder = connect_ws(server, ann["token"])
    conn.subscribe("/user/queue/notifications", id="notifications", headers={"receipt": "subscribed"})
    recorder.wait_for("RECEIPT")
    server.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])
    live = json.loads(recorder.wait_messages(1)[0].body)
    assert live["kind"] == "friendRequest.sent" and live["body"] == "Bob wants to be your friend."
    assert live["id"] == inbox(server, ann)["items"][0]["id"]
    conn.disconnect()
