"""permessage-deflate (RFC 7692) differentially: the `websockets` client compresses and inflates
with Python's own zlib, keeping or dropping context across messages exactly as the negotiated
parameters say, so every echo through `meetupd serve --websocket-echo` checks our inflater on the
way in and our compressor on the way out, message after message.

`MEETUPD_DEFLATE_SOAK=N` runs N times more messages per combination (a longer, seeded search
for state that goes wrong only after many messages); the suite runs it at 1.
"""
import itertools
import os
import random

import pytest
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.sync.client import connect as websockets_connect

TIMEOUT = 60  # a safety net against a hung test, not an assertion about speed
SOAK = int(os.environ.get("MEETUPD_DEFLATE_SOAK", "1"))


@pytest.fixture
def echo(meetupd):
    return meetupd("--websocket-echo")


def photograph(width: int = 512, height: int = 512, seed: int = 7) -> bytes:
    """An 8-bit greyscale bitmap like a photograph's: smooth shading with sensor noise, so runs
    of similar bytes repeat at short distances without repeating exactly. With this much noise
    about one 64-byte slice in ten does not shrink under deflate (zlib level 6, full window)."""
    rng = random.Random(seed)
    rows = []
    for y in range(height):
        rows.append(bytes(max(0, min(255, 128 + (x * 97 // width) - (y * 61 // height) + rng.randint(-8, 8)))
                          for x in range(width)))
    return b"".join(rows)


def messages(rng: random.Random, count: int) -> list:
    """A mixed stream: empty, tiny, chat-sized, incompressible and highly repetitive, text and binary."""
    image = photograph()
    out = []
    for _ in range(count):
        kind = rng.randrange(7)
        if kind == 0:
            out.append(b"")
        elif kind == 1:
            out.append(bytes([rng.randrange(256)]))
        elif kind == 2:
            start = rng.randrange(len(image) - 64)
            out.append(image[start:start + 64])
        elif kind == 3:
            out.append(rng.randbytes(rng.choice([64, 300, 8192])))
        elif kind == 4:
            out.append(bytes([rng.randrange(4)]) * rng.choice([64, 8192]))
        elif kind == 5:
            out.append(f"meet at the café {rng.randrange(1000)} 🎉 ".encode() * rng.randrange(1, 40))
        else:
            start = rng.randrange(len(image) - 8192)
            out.append(image[start:start + 8192])
    return out


def round_trip(ws, data: bytes, as_text: bool = False):
    message = data.decode() if as_text else data
    ws.send(message)
    assert ws.recv(timeout=TIMEOUT) == message


def test_a_photograph_cut_into_64_byte_messages_echoes_intact(echo):
    """The reported defect: with context takeover, a message that compression did not shrink was
    sent uncompressed although the compressor had taken it into its window, so later messages
    referred to history the client never saw."""
    image = photograph()
    with websockets_connect(echo.ws, max_size=None, open_timeout=TIMEOUT) as ws:
        assert ws.response.headers["Sec-WebSocket-Extensions"].startswith("permessage-deflate")
        for i in range(1000):
            round_trip(ws, image[i * 64:(i + 1) * 64])


@pytest.mark.parametrize("server_no_context", [False, True])
@pytest.mark.parametrize("client_no_context", [False, True])
def test_every_window_and_context_combination_round_trips(echo, server_no_context, client_no_context):
    rng = random.Random(f"{server_no_context}{client_no_context}")
    for server_bits, client_bits in itertools.product(range(9, 16), range(9, 16)):
        factory = ClientPerMessageDeflateFactory(
            server_no_context_takeover=server_no_context, client_no_context_takeover=client_no_context,
            server_max_window_bits=server_bits, client_max_window_bits=client_bits)
        with websockets_connect(echo.ws, extensions=[factory], compression=None, max_size=None,
                                open_timeout=TIMEOUT) as ws:
            agreed = ws.response.headers["Sec-WebSocket-Extensions"]
            assert f"server_max_window_bits={server_bits}" in agreed or server_bits == 15
            for data in messages(rng, 12 * SOAK):
                round_trip(ws, data)


def test_large_messages_and_text_keep_one_context(echo):
    rng = random.Random(1)
    image = photograph()
    with websockets_connect(echo.ws, max_size=None, open_timeout=TIMEOUT) as ws:
        round_trip(ws, image * 4)                    # 1 MiB of photograph
        round_trip(ws, rng.randbytes(1 << 20))       # 1 MiB that does not compress
        for i in range(300 * SOAK):
            round_trip(ws, f"chat message {i} от Олени 🎉 ".encode() * (i % 9 + 1), as_text=True)
            round_trip(ws, rng.randbytes(rng.randrange(0, 200)))


@pytest.mark.parametrize("client_no_context", [False, True])
def test_messages_compressed_by_python_in_fragments_inflate_intact(echo, client_no_context):
    """The other direction, where our inflater keeps its own stream between frames: `websockets`
    compresses every message it sends (it has no minimum size), and a message sent as an
    iterable goes out in fragments cut from one deflate stream; with context takeover the
    client's window also runs on across messages."""
    rng = random.Random(f"fragments{client_no_context}")
    for client_bits in (9, 12, 15):
        factory = ClientPerMessageDeflateFactory(client_no_context_takeover=client_no_context,
                                                 client_max_window_bits=client_bits)
        with websockets_connect(echo.ws, extensions=[factory], compression=None, max_size=None,
                                open_timeout=TIMEOUT) as ws:
            assert ws.protocol.extensions, "permessage-deflate was not agreed"
            for data in messages(rng, 40 * SOAK):
                cuts = sorted(rng.randrange(len(data) + 1) for _ in range(rng.randrange(1, 4)))
                ws.send([data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])])
                assert ws.recv(timeout=TIMEOUT) == data
