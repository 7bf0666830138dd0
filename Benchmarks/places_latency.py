#!/usr/bin/env python3
"""Geocoding latency of the bundled gazetteer, end to end over HTTP.

Starts the given meetupd binary on a free loopback port with a fresh data directory, signs
in one user, then times: the first lookup (which loads the gazetteer), N sequential
`GET /api/v1/places/search` over a mix of queries (exact names, other scripts, typos,
prefixes, with and without a position) and N `GET /api/v1/places/reverse` at random points
on land and sea. Prints p50/p90/p99/max in milliseconds and the server's CPU time per
request (from /proc, meaningful on a busy machine where wall-clock latency is not).

    swift build -c release --product meetupd
    python3 Benchmarks/places_latency.py "$(swift build -c release --show-bin-path)/meetupd" 500
"""
import os
import random
import statistics
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Interop"))
from conftest import Server  # noqa: E402  (the interop tests' server starter and REST helpers)

QUERIES = [
    ("Kyiv", None), ("Київ", None), ("Киев", None), ("Kiyv", None), ("Lviv", None), ("Львів", None),
    ("Kharki", None), ("Paris", (33.6, -95.5)), ("Londn", None), ("München", None), ("東京", None),
    ("San", (37.3, -121.9)), ("Springfield", (39.8, -89.6)), ("Khreshchatyk 22, Kyiv", None),
    ("Paris, Texas", None), ("Odesa", (46.5, 30.7)), ("Ivano-Frankivsk", None), ("Qqqqxxzz", None),
]


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(server, token, paths):
    samples = []
    cpu_before = cpu_seconds(server.proc.pid)
    for path in paths:
        start = time.perf_counter()
        status, _, body = server.request("GET", path, token=token)
        samples.append((time.perf_counter() - start) * 1000)
        assert status in (200, 404), (path, status, body)
    return samples, (cpu_seconds(server.proc.pid) - cpu_before) / len(paths) * 1000


def report(name, samples, cpu_ms):
    q = statistics.quantiles(samples, n=100)
    print(f"{name}: n={len(samples)} p50={q[49]:.2f} ms p90={q[89]:.2f} ms p99={q[98]:.2f} ms "
          f"max={max(samples):.2f} ms; server CPU {cpu_ms:.2f} ms/request")


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/meetupd"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    os.environ["MEETUPD_BIN"] = binary
    rng = random.Random(7)
    server = Server("--log-level", "warning")
    try:
        token = server.register_user()["token"]
        first, cpu_first = timed(server, token, ["/api/v1/places/search?q=Kyiv"])
        print(f"first lookup (loads the gazetteer): {first[0]:.0f} ms; server CPU {cpu_first:.0f} ms")
        searches = []
        for i in range(count):
            query, near = QUERIES[i % len(QUERIES)]
            params = {"q": query} | ({"lat": near[0], "lon": near[1]} if near else {})
            searches.append("/api/v1/places/search?" + urllib.parse.urlencode(params))
        report("search", *timed(server, token, searches))
        reverses = [f"/api/v1/places/reverse?lat={rng.uniform(-60, 70):.4f}&lon={rng.uniform(-180, 180):.4f}"
                    for _ in range(count)]
        report("reverse", *timed(server, token, reverses))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
