"""The STOMP load generator (Benchmarks/StompLoad, C): its pure parts' unit tests, and short
runs against its trivial sink and against the real server, so that the benchmark tool the
performance figures rest on keeps counting right."""
import json
import os
import subprocess

import pytest

SOURCE = os.path.join(os.path.dirname(__file__), "..", "..", "Benchmarks", "StompLoad")


@pytest.fixture(scope="module")
def stompload(tmp_path_factory):
    out = tmp_path_factory.mktemp("stompload")
    subprocess.run([os.path.join(SOURCE, "build.sh"), str(out)], check=True, capture_output=True, timeout=120)
    return str(out / "stompload")


def run_json(binary: str, tmp_path, *arguments: str) -> dict:
    result = tmp_path / "result.json"
    completed = subprocess.run([binary, *arguments, "--quiet", "--json", str(result)],
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return json.loads(result.read_text())


def test_pure_parts(tmp_path):
    binary = tmp_path / "units"
    subprocess.run(["gcc", "-O1", "-Wall", "-Wextra", "-Werror", "-std=gnu11", "-o", str(binary),
                    *(os.path.join(SOURCE, name) for name in ("units.c", "wire.c", "histogram.c"))],
                   check=True, timeout=60)
    completed = subprocess.run([str(binary)], capture_output=True, text=True, timeout=30)
    assert completed.returncode == 0, completed.stderr
    assert "all checks passed" in completed.stdout


def test_counts_what_the_sink_streams(stompload, tmp_path):
    sink = subprocess.Popen([stompload, "sink"], stdout=subprocess.PIPE, text=True)
    try:
        port = sink.stdout.readline().strip()
        report = run_json(stompload, tmp_path, "--url", f"ws://127.0.0.1:{port}/ws", "--subscribers", "4",
                          "--publishers", "0", "--duration", "0.5", "--warmup", "0.2", "--drain", "0")
    finally:
        sink.kill()
        sink.wait()
    assert report["sessions_ready"] == 4 and report["errors"] == 0
    assert report["delivered_in_window"] > 1000
    assert report["latency_samples"] > 0


def test_the_fan_out_sink_delivers_each_send_to_its_room_only(stompload, tmp_path):
    # `sink --fanout` is the floor the broker figures are compared with: it must route like one.
    sink = subprocess.Popen([stompload, "sink", "--fanout"], stdout=subprocess.PIPE, text=True)
    try:
        port = sink.stdout.readline().strip()
        report = run_json(stompload, tmp_path, "--url", f"ws://127.0.0.1:{port}/ws", "--rooms", "2",
                          "--subscribers", "3", "--publishers", "1", "--rate", "600", "--duration", "1",
                          "--warmup", "0.3", "--drain", "10", "--broker-pid", str(sink.pid))
    finally:
        sink.kill()
        sink.wait()
    assert report["sessions_ready"] == 8 and report["errors"] == 0
    assert report["published_in_window"] == pytest.approx(200, abs=2)
    assert report["lost_pct"] == 0
    assert report["latency_samples"] == report["published_in_window"] * 3


def test_fan_out_through_meetupd(stompload, tmp_path, meetupd):
    server = meetupd("--stomp-sandbox")
    token = server.register_user()["token"]
    report = run_json(stompload, tmp_path, "--url", server.ws, "--passcode", token, "--rooms", "2",
                      "--subscribers", "3", "--publishers", "1", "--rate", "600", "--duration", "1",
                      "--warmup", "0.3", "--drain", "10", "--broker-pid", str(server.proc.pid))
    assert report["sessions_ready"] == 8 and report["errors"] == 0 and report["failed_connects"] == 0
    # 600 deliveries/s over 3 subscribers per room: 200 publishes/s, each reaching 3 sessions.
    assert report["published_in_window"] == pytest.approx(200, abs=2)
    assert report["lost_pct"] == 0
    assert report["latency_samples"] == report["published_in_window"] * 3
    assert report["broker_rss_kib"] > 0


def test_subscribers_are_spread_over_every_url(stompload, tmp_path):
    sinks = [subprocess.Popen([stompload, "sink"], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        ports = [sink.stdout.readline().strip() for sink in sinks]
        # The second "node" is gone: the sessions meant for it fail, the others do not.
        sinks[1].kill()
        sinks[1].wait()
        report = run_json(stompload, tmp_path, "--url", f"ws://127.0.0.1:{ports[0]}/ws", "--url",
                          f"ws://127.0.0.1:{ports[1]}/ws", "--subscribers", "4", "--publishers", "0",
                          "--duration", "0.3", "--warmup", "0", "--drain", "0", "--connect-timeout", "10",
                          "--broker-pid", str(sinks[0].pid), "--broker-pid", str(sinks[0].pid))
    finally:
        for sink in sinks:
            sink.kill()
            sink.wait()
    assert report["sessions_ready"] == 2 and report["failed_connects"] == 2
    assert report["broker_processes"] == 2


def test_chat_drafts_fan_out_through_a_meeting_room(stompload, tmp_path, meetupd):
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Benchmarks"))
    import stomp_seed

    server = meetupd("--chat-burst", "1000", "--chat-rate", "1000")
    tokens = tmp_path / "tokens.txt"
    stomp_seed.chat(server.base, server.data, 1, 1, 1, str(tokens))
    meeting, token = tokens.read_text().split()
    report = run_json(stompload, tmp_path, "--url", server.ws, "--tokens", str(tokens), "--chat-body",
                      "--subscribe-pattern", "/topic/meetings.{room}.chat", "--send-pattern", "/app/meetings.{room}.chat",
                      "--subscribers", "3", "--publishers", "1", "--rate", "60", "--duration", "1",
                      "--warmup", "0.3", "--drain", "10", "--broker-pid", str(server.proc.pid))
    assert report["sessions_ready"] == 4 and report["errors"] == 0 and report["refusals"] == 0
    # 60 deliveries/s over 3 subscribers: 20 posts/s, each stored once (its own clientMessageId)
    # and delivered to the 3 subscribers with its stamp.
    assert report["published_in_window"] == pytest.approx(20, abs=1)
    assert report["lost_pct"] == 0
    assert report["latency_samples"] == report["published_in_window"] * 3
    status, _, history = server.request("GET", f"/api/v1/meetings/{meeting}/messages?limit=100", token=token)
    assert status == 200
    assert len([m for m in history["items"] if m["type"] == "message"]) == report["published"]


def test_a_bad_token_is_a_failed_connect(stompload, tmp_path, meetupd):
    server = meetupd("--stomp-sandbox")
    completed = subprocess.run([stompload, "--url", server.ws, "--passcode", "not-a-token", "--subscribers", "1",
                                "--publishers", "0", "--duration", "0.2", "--warmup", "0", "--drain", "0",
                                "--connect-timeout", "10"], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 1
    assert "ERROR" in completed.stderr


def test_chat_receipts_within_the_configured_rate_limit(stompload, tmp_path, meetupd):
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Benchmarks"))
    import stomp_seed

    server = meetupd("--chat-burst", "3", "--chat-rate", "0.01")
    tokens = tmp_path / "tokens.txt"
    stomp_seed.chat(server.base, server.data, 2, 1, 2, str(tokens))
    report = run_json(stompload, tmp_path, "--url", server.ws, "--scenario", "chat", "--tokens", str(tokens),
                      "--duration", "1", "--warmup", "0", "--drain", "5", "--broker-pid", str(server.proc.pid))
    assert report["sessions_ready"] == 2 and report["errors"] == 0
    # Each sender's burst of three is stored and receipted; every later SEND is refused.
    assert report["receipts_per_s"] == 6
    assert report["refusals"] > 0
    status, _, history = server.request("GET", f"/api/v1/meetings/{tokens.read_text().split()[0]}/messages?limit=50",
                                        token=tokens.read_text().split()[1])
    # The room also holds the system messages of the senders joining.
    assert status == 200 and len([m for m in history["items"] if m["type"] == "message"]) == 6


def test_bad_chat_rate_limit_is_refused_at_start():
    binary = os.environ.get("MEETUPD_BIN", ".build/debug/meetupd")
    for flags in (["--chat-rate", "0"], ["--chat-burst", "0"]):
        completed = subprocess.run([binary, "serve", "--port", "0", *flags], capture_output=True, text=True, timeout=60)
        assert completed.returncode != 0
        assert "chat" in completed.stderr


def test_the_chat_floor_stores_every_send_it_answers(stompload, tmp_path):
    # `sink --chat` is the floor the durable-chat figures are compared with: every SEND it
    # answered must be stored once, with its room's next seq, as meetupd stores it.
    import sqlite3

    tokens = tmp_path / "tokens.txt"
    tokens.write_text("".join(f"room{r}\ttoken{r}-{s}\n" for r in range(2) for s in range(3)))
    store = tmp_path / "floor.sqlite"
    sink = subprocess.Popen([stompload, "sink", "--chat", str(store)], stdout=subprocess.PIPE, text=True)
    try:
        port = sink.stdout.readline().strip()
        report = run_json(stompload, tmp_path, "--url", f"ws://127.0.0.1:{port}/ws", "--scenario", "chat",
                          "--tokens", str(tokens), "--window", "1", "--duration", "0.5", "--warmup", "0.2",
                          "--drain", "10", "--broker-pid", str(sink.pid))
    finally:
        sink.kill()
        sink.wait()
    assert report["sessions_ready"] == 6 and report["errors"] == 0 and report["refusals"] == 0
    assert report["receipts_per_s"] > 0
    db = sqlite3.connect(store)
    rows = db.execute("SELECT roomId, count(*), min(seq), max(seq), count(DISTINCT senderId) FROM chatMessage GROUP BY roomId").fetchall()
    assert sorted(row[0] for row in rows) == ["meeting:room0", "meeting:room1"]
    for _, count, first, last, senders in rows:
        assert (first, last, senders) == (1, count, 3)
    assert sum(row[1] for row in rows) == report["published"]
    assert db.execute("SELECT count(*) FROM chatMessage WHERE length(text) = 100 AND clientMessageId LIKE 'load-%'").fetchone()[0] \
        == report["published"]
    assert db.execute("SELECT lastSeq FROM chatRoom ORDER BY id").fetchall() == \
        [(count,) for _, count, *_ in sorted(rows)]


def test_the_chat_anchor_writes_gapless_seqs_in_the_servers_shape(tmp_path, stompload):
    import sqlite3

    anchor = os.path.join(os.path.dirname(stompload), "chat_anchor")
    store = tmp_path / "anchor.sqlite"
    completed = subprocess.run([anchor, str(store), "2", "3", "0.3", "6"], capture_output=True, text=True, timeout=30)
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    db = sqlite3.connect(store)
    rows = db.execute("SELECT roomId, count(*), min(seq), max(seq), count(DISTINCT senderId) FROM chatMessage GROUP BY roomId").fetchall()
    assert len(rows) == 2 and sum(row[1] for row in rows) == report["rows"]
    for room, count, first, last, senders in rows:
        assert (first, last, senders) == (1, count, 3)
        assert room.startswith("meeting:") and len(room) == len("meeting:") + 22
    ids = [row[0] for row in db.execute("SELECT id FROM chatMessage")]
    assert len(set(ids)) == len(ids) and all(len(i) == 22 for i in ids)
