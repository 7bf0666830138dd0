#!/usr/bin/env python3
"""Latency of the profile searches over HTTP, with many people in one city.

Starts the given meetupd binary on a free loopback port with a fresh data directory, signs in
one user through REST, writes USERS more confirmed users straight into the SQLite file (each
with a profile, two activities and a shared position within 30 km of Kyiv's centre), then
times sequential requests and prints p50/p99/max in milliseconds for:
nearby (10 km, the 50 nearest), people search by name prefix, activity suggestions.

    swift build -c release --product meetupd
    python3 Benchmarks/profiles_latency.py "$(swift build -c release --show-bin-path)/meetupd" 10000 300
"""
import math
import os
import random
import sqlite3
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Interop"))
from conftest import Server  # noqa: E402  (the interop tests' server starter and REST helpers)

KYIV = (50.4501, 30.5234)
NAMES = ["Olena", "Oleh", "Iryna", "Taras", "Ivan", "Oksana", "Petro", "Mariia", "Andrii", "Sofiia"]


def seed(database: str, users: int) -> None:
    rng = random.Random(7)
    activities = [row[0] for row in sqlite3.connect(database).execute("SELECT id FROM activity")]
    now = "2026-01-01 00:00:00.000"
    with sqlite3.connect(database, timeout=30) as db:
        for n in range(users):
            user_id = uuid.uuid4().hex
            name = f"{rng.choice(NAMES)} {n}"
            db.execute("INSERT INTO user (id, email, displayName, locale, passwordHash, emailConfirmedAt, banned, createdAt)"
                       " VALUES (?, ?, ?, 'uk', '', ?, 0, ?)", (user_id, f"{user_id}@example.org", name, now, now))
            db.execute("INSERT INTO profile (userId, bio, languages, updatedAt) VALUES (?, '', '[\"uk\"]', ?)", (user_id, now))
            for activity in rng.sample(activities, 2):
                db.execute("INSERT INTO profileActivity (userId, activityId) VALUES (?, ?)", (user_id, activity))
            distance, bearing = 30 * math.sqrt(rng.random()), rng.random() * 2 * math.pi
            lat = KYIV[0] + distance * math.cos(bearing) / 111.2
            lon = KYIV[1] + distance * math.sin(bearing) / (111.2 * math.cos(math.radians(KYIV[0])))
            db.execute("INSERT INTO userLocation (userId, lat, lon, shared, updatedAt) VALUES (?, ?, ?, 1, ?)",
                       (user_id, lat, lon, now))


def measure(server: Server, token: str, path: str, count: int) -> str:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        status, _, body = server.request("GET", path, token=token)
        samples.append((time.perf_counter() - start) * 1000)
        assert status == 200, body
    samples.sort()

    def pct(p: float) -> float:
        return samples[min(len(samples) - 1, int(p * len(samples)))]

    return f"p50 {pct(0.50):.2f} ms  p99 {pct(0.99):.2f} ms  max {samples[-1]:.2f} ms  ({len(body['items'])} items)"


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/meetupd"
    users = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    os.environ["MEETUPD_BIN"] = binary
    server = Server("--log-level", "warning")
    try:
        viewer = server.register_user()
        seed(os.path.join(server.data, "meetupd.sqlite"), users)
        token = viewer["token"]
        print(f"{users} users sharing positions within 30 km, {count} sequential requests each")
        print("nearby 10 km, limit 50:   ", measure(server, token, f"/api/v1/users/nearby?lat={KYIV[0]}&lon={KYIV[1]}&radiusKm=10", count))
        print("nearby 1 km, limit 50:    ", measure(server, token, f"/api/v1/users/nearby?lat={KYIV[0]}&lon={KYIV[1]}&radiusKm=1", count))
        print("users?q=ol, limit 20:     ", measure(server, token, "/api/v1/users?q=ol", count))
        print("activities?q=hikng:       ", measure(server, token, "/api/v1/activities?q=hikng", count))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
