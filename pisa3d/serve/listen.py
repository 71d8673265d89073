"""Whether a server can listen where it is told: said plainly before anything starts (the game
server and the study server alike), not as a traceback from inside uvicorn."""

from __future__ import annotations

import errno
import socket

from ..core.errors import PisaError


def check_port(host: str, port: int) -> None:
    """PisaError naming the port and what to do when ``host:port`` cannot be bound now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PisaError(f"port {port} on {host} is in use; choose another with --port") from None
            raise PisaError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
