#!/usr/bin/env python3
"""Login latency with the real scrypt parameters, end to end over HTTP.

Starts the given meetupd binary on a free loopback port with a fresh data directory,
registers and confirms one user, then times N sequential `POST /api/v1/auth/login` calls
and prints p50/p90/p99/max in milliseconds, plus the server's CPU time per login (from
/proc, so it stays meaningful on a busy machine where wall-clock latency does not).

    swift build -c release --product meetupd
    python3 Benchmarks/login_latency.py "$(swift build -c release --show-bin-path)/meetupd" 200
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Interop"))
from conftest import Server  # noqa: E402  (the interop tests' server starter and REST helpers)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/meetupd"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    os.environ["MEETUPD_BIN"] = binary
    server = Server("--log-level", "warning")
    try:
        user = server.register_user()
        body = {"email": user["email"], "password": user["password"]}
        samples = []
        cpu_before = cpu_seconds(server.proc.pid)
        for _ in range(count):
            start = time.perf_counter()
            status, _, _ = server.request("POST", "/api/v1/auth/login", body)
            samples.append((time.perf_counter() - start) * 1000)
            assert status == 200, status
        cpu_per_login = (cpu_seconds(server.proc.pid) - cpu_before) / count * 1000
        samples.sort()

        def pct(p: float) -> float:
            return samples[min(len(samples) - 1, int(p * len(samples)))]

        print(f"login x{count}: p50 {pct(0.50):.1f} ms  p90 {pct(0.90):.1f} ms  "
              f"p99 {pct(0.99):.1f} ms  max {samples[-1]:.1f} ms  mean {statistics.mean(samples):.1f} ms  "
              f"server CPU {cpu_per_login:.1f} ms/login  (load average {os.getloadavg()[0]:.1f})")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
