"""The `meetupd` command line: help, migrate, flags and MEETUPD_* variables, signals."""
import os
import signal
import socket
import subprocess
import tempfile
import time

import pytest

from loopback import free_port

BINARY = os.path.abspath(os.environ.get("MEETUPD_BIN", ".build/debug/meetupd"))


def run(*args, env=None, cwd=None):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})}, cwd=cwd)


def wait_listening(proc, port):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("not listening")


def test_help_lists_the_commands():
    result = run("--help")
    assert result.returncode == 0
    assert "serve" in result.stdout and "migrate" in result.stdout


def test_migrate_creates_the_database_in_the_default_directory():
    with tempfile.TemporaryDirectory() as cwd:
        first = run("migrate", cwd=cwd)
        assert first.returncode == 0, first.stderr
        assert os.path.isfile(os.path.join(cwd, "meetupd-data", "meetupd.sqlite"))
        again = run("migrate", cwd=cwd)
        assert again.returncode == 0 and "up to date" in again.stdout


def test_data_dir_from_the_environment():
    with tempfile.TemporaryDirectory() as data:
        result = run("migrate", env={"MEETUPD_DATA_DIR": data})
        assert result.returncode == 0, result.stderr
        assert os.path.isfile(os.path.join(data, "meetupd.sqlite"))


@pytest.mark.parametrize("args,env,message", [
    (["serve"], {"MEETUPD_PORT": "eighty"}, "MEETUPD_PORT"),
    (["serve", "--port", "70000"], {}, "port"),
    (["serve", "--log-level", "loud"], {}, "log level"),
    (["serve", "--no-such-flag"], {}, "no-such-flag"),
])
def test_bad_configuration_is_a_clear_error(args, env, message):
    with tempfile.TemporaryDirectory() as data:
        result = run(*args, "--data-dir", data, env=env)
        assert result.returncode != 0
        assert message in result.stderr


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_serve_takes_the_port_from_the_environment_and_stops_on_signals(stop):
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        proc = subprocess.Popen([BINARY, "serve"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "MEETUPD_PORT": str(port), "MEETUPD_DATA_DIR": data})
        try:
            wait_listening(proc, port)
            proc.send_signal(stop)
            assert proc.wait(timeout=30) == 0
            assert "listening on 127.0.0.1:%d" % port in proc.stderr.read()
        finally:
            if proc.poll() is None:
                proc.kill()


def test_a_flag_wins_over_its_variable():
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        proc = subprocess.Popen([BINARY, "serve", "--port", str(port), "--data-dir", data],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env={**os.environ, "MEETUPD_PORT": "not-a-port"})
        try:
            wait_listening(proc, port)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
