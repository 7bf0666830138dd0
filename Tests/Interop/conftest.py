"""Starts the real meetupd binary on a free loopback port with a fresh data directory."""
import os
import socket
import subprocess
import tempfile
import time

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, *flags: str):
        self.port = _free_port()
        self.data = tempfile.mkdtemp(prefix="meetupd-test-")
        binary = os.environ.get("MEETUPD_BIN", ".build/debug/meetupd")
        self.proc = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--data-dir", self.data, *flags],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("meetupd exited: " + self.proc.stderr.read().decode())
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("meetupd did not start listening")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

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

    def start(*flags: str) -> Server:
        server = Server(*flags)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
