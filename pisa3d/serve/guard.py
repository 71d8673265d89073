"""Who may talk to the server at all: the ``Host`` a request names must be one this server answers
to (so a name that an attacker re-points at this machine, DNS rebinding, is refused), and a request
that changes anything must be JSON from this server's own pages (so a page on another site that a
player opens cannot create or join matches in their name).

Allowed hosts: any IP address written as such (no DNS is involved, so no rebinding), ``localhost``,
the ``--host`` given, the host of ``--public-url``, and every ``--allow-host``. Allowed origins: a
page of an allowed host on this server's port, and the ``--public-url``'s origin. A request with
no ``Origin`` header is not a browser's page (scripts, bots) and is let through."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

CHANGING_METHODS = ("POST", "PUT", "PATCH", "DELETE")


@dataclass(frozen=True)
class Audience:
    """The hosts and origins this server answers to."""

    names: frozenset[str]
    port: int | None
    public_origin: str | None
    """scheme://host[:port] of --public-url, the port left out when it is the scheme's own."""
    proxied: frozenset[str] = frozenset()
    """--allow-host names: pages of theirs may come through a proxy on the web's own ports."""

    @classmethod
    def of(cls, host: str, port: int | None, public_url: str | None = None,
           extra: Iterable[str] = ()) -> Audience:
        names = {"localhost", host.lower().strip("[]"), *(name.lower() for name in extra)}
        public_origin = None
        if public_url:
            parts = urlsplit(public_url)
            try:
                public_origin = _origin(parts.scheme, parts.hostname, parts.port)
            except ValueError:
                public_origin = None
            if public_origin is None or parts.path not in ("", "/") or parts.query or parts.username:
                raise ValueError(f"--public-url must look like https://games.example.org (a scheme and a "
                                 f"host, no path), got {public_url!r}")
            names.add(str(parts.hostname).lower())
        return cls(frozenset(names), port, public_origin, frozenset(name.lower() for name in extra))

    def host_allowed(self, host_header: str) -> bool:
        hostname = urlsplit(f"//{host_header}").hostname
        return hostname is not None and (_is_ip(hostname) or hostname in self.names)

    def origin_allowed(self, origin: str) -> bool:
        parts = urlsplit(origin.lower())
        try:
            port = parts.port
            normal = _origin(parts.scheme, parts.hostname, port)
        except ValueError:
            return False
        if normal is None:
            return False
        if normal == self.public_origin:
            return True
        host = str(parts.hostname)
        if not (_is_ip(host) or host in self.names):
            return False
        port = port or WEB_PORTS[parts.scheme]
        return self.port is None or port == self.port or (host in self.proxied and port in WEB_PORTS.values())


WEB_PORTS = {"http": 80, "https": 443}


def _origin(scheme: str, hostname: str | None, port: int | None) -> str | None:
    """An origin written one way: scheme://host, with :port only when it is not the scheme's own."""
    if scheme not in WEB_PORTS or not hostname:
        return None
    host = f"[{hostname}]" if ":" in hostname else hostname
    return f"{scheme}://{host}" if port in (None, WEB_PORTS[scheme]) else f"{scheme}://{host}:{port}"


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware: refuse a foreign Host (421) on every request and socket, and on requests
    that change anything a foreign Origin (403) or a body that is not JSON (415)."""

    def __init__(self, app: ASGIApp, audience: Audience) -> None:
        self.app, self.audience = app, audience

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self.refusal(scope, headers)
        if refusal is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4403, "reason": refusal[1][:120]})
        else:
            await _answer(send, *refusal)

    def refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if not self.audience.host_allowed(host):
            return 421, (f"this server does not answer to the host {host[:80]!r}; open it by its own address, "
                         "or start it with --public-url or --allow-host naming that host")
        origin = headers.get("origin")
        changes = scope["type"] == "http" and scope["method"] in CHANGING_METHODS
        checked = changes or scope["type"] == "websocket"
        if origin is not None and checked and not self.audience.origin_allowed(origin):
            return 403, f"this server takes requests from its own pages only, not from {origin[:80]!r}"
        if changes:
            media = headers.get("content-type", "").split(";")[0].strip().lower()
            if media != "application/json":
                return 415, (f"requests that change anything are JSON: send Content-Type: application/json "
                             f"(not {media or 'none'!r})")
        return None


async def _answer(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers: list[Any] = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
