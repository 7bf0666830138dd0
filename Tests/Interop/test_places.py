"""Places through the real binary: the bundled gazetteer, and Nominatim switched on by flags
against a small local server that answers like Nominatim."""
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

KHRESHCHATYK = {
    "place_id": 1, "lat": "50.4481", "lon": "30.5225", "category": "highway", "type": "residential",
    "name": "Khreshchatyk", "display_name": "22, Khreshchatyk, Kyiv, 01001, Ukraine",
    "address": {"house_number": "22", "road": "Khreshchatyk", "city": "Kyiv", "state": "Kyiv",
                "postcode": "01001", "country": "Ukraine", "country_code": "ua"},
}


@pytest.fixture
def fake_nominatim():
    """A Nominatim look-alike on a free loopback port; yields (base URL, list of requests seen)."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(url.query))
            seen.append((url.path, query, self.headers.get("User-Agent")))
            if url.path == "/search":
                body = [KHRESHCHATYK] if query.get("q") != "nowhere" else []
            elif url.path == "/reverse":
                body = KHRESHCHATYK if query.get("lat") != "0.0" else {"error": "Unable to geocode"}
            else:
                self.send_error(404)
                return
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def search(server, token, query, **params):
    path = "/api/v1/places/search?" + urllib.parse.urlencode({"q": query, **params})
    return server.request("GET", path, token=token)


def test_gazetteer_finds_kyiv_by_its_names_in_three_languages_and_with_a_typo(meetupd):
    server = meetupd()
    token = server.register_user()["token"]
    for query in ["Kyiv", "Київ", "Киев", "Kiyv"]:
        status, _, body = search(server, token, query)
        assert status == 200, body
        first = body["items"][0]
        assert (first["city"], first["countryCode"], first["timeZone"]) == ("Kyiv", "UA", "Europe/Kyiv"), query
    status, _, place = server.request("GET", "/api/v1/places/reverse?lat=49.8419&lon=24.0315", token=token)
    assert status == 200 and place["city"] == "Lviv" and place["timeZone"] == "Europe/Kyiv"


def test_nominatim_is_used_when_configured(meetupd, fake_nominatim):
    url, seen = fake_nominatim
    server = meetupd("--geocoder", "nominatim", "--nominatim-url", url)
    token = server.register_user()["token"]

    status, _, body = search(server, token, "Khreshchatyk 22, Kyiv", lat="50.45", lon="30.52", limit="3")
    assert status == 200, body
    assert body["items"] == [{
        "name": "Khreshchatyk", "address": "Khreshchatyk 22", "city": "Kyiv", "region": "Kyiv",
        "country": "Ukraine", "countryCode": "UA", "lat": 50.4481, "lon": 30.5225,
        "timeZone": "Europe/Kyiv", "distanceKm": 0.3,
    }]
    path, query, agent = seen[0]
    assert path == "/search" and query["q"] == "Khreshchatyk 22, Kyiv"
    assert query["format"] == "jsonv2" and query["addressdetails"] == "1" and query["limit"] == "3"
    assert agent.startswith("meetupd")

    status, _, body = search(server, token, "nowhere")
    assert status == 200 and body["items"] == []
    status, _, place = server.request("GET", "/api/v1/places/reverse?lat=50.4481&lon=30.5225", token=token)
    assert status == 200 and place["address"] == "Khreshchatyk 22"
    status, _, problem = server.request("GET", "/api/v1/places/reverse?lat=0&lon=0", token=token)
    assert status == 404 and problem["code"] == "place.notFound"


def test_nominatim_down_is_a_clear_503(meetupd, fake_nominatim):
    url, _ = fake_nominatim
    server = meetupd("--geocoder", "nominatim", "--nominatim-url", url + "/gone")
    token = server.register_user()["token"]
    status, headers, problem = search(server, token, "Kyiv")
    assert status == 503
    assert headers["Content-Type"] == "application/problem+json"
    assert problem["code"] == "place.geocoderUnavailable"


@pytest.mark.parametrize("flags, message", [
    (("--geocoder", "nominatim"), "needs --nominatim-url"),
    (("--geocoder", "nominatim", "--nominatim-url", "ftp://example.org"), "must be an http or https URL"),
    (("--geocoder", "google"), "Unknown geocoder 'google'"),
])
def test_bad_geocoder_flags_stop_the_server_with_a_message(meetupd, flags, message):
    with pytest.raises(RuntimeError, match=message):
        meetupd(*flags)
