"""Resident memory per idle WebSocket session: opens N upgraded connections to
`meetupd serve --websocket-echo`, exchanges one message on each, then reads the server's
VmRSS before and after.

    python Benchmarks/websocket_idle_memory.py [N] [--deflate]

With --deflate each session offers permessage-deflate as browsers do and its message is a
compressed 300-byte chat message, so that the server inflates one and compresses its echo:
what stays per session afterwards is what an idle compressed session costs. Then every
session sends its message again at once, and the server's highest VmRSS while it answers
them all is the active figure.

Uses raw sockets so the client side stays cheap; the server binary is $MEETUPD_BIN or
.build/release/meetupd."""
import base64
import os
import socket
import subprocess
import sys
import tempfile
import time
import zlib


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chat_frame(deflate: bool) -> bytes:
    """One masked client text frame: a short greeting, or a compressed 300-byte chat message."""
    payload = b"hello from an idle session"
    first = 0x81
    if deflate:
        text = (b'{"text":"see you at the station at seven","clientMessageId":"%d"} ' % os.getpid()) * 5
        compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
        payload = (compressor.compress(text) + compressor.flush(zlib.Z_SYNC_FLUSH))[:-4]
        first |= 0x40  # RSV1: compressed
    assert len(payload) < 126
    mask = os.urandom(4)
    return bytes([first, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_echo(sock: socket.socket):
    header = b""
    while len(header) < 2:
        header += sock.recv(2 - len(header))
    length = header[1] & 0x7F
    if length == 126:
        length = int.from_bytes(sock.recv(2), "big")
    echoed = b""
    while len(echoed) < length:
        echoed += sock.recv(length - len(echoed))


def open_session(port: int, deflate: bool) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    extension = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" if deflate else ""
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extension}\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        response += sock.recv(4096)
    assert response.startswith(b"HTTP/1.1 101"), response
    sock.sendall(chat_frame(deflate))
    read_echo(sock)
    return sock


def main():
    count = int(next((a for a in sys.argv[1:] if a.isdigit()), "5000"))
    deflate = "--deflate" in sys.argv
    binary = os.environ.get("MEETUPD_BIN", ".build/release/meetupd")
    port = free_port()
    data = tempfile.mkdtemp(prefix="meetupd-bench-")
    server = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--data-dir", data, "--websocket-echo", "--log-level", "error"])
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.05)
        warm = [open_session(port, deflate) for _ in range(100)]  # let allocators and threads settle
        before = rss_kib(server.pid)
        sessions = [open_session(port, deflate) for _ in range(count)]
        time.sleep(1)
        after = rss_kib(server.pid)
        per_session = (after - before) / count
        print(f"{count} idle sessions{' with permessage-deflate' if deflate else ''}: "
              f"RSS {before} KiB -> {after} KiB, {per_session:.1f} KiB per session")
        # Active: every session's message in flight at once, the peak sampled while echoes come.
        for sock in sessions:
            sock.sendall(chat_frame(deflate))
        peak = rss_kib(server.pid)
        for index, sock in enumerate(sessions):
            read_echo(sock)
            if index % 100 == 0:
                peak = max(peak, rss_kib(server.pid))
        print(f"  all {count} active at once: peak RSS {peak} KiB, {(peak - before) / count:.1f} KiB per session")
        for sock in sessions + warm:
            sock.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
