"""The push dispatcher's throughput: a backlog of N jobs drained through the `file` transport
and through the local HTTP/2 stand-in of APNs (Tests/Interop/push_fakes.py), with the
server's CPU time per job read from /proc/PID/stat (the machine is shared: compare CPU, not
wall time). The anchor, measured in the same run, is the least work a job needs done in
Python on the same disk: claim a batch in SQLite, write each file, record it delivered.

    MEETUPD_BIN=.build/debug/meetupd .build/venv/bin/python Benchmarks/push_throughput.py [N]
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Interop"))
from conftest import Server  # noqa: E402
from push_fakes import APNS_KEY_ID, TEAM_ID, Credentials, FakePushService  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def drain(server, jobs):
    """Starts with 10 delivered jobs; adds a pending backlog of `jobs` and waits it out."""
    ann, bob = server.register_user(), server.register_user()
    for n in range(10):
        status, _, _ = server.request("POST", "/api/v1/devices", {"pushService": "apns", "token": f"ok{n:062x}",
                                                                   "locale": "en"}, token=ann["token"])
        assert status == 201
    server.request("POST", "/api/v1/friends/requests", {"userId": ann["id"]}, token=bob["token"])
    db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"), timeout=30)
    while db.execute("SELECT count(*) FROM pushJob WHERE state = 'delivered'").fetchone()[0] < 10:
        time.sleep(0.05)
    cpu_before = cpu_seconds(server.proc.pid)
    started = time.monotonic()
    db.execute(f"""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {jobs // 10})
                   INSERT INTO pushJob (notificationId, deviceId, state, attempts, dueAt, updatedAt)
                   SELECT notificationId, deviceId, 'pending', 0, 0, 0 FROM pushJob, n""")
    db.commit()
    first = None
    while True:
        delivered = db.execute("SELECT count(*) FROM pushJob WHERE state = 'delivered'").fetchone()[0]
        if first is None and delivered > 10:
            first = time.monotonic()
        if delivered >= jobs + 10:
            break
        time.sleep(0.02)
    ended = time.monotonic()
    cpu = cpu_seconds(server.proc.pid) - cpu_before
    db.close()
    # From the first delivery: the dispatcher notices a foreign write within its 1 s idle wait.
    return {"jobs": jobs, "cpu_us_per_job": cpu / jobs * 1e6, "jobs_per_s": jobs / (ended - (first or started))}


def anchor(jobs):
    """The same bookkeeping and files with no server: claim 64, write 64 files, record them."""
    folder = tempfile.mkdtemp(prefix="push-anchor-")
    db = sqlite3.connect(os.path.join(folder, "a.sqlite"))
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("CREATE TABLE job (id INTEGER PRIMARY KEY, state TEXT, body TEXT)")
    body = json.dumps({"aps": {"alert": {"title": "New friend request", "body": "Bob wants to be your friend."}}})
    db.executemany("INSERT INTO job (state, body) VALUES ('pending', ?)", [(body,)] * jobs)
    db.commit()
    cpu_before = time.process_time()
    while True:
        ids = [r[0] for r in db.execute("SELECT id FROM job WHERE state = 'pending' LIMIT 64")]
        if not ids:
            break
        db.execute(f"UPDATE job SET state = 'sending' WHERE id IN ({','.join(map(str, ids))})")
        db.commit()
        for job_id, text in db.execute(f"SELECT id, body FROM job WHERE id IN ({','.join(map(str, ids))})").fetchall():
            temporary = os.path.join(folder, f".{job_id}.tmp")
            with open(temporary, "w") as f:
                f.write(text)
            os.rename(temporary, os.path.join(folder, f"{job_id}.json"))
        db.execute(f"UPDATE job SET state = 'delivered' WHERE id IN ({','.join(map(str, ids))})")
        db.commit()
    cpu = time.process_time() - cpu_before
    db.close()
    shutil.rmtree(folder, ignore_errors=True)
    return {"jobs": jobs, "cpu_us_per_job": cpu / jobs * 1e6}


def main():
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    results = {"anchor (python: sqlite + files)": anchor(jobs)}
    server = Server()
    try:
        results["meetupd file transport"] = drain(server, jobs)
    finally:
        server.stop()
        shutil.rmtree(server.data, ignore_errors=True)
    folder = tempfile.mkdtemp(prefix="push-bench-")
    credentials = Credentials(folder)
    with FakePushService(credentials) as service:
        server = Server("--apns-key-file", credentials.apns_key_file, "--apns-key-id", APNS_KEY_ID, "--apns-team-id", TEAM_ID,
                        "--apns-url", service.url, "--push-ca-file", credentials.cert_file)
        try:
            results["meetupd apns over HTTP/2 (local stand-in)"] = drain(server, jobs)
        finally:
            server.stop()
            shutil.rmtree(server.data, ignore_errors=True)
        connections = len({r["client_port"] for r in service.recorded()})
    shutil.rmtree(folder, ignore_errors=True)
    base = results["anchor (python: sqlite + files)"]["cpu_us_per_job"]
    for name, result in results.items():
        ratio = result["cpu_us_per_job"] / base
        rate = f", {result['jobs_per_s']:.0f} jobs/s wall" if "jobs_per_s" in result else ""
        print(f"{name}: {result['jobs']} jobs, {result['cpu_us_per_job']:.0f} us CPU/job ({ratio:.2f}x anchor){rate}")
    print(f"HTTP/2 connections used by the dispatcher: {connections}")


if __name__ == "__main__":
    main()
