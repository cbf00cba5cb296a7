"""The client's address behind proxies: ``X-Forwarded-For`` believed only from trusted ones.

The lobby's rate limits count per client address (``scope["client"]``). Behind a load
balancer or a reverse proxy that address is the proxy's, and the proxy names the client in
``X-Forwarded-For``; but anyone can send that header, so it is believed only when the
connection comes from a proxy named in ``STUD_LOBBY_TRUSTED_PROXIES`` (addresses or networks;
none by default). The ASGI server must not rewrite the address itself (``stud lobby`` runs
uvicorn with ``proxy_headers=False``: uvicorn would trust any connection from 127.0.0.1).

The header lists the hops left to right, each proxy appending the address it was reached
from. Read right to left, the trusted proxies' own entries are skipped; the first address
that is not a trusted proxy is the client. Anything left of it was written by the client and
is ignored. A hop that is not an IP address ends the reading there.

>>> hop = client_address(("10.0.0.5", 0), [b"203.0.113.7, 198.51.100.2"], trusted("10.0.0.0/8"))
>>> hop
'198.51.100.2'
>>> client_address(("10.0.0.5", 0), [b"1.2.3.4, 198.51.100.2, 10.0.0.9"], trusted("10.0.0.0/8"))
'198.51.100.2'
>>> client_address(("192.0.2.1", 0), [b"203.0.113.7"], trusted("10.0.0.0/8")) is None
True
>>> client_address(("10.0.0.5", 0), [b"junk, 10.0.0.9"], trusted("10.0.0.0/8"))
'10.0.0.9'
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from typing import Any

from litestar.middleware.base import DefineMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

__all__ = ["client_address", "forwarded_for_middleware", "trusted"]

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted(*networks: str) -> Callable[[str], bool]:
    """Whether an address (text) lies in one of ``networks``."""
    parsed = [ipaddress.ip_network(n, strict=False) for n in networks]

    def check(address: str) -> bool:
        ip = _ip(address)
        return ip is not None and any(ip in network for network in parsed)

    return check


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def client_address(
    peer: tuple[str, int] | None, headers: Iterable[bytes], is_trusted: Callable[[str], bool]
) -> str | None:
    """The client's address from the ``X-Forwarded-For`` values ``headers`` of a connection
    from ``peer``; None: keep the peer's (not a trusted proxy, or no usable header)."""
    if peer is None or not is_trusted(peer[0]):
        return None
    hops = [h for value in headers for h in value.decode("latin-1").split(",") if h.strip()]
    chosen = None
    for hop in reversed(hops):
        ip = _ip(hop)
        if ip is None:
            break
        chosen = str(ip)
        if not is_trusted(chosen):
            break
    return chosen


class _ForwardedFor:
    def __init__(self, app: ASGIApp, is_trusted: Callable[[str], bool]) -> None:
        self.app = app
        self.is_trusted = is_trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = [v for k, v in scope.get("headers", ()) if k == b"x-forwarded-for"]
            if headers:
                peer: Any = scope.get("client")
                address = client_address(peer, headers, self.is_trusted)
                if address is not None:
                    scope["client"] = (address, 0)
        await self.app(scope, receive, send)


def forwarded_for_middleware(networks: tuple[str, ...]) -> DefineMiddleware | None:
    """The middleware for ``STUD_LOBBY_TRUSTED_PROXIES`` (None when no proxy is trusted)."""
    if not networks:
        return None
    return DefineMiddleware(_ForwardedFor, is_trusted=trusted(*networks))
