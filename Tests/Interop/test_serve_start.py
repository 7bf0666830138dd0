"""A server that cannot start says why and exits: a `--stomp-port` already taken used to leave
the process running, half stopped, for ever (its cancelled workers waited for wake-ups that
never came)."""
import os
import socket
import subprocess


def test_a_taken_stomp_port_ends_the_server_with_the_reason(tmp_path):
    binary = os.environ.get("MEETUPD_BIN", ".build/debug/meetupd")
    with socket.socket() as taken, socket.socket() as probe:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        server = subprocess.run(
            [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--stomp-port", str(taken.getsockname()[1]),
             "--data-dir", str(tmp_path / "data")],
            capture_output=True, text=True, timeout=60)
    assert server.returncode != 0
    assert "Address already in use" in server.stdout + server.stderr
