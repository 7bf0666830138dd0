"""The apns and fcm transports against a local HTTP/2 stand-in for both services (push_fakes):
documented requests with verified credentials, one multiplexed connection, retries with
Retry-After and backoff, dead jobs, and devices disabled on a refused token."""
import json
import os
import shutil
import sqlite3
import tempfile
import time

import pytest

from notifications_support import add_device
from push_fakes import APNS_KEY_ID, TEAM_ID, Credentials, FakePushService

WAIT = 30  # seconds; never a timing assertion


@pytest.fixture
def push_service():
    folder = tempfile.mkdtemp(prefix="meetupd-push-")
    credentials = Credentials(folder)
    with FakePushService(credentials) as service:
        service.credentials = credentials
        yield service
    shutil.rmtree(folder, ignore_errors=True)


def _serve(meetupd, service, *flags):
    return meetupd(
        "--apns-key-file", service.credentials.apns_key_file, "--apns-key-id", APNS_KEY_ID, "--apns-team-id", TEAM_ID,
        "--apns-url", service.url, "--fcm-service-account", service.credentials.service_account(service.token_uri),
        "--fcm-url", service.url, "--push-ca-file", service.credentials.cert_file, *flags)


def _jobs(server):
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"))
    try:
        return db.execute("""SELECT device.token, pushJob.state, pushJob.attempts, pushJob.lastError
                             FROM pushJob JOIN device ON device.id = pushJob.deviceId""").fetchall()
    finally:
        db.close()


def _wait_until_settled(server, count):
    deadline = time.monotonic() + WAIT
    while True:
        jobs = _jobs(server)
        if len(jobs) == count and all(state in ("delivered", "dead") for _, state, _, _ in jobs):
            return {token: (state, attempts, error) for token, state, attempts, error in jobs}
        assert time.monotonic() < deadline, f"jobs did not settle: {jobs}"
        time.sleep(0.1)


def test_apns_and_fcm_answers_decide_retries_dead_jobs_and_disabled_devices(meetupd, push_service):
    server = _serve(meetupd, push_service, "--push-retry-base", "0.2", "--push-max-attempts", "3")
    ann = server.register_user(display_name="Ann")
    bob = server.register_user(display_name="Bob")
    tokens = {}
    for service in ("apns", "fcm"):
        for kind in ("ok", "gone", "bad", "busy", "flaky", "down"):
            token = f"{kind}{service}" + "0" * 8
            tokens[token] = add_device(server, ann, token, service=service, locale="uk" if kind == "ok" else "en",
                                       **({"environment": "sandbox"} if service == "apns" else {}))
    server.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])
    jobs = _wait_until_settled(server, len(tokens))

    for service in ("apns", "fcm"):
        assert jobs[f"ok{service}00000000"][0] == "delivered"
        assert jobs[f"busy{service}00000000"][:2] == ("delivered", 2)
        assert jobs[f"flaky{service}00000000"][:2] == ("delivered", 2)
        assert jobs[f"down{service}00000000"][:2] == ("dead", 3)
        for kind in ("gone", "bad"):
            assert jobs[f"{kind}{service}00000000"][:2] == ("dead", 1)
    devices = {d["token"]: d for d in server.request("GET", "/api/v1/me/devices", token=ann["token"])[2]["items"]}
    disabled = {token for token, device in devices.items() if not device["enabled"]}
    assert disabled == {f"{kind}{service}00000000" for kind in ("gone", "bad") for service in ("apns", "fcm")}

    # Retry-After was honoured: the second try of a throttled push came a second later.
    for kind, prefix in (("apns", "/3/device/busy"), ("fcm", None)):
        tries = [r for r in push_service.recorded(kind)
                 if (r["path"].startswith(prefix) if prefix else json.loads(r["body"])["message"]["token"].startswith("busy"))]
        assert len(tries) == 2 and tries[1]["at"] - tries[0]["at"] >= 0.9

    # The documented APNs request: headers, a verified provider token, the body as the pushdrop shows it.
    apns = next(r for r in push_service.recorded("apns") if r["path"] == "/3/device/okapns00000000")
    assert apns["http_version"] == "2"
    headers = apns["headers"]
    assert headers["apns-push-type"] == "alert" and headers["apns-topic"] == "org.example.meetup"
    assert headers["apns-collapse-id"] == "friends" and headers["apns-priority"] == "10" and "apns-expiration" in headers
    body = json.loads(apns["body"])
    assert body["aps"]["alert"] == {"title": "Новий запит на дружбу", "body": "Bob хоче з вами дружити."}
    assert body["aps"]["badge"] == 1 and body["deeplink"] == "meetup://friends/requests"
    fcm = next(r for r in push_service.recorded("fcm") if json.loads(r["body"])["message"]["token"] == "okfcm00000000")
    assert json.loads(fcm["body"])["message"]["notification"]["title"] == "Новий запит на дружбу"

    # One access token served every FCM push; everything went over HTTP/2, multiplexed.
    assert len(push_service.recorded("token")) == 1
    everything = push_service.recorded()
    assert all(r["http_version"] == "2" for r in everything)
    assert len({r["client_port"] for r in everything}) == 1, "one connection carries every push"
    assert not [r for r in everything if r["status"] in (401, 403)], "credentials were accepted"


def test_a_disabled_device_comes_back_when_registered_again(meetupd, push_service):
    server = _serve(meetupd, push_service)
    ann, bob = server.register_user(), server.register_user()
    add_device(server, ann, "goneapns00000000")
    server.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])
    _wait_until_settled(server, 1)
    status, _, device = server.request("POST", "/api/v1/devices", {"pushService": "apns", "token": "goneapns00000000",
                                                                    "locale": "en"}, token=ann["token"])
    assert status == 200 and device["enabled"] is True
