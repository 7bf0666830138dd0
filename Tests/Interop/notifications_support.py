"""Helpers of the notification tests: the inbox in a language, and devices."""
import datetime as dt
import json
import urllib.request


def inbox(server, user, language="en", **query):
    """The user's inbox page as JSON, asked for in `language`."""
    params = "&".join(f"{k}={v}" for k, v in query.items())
    req = urllib.request.Request(f"{server.base}/api/v1/notifications?{params}",
                                 headers={"Authorization": "Bearer " + user["token"], "Accept-Language": language})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def add_device(server, user, token, service="apns", locale="en", **fields):
    status, _, device = server.request("POST", "/api/v1/devices",
                                       {"pushService": service, "token": token, "locale": locale, **fields},
                                       token=user["token"])
    assert status == 201, device
    return device


def quiet_hours_around_now():
    """Quiet hours in Europe/Kyiv from an hour ago to two hours ahead, and now in Kyiv."""
    now = dt.datetime.now(dt.timezone(dt.timedelta(hours=2)))  # Europe/Kyiv in November
    return {"start": (now - dt.timedelta(hours=1)).strftime("%H:%M"), "end": (now + dt.timedelta(hours=2)).strftime("%H:%M"),
            "timeZone": "Europe/Kyiv"}, now
