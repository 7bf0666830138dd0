"""Presence fan-out under churn (issue 11): USERS users with FRIENDS friends each, CONNECTED of
them connected over STOMP/TCP and subscribed to /topic/presence.friends, and every second
CHURN% of CONNECTED changing: half of them disconnect while as many others connect. Reports the server's CPU per
presence event and per delivered MESSAGE (from /proc/PID/stat: utime + stime, so a loaded
machine slows the run down but does not inflate the figure much) and the deliveries per second.

    python3 Benchmarks/presence_churn.py MEETUPD_BIN [--users 11000] [--connected 10000]
        [--friends 50] [--churn 1] [--seconds 30] [--json out.json]

Users, tokens and friendships are written straight into a fresh data directory (after
`meetupd migrate`), since registering 11,000 users through REST would measure scrypt. The
friend graph is a ring: user i's friends are i±1 … i±FRIENDS/2. Disconnected users are
reconnected in the order they left, after at least the presence grace (10 s), so every
connect is an `online` event and every disconnect an `offline` one. Standard library only;
run the server on one core and this on the other (`taskset`) if you can.
"""
import argparse
import asyncio
import datetime
import hashlib
import json
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time


def stamp(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S.000")


def seed(path: str, users: int, friends: int) -> list[str]:
    """Writes the users, one token each, and the ring of friendships; returns the tokens."""
    now = datetime.datetime.now(datetime.timezone.utc)
    tokens = [f"presence-bench-{i}-{os.urandom(8).hex()}" for i in range(users)]
    db = sqlite3.connect(path)
    with db:
        db.executemany(
            "INSERT INTO user (id, email, displayName, locale, passwordHash, emailConfirmedAt, createdAt) VALUES (?, ?, ?, 'en', 'x', ?, ?)",
            [(f"u{i}", f"u{i}@bench.example.org", f"User {i}", stamp(now), stamp(now)) for i in range(users)])
        db.executemany(
            "INSERT INTO accessToken (tokenHash, userId, createdAt, expiresAt, lastUsedAt) VALUES (?, ?, ?, ?, ?)",
            [(hashlib.sha256(t.encode()).digest(), f"u{i}", stamp(now), stamp(now + datetime.timedelta(days=1)), stamp(now))
             for i, t in enumerate(tokens)])
        half = friends // 2
        db.executemany(
            "INSERT INTO friendship (userId, friendId, since) VALUES (?, ?, ?)",
            [(f"u{i}", f"u{(i + d) % users}", stamp(now)) for i in range(users) for d in range(-half, half + 1) if d])
    db.close()
    return tokens


class Session:
    """One user's STOMP connection; counts the MESSAGE frames it receives."""

    def __init__(self, bench, index: int):
        self.bench, self.index = bench, index
        self.reader = self.writer = None
        self.task = None

    async def open(self, port: int, token: str):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.writer.write(f"CONNECT\naccept-version:1.2\nhost:localhost\nheart-beat:0,0\npasscode:{token}\n\n\0".encode())
        buffer = b""
        while b"\0" not in buffer:
            chunk = await asyncio.wait_for(self.reader.read(65536), 60)
            if not chunk:
                raise RuntimeError("closed before CONNECTED")
            buffer += chunk
        frame, _, rest = buffer.partition(b"\0")
        if not frame.lstrip(b"\n").startswith(b"CONNECTED"):
            raise RuntimeError(frame[:200])
        self.writer.write(b"SUBSCRIBE\nid:p\ndestination:/topic/presence.friends\n\n\0")
        await self.writer.drain()
        self.task = asyncio.ensure_future(self.read(rest))

    async def read(self, buffer: bytes):
        try:
            while True:
                *frames, buffer = buffer.split(b"\0")
                self.bench.messages += sum(1 for f in frames if f.lstrip(b"\n").startswith(b"MESSAGE"))
                chunk = await self.reader.read(65536)
                if not chunk:
                    return
                buffer += chunk
        except (ConnectionError, asyncio.CancelledError):
            return

    async def close(self):
        self.writer.write(b"DISCONNECT\n\n\0")
        self.writer.close()
        if self.task:
            self.task.cancel()


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Bench:
    def __init__(self):
        self.messages = 0


async def run(args, port: int, pid: int, tokens: list[str]) -> dict:
    bench = Bench()
    sessions = {}
    order = list(range(args.users))
    random.Random(7).shuffle(order)
    connected, offline = order[:args.connected], order[args.connected:]

    async def connect(index):
        session = Session(bench, index)
        await session.open(port, tokens[index])
        sessions[index] = session

    started = time.monotonic()
    for start in range(0, len(connected), 200):
        await asyncio.gather(*(connect(i) for i in connected[start:start + 200]))
    ramp = time.monotonic() - started
    await asyncio.sleep(args.settle)  # snapshots delivered, connect events fanned out

    # CHURN% of the connected users change each second: half of them leave, half come back.
    per_second = max(1, round(args.connected * args.churn / 100 / 2))
    rng = random.Random(11)
    connected_set = list(connected)
    messages0, cpu0, t0 = bench.messages, cpu_seconds(pid), time.monotonic()
    subscriptions = 0
    for second in range(args.seconds):
        tick = time.monotonic()
        leaving = [connected_set.pop(rng.randrange(len(connected_set))) for _ in range(per_second)]
        for index in leaving:
            await sessions.pop(index).close()
        offline.extend(leaving)
        joining, offline[:] = offline[:per_second], offline[per_second:]
        await asyncio.gather(*(connect(i) for i in joining))
        connected_set.extend(joining)
        subscriptions += len(joining)
        await asyncio.sleep(max(0, 1 - (time.monotonic() - tick)))
    churned = time.monotonic() - t0
    # Let the last offline events (after the grace) and deliveries land inside the window.
    await asyncio.sleep(args.grace + 2)
    elapsed, cpu = time.monotonic() - t0, cpu_seconds(pid) - cpu0
    messages = bench.messages - messages0
    for session in list(sessions.values()):
        await session.close()
    changes = 2 * per_second * args.seconds  # every connect is online, every disconnect offline
    snapshot = subscriptions * args.friends
    live = max(0, messages - snapshot)
    return {
        "users": args.users, "connected": args.connected, "friends": args.friends, "churn_percent": args.churn,
        "seconds": args.seconds, "ramp_seconds": round(ramp, 1), "window_seconds": round(elapsed, 1),
        "presence_changes": changes, "changes_per_second_achieved": round(changes / churned, 1), "messages_delivered": messages, "snapshot_messages": snapshot,
        "live_messages": live, "live_messages_per_change": round(live / changes, 1),
        "delivered_per_second": round(messages / elapsed), "server_cpu_seconds": round(cpu, 2),
        "server_cpu_ms_per_change": round(1000 * cpu / changes, 3),
        "server_cpu_us_per_delivered_message": round(1e6 * cpu / max(1, messages), 1),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--users", type=int, default=11000)
    parser.add_argument("--connected", type=int, default=10000)
    parser.add_argument("--friends", type=int, default=50)
    parser.add_argument("--churn", type=float, default=1)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--settle", type=float, default=15)
    parser.add_argument("--grace", type=float, default=10)
    parser.add_argument("--json")
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="presence-bench-")
    server = None
    try:
        subprocess.run([args.binary, "migrate", "--data-dir", data], check=True, stdout=subprocess.DEVNULL)
        tokens = seed(os.path.join(data, "meetupd.sqlite"), args.users, args.friends)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            http_port = s.getsockname()[1]
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            stomp_port = s.getsockname()[1]
        server = subprocess.Popen(
            [args.binary, "serve", "--host", "127.0.0.1", "--port", str(http_port), "--stomp-port", str(stomp_port),
             "--data-dir", data, "--presence-grace", str(args.grace), "--log-level", "error"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", stomp_port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("meetupd did not start")
                time.sleep(0.1)
        report = asyncio.run(run(args, stomp_port, server.pid, tokens))
    finally:
        if server:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(data, ignore_errors=True)
    print(json.dumps(report, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
