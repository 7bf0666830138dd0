"""Meetings over the real server: life cycle, validation, private meetings, invitations
and the feed. (Capacity under 100 concurrent joins is in the Swift end-to-end tests, where
signing up a hundred users is cheap.)"""
import json

from media_support import encode, picture, uploaded
from meetings_support import KYIV, create_meeting, iso, register_users
from stomp_support import connect_ws, subscribe_for_answer


def test_create_read_edit_cancel(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    meeting = create_meeting(server, ann, place={"query": "Kyiv"}, price={"amount": 12.5, "currency": "uah"},
                             maxParticipants=5, endsAt=iso(26), activityIds=["hiking"])
    assert meeting["place"]["city"] == "Kyiv" and meeting["place"]["timeZone"] == "Europe/Kyiv"
    assert meeting["price"] == {"amount": 12.5, "currency": "UAH"}
    assert meeting["memberCount"] == 1 and meeting["organizerId"] == ann["id"] and meeting["status"] == "scheduled"
    path = "/api/v1/meetings/" + meeting["id"]

    status, _, read = server.request("GET", path, token=bob["token"])
    assert status == 200 and read == meeting

    status, _, problem = server.request("PATCH", path, {"title": "Mine now"}, bob["token"])
    assert status == 403 and problem["code"] == "meeting.notOrganizer"
    status, _, edited = server.request("PATCH", path, {"title": "Morning run", "maxParticipants": None}, ann["token"])
    assert status == 200 and edited["title"] == "Morning run" and "maxParticipants" not in edited and edited["revision"] == 1

    status, _, problem = server.request("DELETE", path, token=bob["token"])
    assert status == 403
    status, _, cancelled = server.request("DELETE", path, token=ann["token"])
    assert status == 200 and cancelled["status"] == "cancelled"
    status, _, read = server.request("GET", path, token=bob["token"])
    assert status == 200 and read["status"] == "cancelled"
    status, _, problem = server.request("POST", path + "/join", token=bob["token"])
    assert status == 409 and problem["code"] == "meeting.cancelled"


def test_every_invalid_field_is_named(meetupd):
    server = meetupd()
    ann = server.register_user()
    body = {"title": " ", "visibility": "secret", "startsAt": iso(-1), "endsAt": iso(-2),
            "place": {"query": "Qwxzzy Nowhere"}, "price": {"amount": -1, "currency": "EUR"},
            "maxParticipants": 0, "inviteeIds": [f"u{i}" for i in range(101)]}
    status, headers, problem = server.request("POST", "/api/v1/meetings", body, ann["token"])
    assert status == 422 and headers["Content-Type"].startswith("application/problem+json")
    assert {(e["field"], e["code"]) for e in problem["errors"]} == {
        ("title", "field.required"), ("visibility", "field.invalid"), ("startsAt", "meeting.startInPast"),
        ("endsAt", "meeting.endBeforeStart"), ("place", "place.notFound"), ("price.amount", "price.negative"),
        ("maxParticipants", "field.outOfRange"), ("inviteeIds", "field.tooMany")}

    status, _, problem = server.request("POST", "/api/v1/meetings", {
        "title": "Run", "visibility": "public", "startsAt": iso(5), "place": KYIV,
        "price": {"amount": 5, "currency": "XYZ"}, "inviteeIds": ["nobody"]}, ann["token"])
    assert status == 422
    assert {(e["field"], e["code"]) for e in problem["errors"]} == {("price.currency", "price.unknownCurrency")}

    status, _, problem = server.request("POST", "/api/v1/meetings", {
        "title": "Run", "visibility": "public", "startsAt": iso(5), "place": KYIV, "inviteeIds": ["nobody"]}, ann["token"])
    assert status == 422 and problem["errors"][0]["code"] == "user.unknown"

    status, _, problem = server.request("POST", "/api/v1/meetings", {"title": "Run"})
    assert status == 401


def test_leave_and_remove(meetupd):
    server = meetupd()
    ann, bob, cy = register_users(server, 3)
    meeting = create_meeting(server, ann, maxParticipants=2)
    path = "/api/v1/meetings/" + meeting["id"]
    assert server.request("POST", path + "/join", token=bob["token"])[0] == 200
    status, _, problem = server.request("POST", path + "/join", token=cy["token"])
    assert status == 409 and problem["code"] == "meeting.full"
    assert server.request("POST", path + "/leave", token=bob["token"])[0] == 204
    status, _, problem = server.request("POST", path + "/leave", token=ann["token"])
    assert status == 409 and problem["code"] == "meeting.organizerCannotLeave"
    assert server.request("POST", path + "/join", token=cy["token"])[0] == 200
    assert server.request("DELETE", f"{path}/members/{cy['id']}", token=bob["token"])[0] == 403
    assert server.request("DELETE", f"{path}/members/{cy['id']}", token=ann["token"])[0] == 204
    status, _, members = server.request("GET", path + "/members", token=ann["token"])
    assert [m["userId"] for m in members["items"]] == [ann["id"]]


def test_members_show_names_and_photos_and_hide_blocked_users(meetupd):
    server = meetupd()
    ann = server.register_user(display_name="Ann")
    bob = server.register_user(display_name="Bob")
    cy = server.register_user(display_name="Cy")
    photo = uploaded(server, bob, encode(picture(4, 4), "PNG"), "image/png")["id"]
    assert server.request("PUT", "/api/v1/me/profile", {"displayName": "Bob B.", "photoId": photo}, bob["token"])[0] == 200
    path = "/api/v1/meetings/" + create_meeting(server, ann)["id"]
    for user in (bob, cy):
        assert server.request("POST", path + "/join", token=user["token"])[0] == 200

    def members(user):
        status, _, body = server.request("GET", path + "/members", token=user["token"])
        assert status == 200, body
        return body["items"]

    listed = members(cy)
    assert [(m["userId"], m["displayName"], m.get("photoId"), m["role"]) for m in listed] == [
        (ann["id"], "Ann", None, "organizer"), (bob["id"], "Bob B.", photo, "member"), (cy["id"], "Cy", None, "member")]
    assert all(m["joinedAt"].endswith("Z") for m in listed)

    assert server.request("POST", "/api/v1/blocks", {"userId": cy["id"]}, bob["token"])[0] == 204
    assert [m["displayName"] for m in members(cy)] == ["Ann", "Cy"]
    assert [m["displayName"] for m in members(bob)] == ["Ann", "Bob B."]
    assert len(members(ann)) == 3


def test_invitations_are_sent_listed_accepted_and_declined(meetupd):
    server = meetupd()
    ann, bob, cy, dan = register_users(server, 4)
    meeting = create_meeting(server, ann, visibility="private", inviteeIds=[bob["id"]])
    path = "/api/v1/meetings/" + meeting["id"]
    status, _, sent = server.request("POST", path + "/invitations", {"userIds": [cy["id"]]}, ann["token"])
    assert status == 201 and [i["inviteeId"] for i in sent["items"]] == [cy["id"]]

    status, _, mine = server.request("GET", "/api/v1/me/invitations", token=bob["token"])
    assert status == 200 and [i["meetingId"] for i in mine["items"]] == [meeting["id"]]
    assert mine["items"][0]["meeting"]["title"] == "Evening run"
    status, _, accepted = server.request("POST", f"/api/v1/invitations/{mine['items'][0]['id']}/accept", token=bob["token"])
    assert status == 200 and accepted["status"] == "accepted"
    status, _, problem = server.request("POST", path + "/invitations", {"userIds": [dan["id"]]}, bob["token"])
    assert status == 403 and problem["code"] == "meeting.mayNotInvite"
    server.request("PATCH", path, {"membersMayInvite": True}, ann["token"])
    assert server.request("POST", path + "/invitations", {"userIds": [dan["id"]]}, bob["token"])[0] == 201

    cy_invitation = server.request("GET", "/api/v1/me/invitations", token=cy["token"])[2]["items"][0]["id"]
    assert server.request("POST", f"/api/v1/invitations/{cy_invitation}/accept", token=dan["token"])[0] == 404
    status, _, declined = server.request("POST", f"/api/v1/invitations/{cy_invitation}/decline", token=cy["token"])
    assert status == 200 and declined["status"] == "declined"
    status, _, problem = server.request("POST", f"/api/v1/invitations/{cy_invitation}/accept", token=cy["token"])
    assert status == 409 and problem["code"] == "invitation.answered"
    status, _, members = server.request("GET", path + "/members", token=bob["token"])
    assert {m["userId"] for m in members["items"]} == {ann["id"], bob["id"]}


def test_private_meetings_answer_404_to_every_outsider_on_every_path(meetupd):
    server = meetupd()
    ann, invitee, stranger, decliner, leaver, removed = register_users(server, 6)
    meeting = create_meeting(server, ann, visibility="private",
                             inviteeIds=[invitee["id"], decliner["id"], leaver["id"], removed["id"]])
    mid = meeting["id"]
    path = "/api/v1/meetings/" + mid

    def invitation_of(user):
        return server.request("GET", "/api/v1/me/invitations", token=user["token"])[2]["items"][0]["id"]

    server.request("POST", f"/api/v1/invitations/{invitation_of(decliner)}/decline", token=decliner["token"])
    assert server.request("POST", path + "/join", token=leaver["token"])[0] == 200
    assert server.request("POST", path + "/leave", token=leaver["token"])[0] == 204
    assert server.request("POST", path + "/join", token=removed["token"])[0] == 200
    assert server.request("DELETE", f"{path}/members/{removed['id']}", token=ann["token"])[0] == 204

    paths = [
        ("GET", path, None), ("PATCH", path, {"title": "x"}), ("DELETE", path, None),
        ("POST", path + "/join", None), ("POST", path + "/leave", None), ("GET", path + "/members", None),
        ("DELETE", f"{path}/members/{ann['id']}", None), ("POST", path + "/invitations", {"userIds": [ann["id"]]}),
        ("GET", path + "/calendar.ics", None), ("GET", path + "/messages", None),
    ]
    for role, user in [("stranger", stranger), ("declined", decliner), ("left", leaver), ("removed", removed)]:
        for method, url, body in paths:
            status, headers, problem = server.request(method, url, body, user["token"])
            assert status == 404, (role, method, url, status)
            assert headers["Content-Type"].startswith("application/problem+json"), (role, method, url)
            if problem and problem.get("code") != "route.notFound":
                assert problem["code"] == "meeting.notFound", (role, method, url, problem)
        # Exactly like a meeting that does not exist.
        unknown = server.request("GET", "/api/v1/meetings/doesNotExist", token=user["token"])[2]
        seen = server.request("GET", path, token=user["token"])[2]
        assert {k: v for k, v in seen.items() if k != "instance"} == {k: v for k, v in unknown.items() if k != "instance"}
        # ... and so is its chat room.
        conn, rec = connect_ws(server, user["token"])
        conn.subscribe("/user/queue/errors", id="errors")
        chat, unknown_chat = (json.loads(subscribe_for_answer(conn, rec, f"/topic/meetings.{m}.chat").body)
                              for m in (mid, "doesNotExist"))
        conn.disconnect()
        assert chat["code"] == "meeting.notFound", (role, chat)
        assert chat["message"] == unknown_chat["message"], role
    # ... and never in anybody's feed.
    status, _, feed = server.request("GET", "/api/v1/meetings?lat=50.45&lon=30.52", token=stranger["token"])
    assert status == 200 and mid not in {m["id"] for m in feed["items"]}
    assert server.request("GET", path, token=invitee["token"])[0] == 200


def test_feed_filters_sorts_and_stable_pages(meetupd):
    server = meetupd()
    ann, bob, viewer = register_users(server, 3)
    near = create_meeting(server, ann, title="near", startsAt=iso(30), place={"lat": 50.46, "lon": 30.52})
    ten = create_meeting(server, ann, title="ten km", startsAt=iso(20), place={"lat": 50.54, "lon": 30.52},
                         price={"amount": 3, "currency": "EUR"}, activityIds=["chess"])
    create_meeting(server, ann, title="far", startsAt=iso(50), place={"lat": 49.84, "lon": 24.03})
    create_meeting(server, ann, title="online", online=True, startsAt=iso(10), place={"lat": 40.7, "lon": -74.0})
    full = create_meeting(server, ann, title="full", startsAt=iso(40), maxParticipants=2, place={"lat": 50.45, "lon": 30.53})
    server.request("POST", f"/api/v1/meetings/{full['id']}/join", token=bob["token"])

    def titles(query):
        status, _, page = server.request("GET", "/api/v1/meetings?" + query, token=viewer["token"])
        assert status == 200, page
        return [m["title"] for m in page["items"]]

    assert titles("lat=50.45&lon=30.52&radiusKm=20") == ["online", "ten km", "near", "full"]
    assert titles("lat=50.45&lon=30.52&radiusKm=20&sort=distance") == ["full", "near", "ten km", "online"]
    assert titles("lat=50.45&lon=30.52&radiusKm=20&freeOnly=true&hasSpots=true") == ["online", "near"]
    assert titles("activityIds=chess") == ["ten km"]
    assert titles("sort=popularity&limit=1") == ["full"]
    assert titles(f"from={iso(15)}&to={iso(35)}") == ["ten km", "near"]

    status, _, problem = server.request("GET", "/api/v1/meetings?lat=95&lon=x&sort=sideways", token=viewer["token"])
    assert status == 422 and {e["field"] for e in problem["errors"]} >= {"lon", "sort"}

    # Paging by two while meetings change: every meeting once, none twice.
    status, _, page = server.request("GET", "/api/v1/meetings?sort=popularity&limit=2", token=viewer["token"])
    seen = [m["id"] for m in page["items"]]
    create_meeting(server, ann, title="newcomer", startsAt=iso(1))
    for user in (bob, viewer):
        server.request("POST", f"/api/v1/meetings/{near['id']}/join", token=user["token"])
    server.request("POST", f"/api/v1/meetings/{ten['id']}/join", token=bob["token"])
    while page.get("nextCursor"):
        status, _, page = server.request("GET", "/api/v1/meetings?limit=2&cursor=" + page["nextCursor"], token=viewer["token"])
        assert status == 200, page
        seen += [m["id"] for m in page["items"]]
    assert len(seen) == len(set(seen)) == 5
    status, _, problem = server.request("GET", "/api/v1/meetings?cursor=nonsense.0", token=viewer["token"])
    assert status == 410 and problem["code"] == "feed.cursorExpired"
