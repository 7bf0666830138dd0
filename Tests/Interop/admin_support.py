"""Runs `meetupd admin ...` as its own process against a server's data directory."""
import json
import os
import subprocess
import time

BINARY = os.path.abspath(os.environ.get("MEETUPD_BIN", ".build/debug/meetupd"))


def admin(server, *args) -> subprocess.CompletedProcess:
    return subprocess.run([BINARY, "admin", *args, "--data-dir", server.data],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "USER": "tester"})


def admin_json(server, *args):
    """The parsed --json output of a command that must succeed."""
    result = admin(server, *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def refused(server, *args, code: int = 1) -> str:
    """The one-line reason of a command that must fail with `code`."""
    result = admin(server, *args)
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    return result.stderr.strip()


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()
