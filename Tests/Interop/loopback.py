"""Loopback ports for the servers the tests start, and whether a server really holds one."""
import os
import random
import socket


def free_port() -> int:
    """A free loopback port below the kernel's ephemeral range. A port from bind(0) is free
    only until the kernel hands it out again, to another test run's bind(0) or as a client's
    source port, before the server binds it; the kernel never picks these on its own."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral = int(f.read().split()[0])
    for _ in range(1000):
        port = random.randrange(max(1024, ephemeral // 2), max(1025, ephemeral))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port below the ephemeral range")


def holds_listener(pid: int, port: int) -> bool:
    """Whether process `pid` itself listens on loopback `port`: a connection alone may reach
    another test run's server that took the same port while ours failed to bind it."""
    sockets = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            sockets.add(target[len("socket:["):-1])
    with open("/proc/net/tcp") as table:
        next(table)
        for line in table:
            fields = line.split()
            listening = fields[3] == "0A"
            if listening and int(fields[1].split(":")[1], 16) == port and fields[9] in sockets:
                return True
    return False
