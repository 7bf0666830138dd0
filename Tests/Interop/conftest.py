"""Starts the real meetupd binary on a free loopback port with a fresh data directory."""
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid

import pytest

import mail_reading
from loopback import free_port, holds_listener


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """pytest keeps the `tmp_path` folders of the last runs under <tmp>/pytest-of-<user>; this
    run keeps them in one folder of its own instead, removed when it ends (before pytest's own
    configure reads the option)."""
    if config.option.basetemp is None:
        config.option.basetemp = config._meetupd_basetemp = tempfile.mkdtemp(prefix="meetupd-pytest-")


def pytest_unconfigure(config):
    if getattr(config, "_meetupd_basetemp", None):
        shutil.rmtree(config._meetupd_basetemp, ignore_errors=True)


class Server:
    def __init__(self, *flags: str, data: str | None = None):
        self.port = free_port()
        # A STOMP/TCP port in the flags is waited for too: it may start listening after the HTTP one.
        self.stomp_port = int(flags[flags.index("--stomp-port") + 1]) if "--stomp-port" in flags else None
        self.data = data or tempfile.mkdtemp(prefix="meetupd-test-")
        binary = os.environ.get("MEETUPD_BIN", ".build/debug/meetupd")
        # Every test signs its users up from loopback: lift the per-client mail limit unless
        # a test sets it (a flag wins over the variable).
        env = {"MEETUPD_MAIL_PER_CLIENT": "100000", **os.environ}
        self.proc = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--data-dir", self.data, *flags],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        try:
            self._wait_until_listening()
        except RuntimeError:
            # The fixture never learns of a server that did not start: its data goes here.
            if data is None:
                shutil.rmtree(self.data, ignore_errors=True)
            raise

    def _wait_until_listening(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("meetupd exited: " + self.proc.stderr.read().decode())
            try:
                ports = [self.port] + ([self.stomp_port] if self.stomp_port else [])
                if all(holds_listener(self.proc.pid, port) for port in ports):
                    return
            except OSError:
                pass  # the process is just exiting: poll() says so next time
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("meetupd did not start listening")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def request(self, method: str, path: str, body=None, token: str | None = None):
        """Sends a JSON request; returns (status, headers, body): JSON bodies parsed, others as text."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                status, headers, raw = resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as err:
            status, headers, raw = err.code, err.headers, err.read()
        if not raw:
            return status, headers, None
        is_json = "json" in (headers.get("Content-Type") or "")
        return status, headers, (json.loads(raw) if is_json else raw.decode())

    def mailed_token(self, email: str, action: str) -> str:
        """The token in the newest mail to `email` whose link is for `action` (confirm, reset)."""
        return mail_reading.mailed_token(self.data, email, action)

    def register_user(self, email: str | None = None, password: str = "correct horse battery",
                      display_name: str = "Test User") -> dict:
        """Registers, confirms (reading the maildrop) and logs in a new user through REST.

        Returns {"id", "email", "password", "token"}; `token` is the bearer access token."""
        email = email or f"user-{uuid.uuid4().hex[:12]}@example.org"
        status, _, body = self.request("POST", "/api/v1/auth/register",
                                       {"email": email, "password": password, "displayName": display_name})
        assert status == 201, body
        status, _, body = self.request("POST", "/api/v1/auth/confirm",
                                       {"token": self.mailed_token(email, "confirm")})
        assert status == 200, body
        status, _, login = self.request("POST", "/api/v1/auth/login", {"email": email, "password": password})
        assert status == 200, login
        return {"id": login["user"]["id"], "email": email, "password": password, "token": login["accessToken"]}

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
def meetupd():
    """Factory: `meetupd("--websocket-echo")` starts a server with those flags."""
    started = []

    def start(*flags: str, data: str | None = None) -> Server:
        """`data` reuses a data directory: a restart of an earlier server."""
        server = Server(*flags, data=data)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    # Each test's data directories go with it, so that a run leaves nothing in the temp folder.
    for data in {server.data for server in started}:
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def rabbitmq():
    """A private RabbitMQ with the STOMP adapter on free loopback ports, for every relay test;
    the tests that need it skip, saying why, only when it cannot start."""
    from rabbitmq_support import RabbitMQ, Unavailable

    try:
        broker = RabbitMQ()
        broker.start()
    except Unavailable as reason:
        pytest.skip(f"RabbitMQ cannot start here: {reason}")
    yield broker
    broker.remove()
