"""The ports ``stud run``'s parts listen on: each checked free before anything starts, named
with the flag that moves it when it is not (:func:`check_ports`)."""

from __future__ import annotations

import contextlib
import errno
import socket
from typing import Any
from urllib.parse import urlsplit

from lobby_api.cli.failure import Failed

__all__ = ["check_ports", "port_of", "port_taken", "room_ports"]


def port_of(address: object) -> int | None:
    """The port of a ``host:port`` or URL address a part reported."""
    text = str(address)
    with contextlib.suppress(ValueError):
        return urlsplit(text if "//" in text else f"//{text}").port
    tail = text.rpartition(":")[2].split("/")[0]  # an unbracketed IPv6 host:port
    return int(tail) if tail.isdigit() else None


def port_taken(host: str, port: int) -> bool:
    """True when something already listens on ``host:port`` (0 is never taken).

    The probe sets SO_REUSEADDR as the servers do, so a port left in TIME_WAIT by a room
    that just stopped does not count as taken.
    """
    from engine_server.settings import bind_host

    if port == 0:
        return False
    # "[::1]" binds as "::1" (as the parts bind it): bracketed, the probe would fail to bind
    # for another reason and call a taken port free.
    bare = bind_host(host)
    with socket.socket(socket.AF_INET6 if ":" in bare else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((bare, port))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def room_ports(room: dict[str, Any]) -> set[int]:
    """The ports a room file names (``host:port`` and URL addresses alike)."""
    found = (port_of(value) for value in room.values() if isinstance(value, str) and ":" in value)
    return {port for port in found if port}


def check_ports(ports: list[tuple[str, str, int, str]], left: dict[str, Any] | None = None) -> None:
    """Refuse, naming the port and its flag, when one is taken or two are the same; ``ports``
    holds (what, host, port, flag) each.

    ``left`` is a room file whose ``stud run`` is gone: a taken port it names is most likely
    held by that room's parts, still stopping (they got a SIGTERM when it died).
    """
    from engine_server.settings import host_port

    seen: dict[int, str] = {}
    for name, host, port, flag in ports:
        if port < 0 or port > 65535:
            raise Failed(f"{flag}: expected a port number 0-65535, got {port}", code=2)
        if port and port in seen:
            raise Failed(f"{flag}: port {port} is also the {seen[port]}", code=2)
        seen[port] = name
        if port_taken(host, port):
            if left is not None and port in room_ports(left):
                raise Failed(
                    f"the {name} {host_port(host, port)} is taken, most likely by the parts of the "
                    f"stud run that was killed (pid {left['pid']}, var/room.json), which "
                    f"stop by themselves once their hands end (within a minute): wait, or "
                    f"choose another port with {flag}"
                )
            raise Failed(
                f"the {name} {host_port(host, port)} is taken (another stud run?): "
                f"stop what uses it or choose another port with {flag}"
            )
