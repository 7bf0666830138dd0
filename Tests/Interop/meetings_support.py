"""Helpers shared by the meetings interop tests: times, creating meetings, raw GETs."""
import concurrent.futures
import datetime as dt
import time
import urllib.error
import urllib.request

KYIV = {"lat": 50.4501, "lon": 30.5234}


def iso(hours: float) -> str:
    """An RFC 3339 UTC time `hours` from now."""
    moment = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=hours)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def create_meeting(server, user, **fields) -> dict:
    body = {"title": "Evening run", "visibility": "public", "startsAt": iso(24), "place": KYIV} | fields
    status, _, meeting = server.request("POST", "/api/v1/meetings", body, user["token"])
    assert status == 201, meeting
    return meeting


def join(server, user, meeting):
    """Joins `user` to the meeting and waits for the room's `memberJoined` system message (written
    from the event log just after the join), so that the seqs a test counts come after it."""
    assert server.request("POST", f"/api/v1/meetings/{meeting}/join", token=user["token"])[0] == 200
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        _, _, page = server.request("GET", f"/api/v1/meetings/{meeting}/messages?limit=200", token=user["token"])
        if any((m.get("system") or {}).get("arguments", {}).get("userId") == user["id"] for m in page["items"]):
            return
        time.sleep(0.01)
    raise AssertionError(f"no memberJoined message for {user['id']}")


def register_users(server, count: int) -> list[dict]:
    """`count` signed-in users, registered a few at a time."""
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda _: server.register_user(), range(count)))


def get_text(server, path: str, token: str | None, headers: dict | None = None) -> tuple[int, dict, str]:
    """A GET whose body is not JSON (calendar files)."""
    req = urllib.request.Request(server.base + path, headers=headers or {})
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read().decode()
