"""The dispatchers' throughput: a backlog of N push jobs drained through the `file` transport
and through the local HTTP/2 stand-in of APNs (Tests/Interop/push_fakes.py), and a backlog of
M invitation mails drained through the `smtp` transport into a local aiosmtpd, with the
server's CPU time per job or mail read from /proc/PID/stat (the machine is shared: compare
CPU, not wall time). Two anchors, measured in the same run on the same disk:

- pushes: the least work a job needs done in Python: claim a batch in SQLite, write each
  file, record it delivered;
- mails: the same bookkeeping in Python plus handing each mail (a multipart text + HTML
  message of the same size) to the same aiosmtpd with smtplib, one connection per mail as
  meetupd does; measured in a process of its own, so the SMTP server's work is not in it.

    MEETUPD_BIN=.build/release/meetupd .build/venv/bin/python Benchmarks/dispatch_throughput.py [N [M]]
"""
import json
import multiprocessing
import os
import shutil
import smtplib
import sqlite3
import sys
import tempfile
import time
import uuid
from email.message import EmailMessage

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Interop"))
from conftest import Server  # noqa: E402
from mail_reading import token_in  # noqa: E402
from meetings_support import create_meeting  # noqa: E402
from push_fakes import APNS_KEY_ID, TEAM_ID, Credentials, FakePushService  # noqa: E402
from smtp_support import smtp_server  # noqa: E402

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


def anchor_queue(folder, jobs, body):
    """An anchor's queue: `jobs` pending rows carrying `body` in a SQLite file set up as meetupd's."""
    db = sqlite3.connect(os.path.join(folder, "a.sqlite"))
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("CREATE TABLE job (id INTEGER PRIMARY KEY, state TEXT, body TEXT)")
    db.executemany("INSERT INTO job (state, body) VALUES ('pending', ?)", [(body,)] * jobs)
    db.commit()
    return db


def anchor_claims(db, batch):
    """The anchor's claims: `batch` pending ids at a time, marked `sending` before they are handed out."""
    while True:
        ids = [r[0] for r in db.execute(f"SELECT id FROM job WHERE state = 'pending' LIMIT {batch}")]
        if not ids:
            return
        db.execute(f"UPDATE job SET state = 'sending' WHERE id IN ({','.join(map(str, ids))})")
        db.commit()
        yield ids


def anchor(jobs):
    """The same bookkeeping and files with no server: claim 64, write 64 files, record them."""
    folder = tempfile.mkdtemp(prefix="push-anchor-")
    db = anchor_queue(folder, jobs, json.dumps({"aps": {"alert": {"title": "New friend request", "body": "Bob wants to be your friend."}}}))
    cpu_before = time.process_time()
    for ids in anchor_claims(db, 64):
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


def signed_up(server, mailbox, name):
    """A confirmed, signed-in user whose confirmation came through the SMTP server."""
    address = f"{name.lower()}-{uuid.uuid4().hex[:8]}@example.org"
    body = {"email": address, "password": "correct horse battery", "displayName": name, "locale": "en"}
    assert server.request("POST", "/api/v1/auth/register", body)[0] == 201
    token = token_in(mailbox.wait_for(address)[0], "confirm")
    assert server.request("POST", "/api/v1/auth/confirm", {"token": token})[0] == 200
    status, _, login = server.request("POST", "/api/v1/auth/login", {"email": address, "password": body["password"]})
    assert status == 200, login
    return {"id": login["user"]["id"], "token": login["accessToken"]}


def drain_mails(mails):
    """A server mailing to a local aiosmtpd; one real invitation mail, then `mails` more of the
    same notification queued straight into the outbox, drained until the outbox is empty."""
    controller, mailbox = smtp_server(auth=False)
    server = Server("--mail-transport", "smtp", "--smtp-host", "127.0.0.1", "--smtp-port", str(controller.port),
                    "--public-url", "https://meetup.example.org")
    try:
        ann, bob = signed_up(server, mailbox, "Ann"), signed_up(server, mailbox, "Bob")
        create_meeting(server, ann, title="Hiking", inviteeIds=[bob["id"]])
        mailbox.wait(3)
        db = sqlite3.connect(os.path.join(server.data, "meetupd.sqlite"), timeout=30)
        [(notification,)] = db.execute("SELECT id FROM notification WHERE kind = 'invitation.sent'").fetchall()
        while db.execute("SELECT count(*) FROM mailJob").fetchone()[0]:
            time.sleep(0.05)
        size = len(mailbox.messages[-1].content)
        cpu_before = cpu_seconds(server.proc.pid)
        db.execute(f"""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {mails})
                       INSERT INTO mailJob (notificationId, state, attempts, dueAt, updatedAt)
                       SELECT ?, 'pending', 0, 0, 0 FROM n""", [notification])
        db.commit()
        first = None
        while True:
            left = db.execute("SELECT count(*) FROM mailJob").fetchone()[0]
            if first is None and left < mails:
                first = time.monotonic()
            if left == 0:
                break
            time.sleep(0.02)
        ended = time.monotonic()
        cpu = cpu_seconds(server.proc.pid) - cpu_before
        db.close()
        assert len(mailbox.messages) == mails + 3
        return {"jobs": mails, "cpu_us_per_job": cpu / mails * 1e6, "jobs_per_s": mails / (ended - first), "bytes": size}
    finally:
        server.stop()
        controller.stop()
        shutil.rmtree(server.data, ignore_errors=True)


def mail_anchor_run(port, mails, size, results):
    """In its own process: claim 8 at a time in SQLite, send each over one SMTP connection, delete it."""
    folder = tempfile.mkdtemp(prefix="mail-anchor-")
    db = anchor_queue(folder, mails, "")
    text = "Hello Bob,\n\nAnn invites you to the meeting “Hiking”.\n" + "x" * (size // 4)
    cpu_before = time.process_time()
    for ids in anchor_claims(db, 8):
        for _ in ids:
            message = EmailMessage()
            message["From"], message["To"], message["Subject"] = "no-reply@meetupd.local", "bob@example.org", "Ann invites you: Hiking"
            message.set_content(text, cte="base64")
            message.add_alternative(f"<html lang=\"en\"><body><p>{text}</p></body></html>", subtype="html", cte="base64")
            with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
                client.send_message(message)
        db.execute(f"DELETE FROM job WHERE id IN ({','.join(map(str, ids))})")
        db.commit()
    results.put(time.process_time() - cpu_before)
    db.close()
    shutil.rmtree(folder, ignore_errors=True)


def mail_anchor(mails, size):
    controller, mailbox = smtp_server(auth=False)
    try:
        results = multiprocessing.Queue()
        started = time.monotonic()
        process = multiprocessing.Process(target=mail_anchor_run, args=(controller.port, mails, size, results))
        process.start()
        cpu = results.get(timeout=3600)
        process.join(timeout=60)
        ended = time.monotonic()
        assert len(mailbox.messages) == mails
        return {"jobs": mails, "cpu_us_per_job": cpu / mails * 1e6, "jobs_per_s": mails / (ended - started)}
    finally:
        controller.stop()


def main():
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    mails = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
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
    mailed = drain_mails(mails)
    mail_base = mail_anchor(mails, mailed["bytes"])
    for name, result in (("anchor (python: sqlite + smtplib to aiosmtpd)", mail_base), ("meetupd smtp to aiosmtpd", mailed)):
        ratio = result["cpu_us_per_job"] / mail_base["cpu_us_per_job"]
        print(f"{name}: {result['jobs']} mails, {result['cpu_us_per_job']:.0f} us CPU/mail ({ratio:.2f}x mail anchor), "
              f"{result['jobs_per_s']:.0f} mails/s wall")
    print(f"mail size: {mailed['bytes']} bytes (multipart text + HTML, base64)")


if __name__ == "__main__":
    main()
