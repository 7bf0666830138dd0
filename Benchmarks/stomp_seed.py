"""Signs users into a running meetupd the way an app does (register, confirm from the mail
drop, log in) for Benchmarks/stomp-compare.sh and Benchmarks/chat-durable.sh; standard
library only.

    python3 Benchmarks/stomp_seed.py user BASE_URL DATA_DIR
        prints one bearer token (every fan-out session may share it: the sandbox trusts CONNECT)
    python3 Benchmarks/stomp_seed.py chat BASE_URL DATA_DIR USERS ROOMS SENDERS OUT_FILE
        signs in USERS users, creates ROOMS public meetings, each with SENDERS of them as
        members (room k: users k*SENDERS, k*SENDERS+1, ... modulo USERS; the first organizes
        it), and writes "meetingId<TAB>token" per sender and room to OUT_FILE, stompload's
        --tokens file. A user in several rooms sends to each from its own session.
"""
import concurrent.futures
import datetime
import json
import os
import sys
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Interop"))
from mail_reading import mailed_token  # noqa: E402  (the tests' one reader of mailed tokens)

PASSWORD = "load generator password"


def request(base: str, method: str, path: str, body=None, token: str | None = None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        status, raw = err.code, err.read()
    answer = json.loads(raw) if raw else None
    if status >= 300:
        raise SystemExit(f"{method} {path} answered {status}: {answer}")
    return answer


def sign_in(base: str, data: str, n: int) -> dict:
    """A new confirmed user with a bearer token: {"id", "token"}."""
    email = f"load-{n}-{uuid.uuid4().hex[:8]}@example.org"
    request(base, "POST", "/api/v1/auth/register", {"email": email, "password": PASSWORD, "displayName": f"Load {n}"})
    request(base, "POST", "/api/v1/auth/confirm", {"token": mailed_token(data, email, "confirm")})
    login = request(base, "POST", "/api/v1/auth/login", {"email": email, "password": PASSWORD})
    return {"id": login["user"]["id"], "token": login["accessToken"]}


def sign_in_many(base: str, data: str, count: int) -> list[dict]:
    # Password hashing dominates; a few at once keep both cores busy.
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda n: sign_in(base, data, n), range(count)))


def chat(base: str, data: str, count: int, rooms: int, senders: int, out: str) -> None:
    if senders > count:
        raise SystemExit("SENDERS must be at most USERS")
    users = sign_in_many(base, data, count)
    starts = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=7)).strftime("%Y-%m-%dT%H:00:00Z")
    lines = []
    for room in range(rooms):
        members = [users[(room * senders + k) % count] for k in range(senders)]
        meeting = request(base, "POST", "/api/v1/meetings", {
            "title": f"Load room {room}", "description": "stompload chat benchmark", "visibility": "public",
            "startsAt": starts, "place": {"lat": 50.45, "lon": 30.52}, "activityIds": []}, members[0]["token"])
        for member in members[1:]:
            request(base, "POST", f"/api/v1/meetings/{meeting['id']}/join", token=member["token"])
        lines += [f"{meeting['id']}\t{member['token']}\n" for member in members]
    with open(out, "w") as f:
        f.writelines(lines)
    print(f"{rooms} rooms x {senders} senders ({count} users) written to {out}")


def main(argv: list[str]) -> None:
    if len(argv) == 3 and argv[0] == "user":
        print(sign_in(argv[1], argv[2], 0)["token"])
    elif len(argv) == 7 and argv[0] == "chat":
        chat(argv[1], argv[2], int(argv[3]), int(argv[4]), int(argv[5]), argv[6])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
