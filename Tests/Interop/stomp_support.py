"""Helpers shared by the STOMP interop tests: a frame recorder for stomp.py connections and a
stomp.py session over the server's WebSocket endpoint."""
import threading
import time

import stomp

WAIT = 10  # seconds an expected frame may take on a loaded machine; never a timing assertion


class Recorder(stomp.ConnectionListener):
    """Collects every frame the server sends; tests wait for the ones they expect."""

    def __init__(self):
        self.frames = []
        self.cond = threading.Condition()

    def _add(self, kind, frame):
        with self.cond:
            self.frames.append((kind, frame))
            self.cond.notify_all()

    def on_connected(self, frame):
        self._add("CONNECTED", frame)

    def on_message(self, frame):
        self._add("MESSAGE", frame)

    def on_receipt(self, frame):
        self._add("RECEIPT", frame)

    def on_error(self, frame):
        self._add("ERROR", frame)

    def on_disconnected(self):
        self._add("DISCONNECTED", None)

    def wait_for(self, kind, predicate=lambda f: True):
        """The first frame of `kind` (or of any kind in a tuple of them) that `predicate` accepts."""
        kinds = (kind,) if isinstance(kind, str) else kind
        deadline = time.monotonic() + WAIT
        with self.cond:
            while True:
                for k, f in self.frames:
                    if k in kinds and predicate(f):
                        return f
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"no {kind} frame; got {[k for k, _ in self.frames]}"
                self.cond.wait(remaining)

    def messages(self):
        with self.cond:
            return [f for k, f in self.frames if k == "MESSAGE"]

    def wait_messages(self, count):
        deadline = time.monotonic() + WAIT
        with self.cond:
            while len([1 for k, _ in self.frames if k == "MESSAGE"]) < count:
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"expected {count} messages, got {self.messages()}"
                self.cond.wait(remaining)
            return [f for k, f in self.frames if k == "MESSAGE"]


def connect_ws(server, token: str):
    """A stomp.py 1.2 session over `/ws`, signed in with `token`, and its recorder."""
    conn = stomp.WSStompConnection([("127.0.0.1", server.port)], ws_path="/ws",
                                   header=["Sec-WebSocket-Protocol: v12.stomp"], heartbeats=(0, 0))
    recorder = Recorder()
    conn.set_listener("recorder", recorder)
    conn.connect(passcode=token, wait=True)
    return conn, recorder


def subscribe_for_answer(conn, recorder, destination):
    """Subscribes asking for a receipt; returns the answer: the RECEIPT, or the refusal that
    arrives on `/user/queue/errors` (a MESSAGE carrying the same `receipt-id`)."""
    conn.subscribe(destination, id=destination, headers={"receipt": destination})
    return recorder.wait_for(("RECEIPT", "MESSAGE"), lambda f: f.headers.get("receipt-id") == destination)
