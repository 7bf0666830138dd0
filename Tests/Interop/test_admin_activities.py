"""`meetupd admin activities` as a separate process beside a running server, and its REST twin
`/api/v1/admin/activities`: merging two activities moves every profile's and meeting's use
(once), hiding keeps old uses but refuses new ones, renaming keeps names distinct; success and
failure paths, --json parsed, the audit trail."""
import subprocess

from admin_support import BINARY, admin, admin_json, refused, wait_for
from meetings_support import KYIV, create_meeting


def propose(server, user, name: str) -> dict:
    status, _, activity = server.request("POST", "/api/v1/activities", {"name": name}, token=user["token"])
    assert status == 201, activity
    return activity


def set_activities(server, user, activity_ids: list[str]):
    """Status and body of a profile update that sets these activities."""
    status, _, body = server.request("PUT", "/api/v1/me/profile", {"displayName": "Someone", "activityIds": activity_ids},
                                     token=user["token"])
    return status, body


def suggested(server, user, query: str) -> list[str]:
    status, _, page = server.request("GET", f"/api/v1/activities?q={query}&limit=50", token=user["token"])
    assert status == 200, page
    return [item["id"] for item in page["items"]]


def feed_with_activity(server, user, activity_id: str) -> set[str]:
    status, _, page = server.request(
        "GET", f"/api/v1/meetings?lat={KYIV['lat']}&lon={KYIV['lon']}&radiusKm=50&activityIds={activity_id}&limit=50",
        token=user["token"])
    assert status == 200, page
    return {meeting["id"] for meeting in page["items"]}


def test_help_and_usage_errors():
    result = subprocess.run([BINARY, "admin", "activities", "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for command in ["list", "merge", "rename", "hide", "unhide"]:
        assert command in result.stdout
    merge = subprocess.run([BINARY, "admin", "activities", "merge", "--help"], capture_output=True, text=True, timeout=60)
    assert merge.returncode == 0 and "--into" in merge.stdout and "--json" in merge.stdout and "--data-dir" in merge.stdout


def test_the_cli_merges_renames_and_hides_activities_a_running_server_uses(meetupd):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    jogging = propose(server, ann, "Jogging together")
    assert set_activities(server, ann, [jogging["id"], "running"])[0] == 200
    assert set_activities(server, bob, [jogging["id"], "hiking"])[0] == 200
    meeting = create_meeting(server, ann, activityIds=[jogging["id"]])

    listed = admin_json(server, "activities", "list", "--search", "Jogging together")
    assert [(a["id"], a["profiles"], a["meetings"], a["hidden"]) for a in listed] == [(jogging["id"], 2, 1, False)]
    assert listed[0]["proposedBy"] == ann["id"] and listed[0]["nameEn"] == "Jogging together"
    table = admin(server, "activities", "list", "--search", "Jogging")
    assert table.returncode == 0 and table.stdout.startswith("id ") and "Jogging together" in table.stdout

    # Failures: one line and exit 1 for refusals, 64 for usage.
    assert "activity.notFound" in refused(server, "activities", "merge", "no-such", "--into", "running")
    assert "activity.notFound" in refused(server, "activities", "merge", jogging["id"], "--into", "no-such")
    assert "moderation.noChange" in refused(server, "activities", "merge", "running", "--into", "running")
    assert "activity.nameTaken" in refused(server, "activities", "rename", jogging["id"], "--en", "Hikking")
    assert "activity.invalid" in refused(server, "activities", "rename", jogging["id"], "--en", "!!")
    refused(server, "activities", "merge", jogging["id"], code=64)  # --into is required
    refused(server, "activities", "rename", jogging["id"], code=64)  # a new name is required
    refused(server, "activities", "hide", "hiking", code=64)  # --reason is required
    refused(server, "activities", "list", "--limit", "0", code=64)

    merged = admin_json(server, "activities", "merge", jogging["id"], "--into", "running", "--reason", "same thing")
    assert merged["id"] == "running" and merged["profiles"] == 2 and merged["meetings"] == 1
    status, _, profile = server.request("GET", "/api/v1/me/profile", token=ann["token"])
    assert status == 200 and profile["activityIds"] == ["running"]  # had both: once
    status, _, profile = server.request("GET", f"/api/v1/users/{bob['id']}", token=ann["token"])
    assert status == 200 and sorted(profile["activityIds"]) == ["hiking", "running"]
    status, _, shown = server.request("GET", f"/api/v1/meetings/{meeting['id']}", token=ann["token"])
    assert status == 200 and shown["activityIds"] == ["running"]
    # The feed's in-memory index learns of the move through the change log, within a second.
    assert wait_for(lambda: meeting["id"] in feed_with_activity(server, ann, "running"), 1.0)
    assert jogging["id"] not in suggested(server, ann, "jogging")

    # Hidden: no longer suggested, refused for new uses, existing uses stay.
    hidden = admin_json(server, "activities", "hide", "hiking", "--reason", "not for us")
    assert hidden["hidden"] and hidden["profiles"] == 1
    assert "moderation.noChange" in refused(server, "activities", "hide", "hiking", "--reason", "again")
    assert "hiking" not in suggested(server, ann, "hik")
    assert set_activities(server, bob, ["running", "hiking"])[0] == 200
    status, problem = set_activities(server, ann, ["hiking"])
    assert status == 422 and [e["code"] for e in problem["errors"]] == ["activity.unknown"], problem
    status, _, problem = server.request("POST", "/api/v1/meetings", {
        "title": "Hike", "visibility": "public", "startsAt": meeting["startsAt"], "place": KYIV, "activityIds": ["hiking"]},
        token=ann["token"])
    assert status == 422 and "activity.unknown" in str(problem), problem
    status, _, problem = server.request("POST", "/api/v1/activities", {"name": "Hiking"}, token=ann["token"])
    assert status == 409 and problem["code"] == "activity.hidden"
    assert not admin_json(server, "activities", "unhide", "hiking")["hidden"]
    assert "hiking" in suggested(server, ann, "hik")

    slack = propose(server, ann, "Slaklining")
    renamed = admin_json(server, "activities", "rename", slack["id"], "--en", "slacklining in parks", "--uk", "слеклайн")
    assert (renamed["nameEn"], renamed["nameUk"]) == ("Slacklining in parks", "Слеклайн")
    status, _, page = server.request("GET", "/api/v1/activities?q=slack", token=ann["token"])
    assert status == 200 and page["items"][0]["name"] == "Slacklining in parks"

    audit = admin_json(server, "audit", "list")
    actions = [(entry["action"], entry["targetId"]) for entry in audit if entry["targetType"] == "activity"]
    assert actions == [("activity.rename", slack["id"]), ("activity.unhide", "hiking"), ("activity.hide", "hiking"),
                       ("activity.merge", jogging["id"])]
    assert all(entry["actor"] == "cli:tester" for entry in audit if entry["targetType"] == "activity")


def test_moderators_tidy_activities_over_rest(meetupd):
    server = meetupd()
    mod, user = server.register_user(), server.register_user()
    admin_json(server, "users", "promote", mod["id"])
    base = "/api/v1/admin/activities"
    status, _, problem = server.request("GET", base, token=user["token"])
    assert status == 403 and problem["code"] == "moderation.forbidden"
    assert server.request("POST", f"{base}/hiking/hide", {"reason": "x"}, token=user["token"])[0] == 403

    status, _, page = server.request("GET", f"{base}?q=Hiking", token=mod["token"])
    assert status == 200 and "hiking" in [a["id"] for a in page["items"]] and page["nextCursor"] is None
    assert server.request("GET", f"{base}?limit=0", token=mod["token"])[0] == 422

    one, two = propose(server, user, "Chess in the park"), propose(server, user, "Outdoor chess games")
    assert set_activities(server, user, [one["id"], two["id"]])[0] == 200
    status, _, problem = server.request("POST", f"{base}/{one['id']}/merge", {"into": "no-such"}, token=mod["token"])
    assert status == 404 and problem["code"] == "activity.notFound"
    assert server.request("POST", f"{base}/{one['id']}/merge", {}, token=mod["token"])[0] == 422
    status, _, merged = server.request("POST", f"{base}/{one['id']}/merge", {"into": two["id"], "reason": "dupe"}, token=mod["token"])
    assert status == 200 and merged["id"] == two["id"] and merged["profiles"] == 1
    status, _, profile = server.request("GET", "/api/v1/me/profile", token=user["token"])
    assert profile["activityIds"] == [two["id"]]

    status, _, problem = server.request("POST", f"{base}/{two['id']}/rename", {}, token=mod["token"])
    assert status == 422 and problem["code"] == "request.invalidFields"
    status, _, problem = server.request("POST", f"{base}/{two['id']}/rename", {"nameEn": "Hiking"}, token=mod["token"])
    assert status == 409 and problem["code"] == "activity.nameTaken"
    status, _, renamed = server.request("POST", f"{base}/{two['id']}/rename", {"nameEn": "Park chess"}, token=mod["token"])
    assert status == 200 and renamed["nameEn"] == "Park chess"

    status, _, problem = server.request("POST", f"{base}/{two['id']}/hide", {}, token=mod["token"])
    assert status == 422 and problem["code"] == "request.invalidFields"
    status, _, hidden = server.request("POST", f"{base}/{two['id']}/hide", {"reason": "spam"}, token=mod["token"])
    assert status == 200 and hidden["hidden"]
    status, _, problem = server.request("POST", f"{base}/{two['id']}/hide", {"reason": "spam"}, token=mod["token"])
    assert status == 409 and problem["code"] == "moderation.noChange"
    status, _, shown = server.request("POST", f"{base}/{two['id']}/unhide", {}, token=mod["token"])
    assert status == 200 and not shown["hidden"]

    audit = admin_json(server, "audit", "list")
    assert [e["action"] for e in audit if e["targetType"] == "activity"] == [
        "activity.unhide", "activity.hide", "activity.rename", "activity.merge"]
    assert {e["actor"] for e in audit if e["targetType"] == "activity"} == {"user:" + mod["id"]}
