"""What the relay tests share: nodes on one data directory relayed through the session's
RabbitMQ (the `rabbitmq` fixture in conftest.py), a room across them, and bounded waits."""
import time

from meetings_support import create_meeting

# Seconds a relayed message or a reconnection may take on a loaded machine; never a timing assertion.
RELAY_WAIT = 60


def nodes(meetupd, rabbitmq, *extra, count=2):
    """`count` nodes on one data directory, relayed through `rabbitmq`, with `extra` flags."""
    flags = ("--relay", rabbitmq.url, "--chat-burst", "1000", "--chat-rate", "1000", *extra)
    first = meetupd(*flags)
    return [first] + [meetupd(*flags, data=first.data) for _ in range(count - 1)]


def room(node, members):
    """A meeting organized by the first member, joined by the others; its id."""
    meeting = create_meeting(node, members[0])["id"]
    for user in members[1:]:
        assert node.request("POST", f"/api/v1/meetings/{meeting}/join", token=user["token"])[0] == 200
    return meeting


def wait_until(predicate, what, timeout=RELAY_WAIT):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
