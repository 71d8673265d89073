"""``pisa3d serve``: the browser game server (docs/serve.md)."""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

import typer

from ..core.errors import PisaError

LOCAL = "127.0.0.1"


def default_data_dir() -> Path:
    from platformdirs import user_data_path

    return user_data_path("pisa3d") / "matches"


def serve(
    host: str = typer.Option(LOCAL, help="Address to listen on: 127.0.0.1 is this machine only; "
                                         "0.0.0.0 opens the server to the local network."),
    port: int = typer.Option(8000, min=1, max=65535, help="Port to listen on."),
    data: Path | None = typer.Option(None, help="Folder the matches are kept in (default: the per-user data "
                                                "folder, e.g. ~/.local/share/pisa3d/matches)."),
    max_matches: int = typer.Option(20, min=1, help="Matches in play at once; one more is refused."),
    workers: int = typer.Option(max(1, min(4, (os.cpu_count() or 2) - 1)), min=1,
                                help="Worker processes for tower verdicts, and as many for the other games' "
                                     "bots (default: one fewer than the machine's cores)."),
    bot_delay: float = typer.Option(0.5, min=0, max=10, help="Seconds a bot waits before it moves, "
                                                             "so people can follow the table."),
) -> None:
    """Play in the browser: a lobby to start matches of people and bots, a page per seat, spectators,
    and every match saved as a record (resumed after a restart).

    Open the printed address, pick a game and the seats, and hand each person their seat's link.
    """
    try:
        import uvicorn

        from ..serve.app import ServerConfig, create_app
    except ImportError as exc:
        raise PisaError("pisa3d serve needs the serve extra: pip install 'pisa3d[serve]' "
                        f"({exc.name} is missing)") from None
    folder = data if data is not None else default_data_dir()
    _check_port(host, port)
    app = create_app(ServerConfig(folder, max_matches=max_matches, workers=workers, bot_delay=bot_delay))
    shown = "localhost" if host == LOCAL else host
    typer.echo(f"pisa3d serve: http://{shown}:{port}/  (matches in {folder}; Ctrl-C stops)")
    if host not in (LOCAL, "localhost", "::1"):
        typer.echo(f"pisa3d serve: listening on {host}: anyone on the network can open the lobby and start matches")
    # Frames over the protocol's limit are refused by uvicorn itself (close code 1009).
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=64 * 1024 + 1024)


def _check_port(host: str, port: int) -> None:
    """Say plainly why the server cannot listen, before anything starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PisaError(f"port {port} on {host} is in use; choose another with --port") from None
            raise PisaError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
