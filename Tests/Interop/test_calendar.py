"""Calendar files read by a parser nobody here wrote (icalendar)."""
import datetime as dt
import zoneinfo

import icalendar

from meetings_support import create_meeting, get_text, iso


def events(text: str) -> list:
    return [c for c in icalendar.Calendar.from_ical(text).walk() if c.name == "VEVENT"]


def test_a_meeting_is_an_event_in_its_places_time_zone(meetupd):
    server = meetupd()
    ann = server.register_user()
    meeting = create_meeting(server, ann, title="Run; then, coffee", description="Bring water\nand shoes",
                             place={"query": "Kyiv"}, startsAt=iso(48), endsAt=iso(50))
    status, headers, text = get_text(server, f"/api/v1/meetings/{meeting['id']}/calendar.ics", ann["token"])
    assert status == 200 and headers["Content-Type"].startswith("text/calendar")
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))

    calendar = icalendar.Calendar.from_ical(text)
    assert calendar["VERSION"] == "2.0" and calendar["PRODID"]
    assert [c["TZID"] for c in calendar.walk("VTIMEZONE")] == ["Europe/Kyiv"]
    [event] = events(text)
    assert str(event["UID"]) == meeting["id"] + "@meetupd"
    assert event["SUMMARY"] == "Run; then, coffee"
    assert event["DESCRIPTION"] == "Bring water\nand shoes"
    assert event["STATUS"] == "CONFIRMED"
    assert "Kyiv" in event["LOCATION"]
    assert event["URL"].endswith("/meetings/" + meeting["id"])
    assert abs(event["GEO"].latitude - meeting["place"]["lat"]) < 1e-6
    assert abs(event["GEO"].longitude - meeting["place"]["lon"]) < 1e-6
    assert event["DTSTAMP"].dt.tzinfo is not None

    start, end = event["DTSTART"], event["DTEND"]
    assert start.params["TZID"] == "Europe/Kyiv"
    expected = dt.datetime.fromisoformat(meeting["startsAt"].replace("Z", "+00:00"))
    assert start.dt == expected
    local = expected.astimezone(zoneinfo.ZoneInfo("Europe/Kyiv")).replace(tzinfo=None)
    assert start.dt.replace(tzinfo=None) == local
    assert end.dt - start.dt == dt.timedelta(hours=2)


def test_cancelled_meetings_say_so_and_my_calendar_lists_my_upcoming_meetings(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    mine = create_meeting(server, ann, title="Mine", startsAt=iso(5))
    joined = create_meeting(server, bob, title="Joined", startsAt=iso(7), place={"lat": 40.7128, "lon": -74.006})
    create_meeting(server, bob, title="Not mine", startsAt=iso(9))
    server.request("POST", f"/api/v1/meetings/{joined['id']}/join", token=ann["token"])
    server.request("DELETE", f"/api/v1/meetings/{mine['id']}", token=ann["token"])

    status, _, text = get_text(server, "/api/v1/me/calendar.ics", ann["token"])
    assert status == 200
    by_title = {str(e["SUMMARY"]): e for e in events(text)}
    assert set(by_title) == {"Mine", "Joined"}
    assert by_title["Mine"]["STATUS"] == "CANCELLED" and by_title["Mine"]["SEQUENCE"] == 1
    assert by_title["Joined"]["STATUS"] == "CONFIRMED"
    assert by_title["Joined"]["DTSTART"].params["TZID"] == joined["place"]["timeZone"]

    assert get_text(server, "/api/v1/me/calendar.ics", None)[0] == 401


def test_links_are_built_on_the_configured_public_address_never_on_the_host_header(meetupd):
    server = meetupd("--public-url", "https://meetup.example.org/")
    ann = server.register_user()
    meeting = create_meeting(server, ann, title="Run")
    status, _, text = get_text(server, f"/api/v1/meetings/{meeting['id']}/calendar.ics", ann["token"],
                               headers={"Host": "attacker.example"})
    assert status == 200
    [event] = events(text)
    assert str(event["URL"]) == f"https://meetup.example.org/api/v1/meetings/{meeting['id']}"
    assert "attacker.example" not in text
