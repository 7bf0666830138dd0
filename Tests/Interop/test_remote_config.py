"""Remote configuration, promos and shared links driven as operators and clients do: the admin
CLI as a separate process on the running server's data directory, REST over loopback, the JSON
Schema checked by an independent validator, and the link page in headless Chromium."""
import json
import os
import shutil
import subprocess
import time
import urllib.request

import jsonschema
import pytest

from mail_reading import html_of, maildrop, text_of
from meetings_support import create_meeting, get_text

BINARY = os.environ.get("MEETUPD_BIN", ".build/debug/meetupd")

DOCUMENT = {
    "keys": {
        "home.banner": {
            "value": {"type": "Label", "parameters": {"text": "Welcome"}},
            "rules": [
                {"when": {"platform": "ios", "appVersion": ">=1.4.0 <2.0"},
                 "value": {"type": "Stack", "parameters": {"axis": "vertical", "children": [
                     {"type": "Label", "parameters": {"text": "New home"}},
                     {"type": "x-countdown", "parameters": {"until": "2027-01-01T00:00:00Z"}}]}}},
                {"when": {"locale": ["uk"]}, "value": {"type": "Label", "parameters": {"text": "Вітаємо"}}},
            ],
        },
        "chat.maxAttachments": {"value": 4, "rules": [{"when": {"country": ["UA"]}, "value": 6}]},
        "feature.newFeed": {"value": False, "rules": [
            {"when": {"rollout": {"experiment": "new-feed", "to": 30}}, "value": True}]},
    }
}


def admin(server, *args, check=True):
    """Runs `meetupd admin ARGS --data-dir DATA` as its own process."""
    result = subprocess.run([BINARY, "admin", *args, "--data-dir", server.data],
                            capture_output=True, text=True, timeout=60)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def push(server, tmp_path, document, *flags):
    path = tmp_path / f"config-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(document))
    return admin(server, "config", "push", str(path), "--json", *flags, check=False)


def config(server, query="", token=None, etag=None):
    req = urllib.request.Request(server.base + "/api/v1/config" + query)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    if etag:
        req.add_header("If-None-Match", etag)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        body = err.read()
        return err.code, err.headers, json.loads(body) if body else None


def wait_for_version(server, version, limit=1.5):
    """Polls until the server serves `version`; returns how long that took."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if config(server)[2]["version"] == version:
            return time.monotonic() - start
        time.sleep(0.05)
    raise AssertionError(f"version {version} not served within {limit} s")


def test_cli_push_activate_rollback_reach_the_running_server(meetupd, tmp_path):
    server = meetupd()
    assert config(server)[2] == {"version": None, "values": {}}
    first = push(server, tmp_path, DOCUMENT, "--comment", "first")
    assert first.returncode == 0, first.stderr
    v1 = json.loads(first.stdout)["version"]
    assert config(server)[2]["version"] is None  # pushed is not active
    admin(server, "config", "activate", str(v1))
    wait_for_version(server, v1)

    changed = json.loads(json.dumps(DOCUMENT))
    changed["keys"]["chat.maxAttachments"]["value"] = 8
    del changed["keys"]["feature.newFeed"]
    v2 = json.loads(push(server, tmp_path, changed, "--activate").stdout)["version"]
    wait_for_version(server, v2)
    assert config(server)[2]["values"]["chat.maxAttachments"] == 8

    diff = json.loads(admin(server, "config", "diff", str(v1), str(v2), "--json").stdout)
    assert [(c["key"], c["change"]) for c in diff] == [("chat.maxAttachments", "changed"), ("feature.newFeed", "removed")]
    listing = json.loads(admin(server, "config", "list", "--json").stdout)
    assert [(v["version"], v["active"]) for v in listing] == [(v2, True), (v1, False)]
    shown = json.loads(admin(server, "config", "show", "--json").stdout)
    assert shown["version"] == v2 and shown["document"] == changed

    admin(server, "config", "rollback")
    wait_for_version(server, v1)
    assert config(server)[2]["values"]["chat.maxAttachments"] == 4
    admin(server, "config", "rollback")
    wait_for_version(server, None)
    refused = admin(server, "config", "rollback", check=False)
    assert refused.returncode != 0 and "config.nothingToRollBack" in refused.stderr
    missing = admin(server, "config", "activate", "999", check=False)
    assert missing.returncode != 0 and "config.versionNotFound" in missing.stderr


def test_targeting_by_platform_version_locale_and_country(meetupd, tmp_path):
    server = meetupd()
    v = json.loads(push(server, tmp_path, DOCUMENT, "--activate").stdout)["version"]
    wait_for_version(server, v)
    values = lambda q: config(server, q)[2]["values"]
    assert values("?platform=ios&appVersion=1.5.2")["home.banner"]["type"] == "Stack"
    assert values("?platform=ios&appVersion=2.0")["home.banner"]["parameters"]["text"] == "Welcome"
    assert values("?platform=android&appVersion=1.5.2")["home.banner"]["parameters"]["text"] == "Welcome"
    assert values("?platform=android&locale=uk-UA")["home.banner"]["parameters"]["text"] == "Вітаємо"
    assert values("?locale=uk-UA")["chat.maxAttachments"] == 6
    assert values("?locale=en-GB")["chat.maxAttachments"] == 4
    assert values("")["feature.newFeed"] is False  # anonymous: no rollout
    status, _, problem = config(server, "?platform=windows&appVersion=one")
    assert status == 422
    assert sorted(e["field"] for e in problem["errors"]) == ["appVersion", "platform"]


def test_etag_and_not_modified(meetupd, tmp_path):
    server = meetupd()
    v = json.loads(push(server, tmp_path, DOCUMENT, "--activate").stdout)["version"]
    wait_for_version(server, v)
    status, headers, _ = config(server, "?platform=ios&appVersion=1.5")
    etag = headers["ETag"]
    assert status == 200 and "max-age" in headers["Cache-Control"]
    assert config(server, "?platform=ios&appVersion=1.5", etag=etag)[0] == 304
    assert config(server, "?platform=ios&appVersion=1.5", etag="W/" + etag)[0] == 304
    # Another client's configuration differs, and so does its tag.
    assert config(server, "?platform=android", etag=etag)[0] == 200


def test_rollout_is_stable_per_user_and_near_its_percentage(meetupd, tmp_path):
    server = meetupd()
    v = json.loads(push(server, tmp_path, DOCUMENT, "--activate").stdout)["version"]
    wait_for_version(server, v)
    users = [server.register_user() for _ in range(6)]
    first = [config(server, token=u["token"])[2]["values"]["feature.newFeed"] for u in users]
    again = [config(server, token=u["token"])[2]["values"]["feature.newFeed"] for u in users]
    assert first == again


BAD_DOCUMENTS = [
    {},
    {"keys": {"Home": {"value": 1}}},
    {"keys": {"home": {"value": 1, "extra": 2}}},
    {"keys": {"home": {"rules": []}}},
    {"keys": {"home": {"value": 1, "rules": [{"when": {}, "value": 2}]}}},
    {"keys": {"home": {"value": 1, "rules": [{"when": {"platform": "windows"}, "value": 2}]}}},
    {"keys": {"home": {"value": 1, "rules": [{"when": {"appVersion": "1.4 or newer"}, "value": 2}]}}},
    {"keys": {"home": {"value": 1, "rules": [{"when": {"locale": ["UK"]}, "value": 2}]}}},
    {"keys": {"home": {"value": 1, "rules": [{"when": {"country": ["ua"]}, "value": 2}]}}},
    {"keys": {"home": {"value": 1, "rules": [{"when": {"rollout": {"experiment": "X", "to": 5}}, "value": 2}]}}},
    {"keys": {"home": {"value": 1, "rules": [{"when": {"rollout": {"experiment": "x", "to": 101}}, "value": 2}]}}},
    {"keys": {"home": {"value": {"type": "Lable", "parameters": {"text": "typo"}}}}},
    {"keys": {"home": {"value": {"type": "Label", "parameters": {}}}}},
    {"keys": {"home": {"value": {"type": "Button", "parameters": {"title": "Go"}}}}},
    {"keys": {"home": {"value": {"type": "Image", "parameters": {"alt": "x"}}}}},
    {"keys": {"home": {"value": {"type": "Stack", "parameters": {"axis": "diagonal", "children": []}}}}},
    {"keys": {"home": {"value": {"type": "Stack", "parameters": {"axis": "vertical", "children": [{"text": "no type"}]}}}}},
    {"keys": {"home": {"value": {"type": "Label", "parameters": {"text": "x"}, "style": "bold"}}}},
]

GOOD_DOCUMENTS = [
    DOCUMENT,
    {"keys": {}},
    {"keys": {"a.b.c": {"value": [1, 2, {"plain": "object"}], "description": "plain values"}}},
    {"keys": {"home": {"value": {"type": "Spacer"}}}},
    {"keys": {"home": {"value": {"type": "Image", "parameters": {"mediaId": "abc"}}}}},
    {"keys": {"ab": {"value": "a", "rules": [
        {"when": {"rollout": {"experiment": "ab-test", "from": 0, "to": 50}}, "value": "a"},
        {"when": {"rollout": {"experiment": "ab-test", "from": 50, "to": 100}}, "value": "b"}]}}},
]


def test_server_and_an_independent_validator_agree_on_the_schema(meetupd, tmp_path):
    server = meetupd()
    status, headers, schema = server.request("GET", "/api/v1/config/schema.json")
    assert status == 200 and headers["Content-Type"].startswith("application/schema+json")
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for document in GOOD_DOCUMENTS:
        assert not list(validator.iter_errors(document)), document
        assert push(server, tmp_path, document).returncode == 0, document
    for document in BAD_DOCUMENTS:
        assert list(validator.iter_errors(document)), document
        result = push(server, tmp_path, document)
        assert result.returncode != 0, document
        assert "config.invalid" in result.stderr, result.stderr
    # Beyond what a schema can say: an empty rollout slice.
    empty = {"keys": {"x": {"value": 1, "rules": [{"when": {"rollout": {"experiment": "x", "from": 40, "to": 40}}, "value": 2}]}}}
    result = push(server, tmp_path, empty)
    assert result.returncode != 0 and "keys.x.rules.0.when.rollout.to" in result.stderr
    not_json = tmp_path / "broken.json"
    not_json.write_text("{keys:")
    result = admin(server, "config", "push", str(not_json), check=False)
    assert result.returncode != 0 and "config.notJSON" in result.stderr
    # Nothing refused was stored.
    assert len(json.loads(admin(server, "config", "list", "--json").stdout)) == len(GOOD_DOCUMENTS)


def test_promo_targeting_dismissal_and_counts(meetupd, tmp_path):
    server = meetupd()
    ann, bob = server.register_user(), server.register_user()
    meeting = create_meeting(server, ann)
    promo = {"title": "Winter hikes", "text": "Join a hike this weekend", "meetingId": meeting["id"],
             "startsAt": "2020-01-01T00:00:00Z", "endsAt": "2099-01-01T00:00:00Z",
             "audience": {"platform": "ios"}, "priority": 5}
    path = tmp_path / "promo.json"
    path.write_text(json.dumps(promo))
    added = json.loads(admin(server, "promo", "push", str(path), "--json").stdout)
    status, _, shown = server.request("GET", "/api/v1/promo?platform=ios", token=ann["token"])
    assert status == 200 and shown["id"] == added["id"]
    assert shown["deeplink"] == f"meetup://meetings/{meeting['id']}"
    assert server.request("GET", "/api/v1/promo?platform=android", token=bob["token"])[0] == 204
    assert server.request("GET", "/api/v1/promo", token=bob["token"])[0] == 204
    assert server.request("POST", f"/api/v1/promo/{added['id']}/dismiss", token=ann["token"])[0] == 204
    assert server.request("GET", "/api/v1/promo?platform=ios", token=ann["token"])[0] == 204
    assert server.request("POST", "/api/v1/promo/nope/dismiss", token=ann["token"])[0] == 404
    assert server.request("GET", "/api/v1/promo")[0] == 401
    counts = json.loads(admin(server, "promo", "list", "--json").stdout)[0]
    assert (counts["impressions"], counts["dismissals"]) == (1, 1)
    bad = dict(promo, endsAt="2019-01-01T00:00:00Z", deeplink="javascript:alert(1)")
    path.write_text(json.dumps(bad))
    refused = admin(server, "promo", "push", str(path), check=False)
    assert refused.returncode != 0 and "promo.endBeforeStart" in refused.stderr and "deeplink" in refused.stderr


def test_well_known_documents(meetupd):
    fingerprint = ":".join(["AB"] * 32)
    server = meetupd("--ios-app-id", "ABCDE12345.org.example.meetup", "--android-package", "org.example.meetup",
                     "--android-cert-fingerprint", fingerprint)
    status, headers, aasa = server.request("GET", "/.well-known/apple-app-site-association")
    assert status == 200 and headers["Content-Type"] == "application/json"
    detail = aasa["applinks"]["details"][0]
    assert detail["appIDs"] == ["ABCDE12345.org.example.meetup"]
    assert {"/": "/m/*"} in detail["components"]
    status, headers, links = server.request("GET", "/.well-known/assetlinks.json")
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert links == [{"relation": ["delegate_permission/common.handle_all_urls"],
                      "target": {"namespace": "android_app", "package_name": "org.example.meetup",
                                 "sha256_cert_fingerprints": [fingerprint]}}]
    plain = meetupd()
    assert plain.request("GET", "/.well-known/apple-app-site-association")[0] == 404


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(chromium() is None and os.environ.get("CI") != "true", reason="chromium is not installed")
def test_link_page_in_a_real_browser(meetupd, tmp_path):
    server = meetupd()
    ann = server.register_user()
    public = create_meeting(server, ann, title="Sunrise hike on Hoverla")
    private = create_meeting(server, ann, title="Secret birthday dinner", visibility="private")

    def dom(path):
        result = subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + str(tmp_path / "profile"),
             "--dump-dom", server.base + path], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return result.stdout

    page = dom(f"/m/{public['id']}")
    assert "<h1>Sunrise hike on Hoverla</h1>" in page
    assert 'property="og:title" content="Sunrise hike on Hoverla"' in page
    assert f'href="meetup://meetings/{public["id"]}"' in page
    hidden = dom(f"/m/{private['id']}")
    assert "Secret birthday" not in hidden and "og:title" not in hidden
    assert hidden == dom("/m/unknown-id")
    status, _, _ = get_text(server, f"/m/{private['id']}", None)
    assert status == 404


def test_account_mails_carry_the_https_link_on_the_public_address(meetupd):
    server = meetupd("--public-url", "https://meetup.example.org")
    user = server.register_user(email="mailed@example.org")
    assert user["token"]
    texts = [text_of(m) + html_of(m) for m in maildrop(server.data)]
    assert texts and all("https://meetup.example.org/auth/confirm?token=" in t for t in texts)
    assert not any("meetup://" in t for t in texts)
