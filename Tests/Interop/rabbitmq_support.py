"""A private RabbitMQ node with the STOMP adapter on free loopback ports, for the relay tests.

Every file of the node (config, Mnesia, logs, pid) lives in one temporary directory, and its
Erlang port mapper listens on a port of its own, so nothing machine-wide is touched (the same
recipe as Benchmarks/stomp-compare.sh). `RabbitMQ.start()` raises `Unavailable` with the reason
when the node cannot start, so that tests can skip with it."""
import os
import shutil
import socket
import subprocess
import tempfile
import time

from loopback import free_port

SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"
CTL = "/usr/lib/rabbitmq/bin/rabbitmqctl"
START_TIMEOUT = 120


class Unavailable(Exception):
    """RabbitMQ is not installed or did not come up."""


class RabbitMQ:
    def __init__(self):
        if not os.path.exists(SERVER):
            raise Unavailable(f"{SERVER} is missing (Debian package rabbitmq-server)")
        self.base = tempfile.mkdtemp(prefix="meetupd-rabbitmq-")
        self.stomp_port = free_port()
        self.proc = None
        ports = {"amqp": free_port(), "epmd": free_port(), "dist": free_port()}
        with open(os.path.join(self.base, "rabbitmq.conf"), "w") as f:
            f.write(f"listeners.tcp.default = 127.0.0.1:{ports['amqp']}\n"
                    f"stomp.listeners.tcp.1 = 127.0.0.1:{self.stomp_port}\n"
                    "loopback_users = none\n")
        with open(os.path.join(self.base, "enabled_plugins"), "w") as f:
            f.write("[rabbitmq_stomp].\n")
        self.env = {**os.environ, "HOME": self.base, "RABBITMQ_NODENAME": f"relay{ports['dist']}@localhost",
                    "RABBITMQ_CONFIG_FILE": os.path.join(self.base, "rabbitmq.conf"),
                    "RABBITMQ_ENABLED_PLUGINS_FILE": os.path.join(self.base, "enabled_plugins"),
                    "RABBITMQ_MNESIA_BASE": os.path.join(self.base, "mnesia"),
                    "RABBITMQ_LOG_BASE": os.path.join(self.base, "log"),
                    "RABBITMQ_PID_FILE": os.path.join(self.base, "pid"),
                    "ERL_EPMD_PORT": str(ports["epmd"]), "RABBITMQ_DIST_PORT": str(ports["dist"]),
                    "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "+S 1:1"}

    @property
    def url(self) -> str:
        return f"stomp://guest:guest@127.0.0.1:{self.stomp_port}/"

    def start(self):
        """Starts the node and waits (bounded) until its STOMP port accepts connections."""
        log = open(os.path.join(self.base, "server.log"), "ab")
        self.proc = subprocess.Popen([SERVER], env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise Unavailable("rabbitmq-server exited: " + self._log_tail())
            try:
                socket.create_connection(("127.0.0.1", self.stomp_port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise Unavailable(f"RabbitMQ's STOMP port did not open within {START_TIMEOUT} s: " + self._log_tail())

    def stop(self):
        """Stops the node (its whole process group: the Erlang VM and its port mapper)."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, 15)
            self.proc.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.proc.pid, 9)
            except ProcessLookupError:
                pass
        self.proc = None
        subprocess.run(["epmd", "-kill"], env=self.env, capture_output=True, timeout=10)

    def remove(self):
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    def _log_tail(self) -> str:
        try:
            with open(os.path.join(self.base, "server.log"), errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return "(no log)"
