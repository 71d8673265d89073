"""``pisa3d serve``: the browser game server (docs/serve.md)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from ..core.errors import PisaError
from ..serve.limits import (
    DEFAULT_BOT_SECONDS,
    DEFAULT_IDLE_HOURS,
    DEFAULT_MATCHES_PER_ADDRESS,
    DEFAULT_NEW_PER_MINUTE,
    MAX_MESSAGE_BYTES,
)
from ..serve.listen import check_port

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
    max_matches: int = typer.Option(20, min=1, max=10_000,
                                    help="Matches waiting or in play at once; one more is refused, unless a match "
                                         "waiting for a person has had no page open for 10 minutes: that one ends."),
    matches_per_address: int = typer.Option(
        DEFAULT_MATCHES_PER_ADDRESS, min=1, max=10_000,
        help="Matches one address may hold waiting or in play (raise it for a class behind one router)."),
    new_per_minute: int = typer.Option(DEFAULT_NEW_PER_MINUTE, min=1, max=10_000,
                                       help="Matches one address may create in a minute."),
    workers: int = typer.Option(max(1, min(4, (os.cpu_count() or 2) - 1)), min=1, max=64,
                                help="Worker processes for tower verdicts, and as many for bot decisions "
                                     "(default: one fewer than the machine's cores)."),
    bot_delay: float = typer.Option(0.5, min=0, max=10, help="Seconds a bot waits before it moves, "
                                                             "so people can follow the table."),
    bot_seconds: float = typer.Option(DEFAULT_BOT_SECONDS, min=0.1, max=120,
                                      help="Time budget of one bot decision: a bot still thinking then plays "
                                           "its best move so far (or a random one), and says so in the log."),
    idle_hours: float = typer.Option(DEFAULT_IDLE_HOURS, min=0.001, max=24 * 365,
                                     help="A match with no move for this many hours is abandoned."),
    public_url: str | None = typer.Option(None, help="The address people use when the server is behind a "
                                                     "reverse proxy, e.g. https://games.example.org "
                                                     "(docs/serve-internet.md)."),
    allow_host: list[str] = typer.Option([], help="Another host name the server answers to (repeatable); "
                                                  "IP addresses, localhost and --host always are."),
) -> None:
    """Play in the browser: a lobby to start matches of people and bots, a page per seat, open seats
    friends join by an invitation link, spectators, chat, and every match saved as a record (resumed
    after a restart).

    Open the printed address, pick a game and the seats, then hand each person their seat's link
    or leave seats open and share the invitation link.

    Example: pisa3d serve --host 0.0.0.0 --port 8000   (friends on the network open http://<this machine>:8000/)
    """
    try:
        import uvicorn

        from ..serve.app import ServerConfig, create_app
    except ImportError as exc:
        raise PisaError("pisa3d serve needs the serve extra: pip install 'pisa3d[serve]' "
                        f"({exc.name} is missing)") from None
    folder = _data_folder(data)
    check_port(host, port)
    try:
        app = create_app(ServerConfig(folder, max_matches=max_matches, workers=workers, bot_delay=bot_delay,
                                      bot_seconds=bot_seconds, idle_hours=idle_hours,
                                      matches_per_address=matches_per_address, new_per_minute=new_per_minute,
                                      host=host, port=port, public_url=public_url, allow_hosts=list(allow_host)))
    except ValueError as exc:
        raise PisaError(str(exc)) from None
    _say_where(host, port, folder, public_url)
    # Frames over the protocol's limit are refused by uvicorn itself (close code 1009). Ctrl-C
    # gives open sockets 2 s to close; the master then ends every worker, thinking or not.
    uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=MAX_MESSAGE_BYTES + 1024,
                timeout_graceful_shutdown=2, proxy_headers=public_url is not None)


def _data_folder(data: Path | None) -> Path:
    """--data, which must sit in an existing folder; or the per-user default, made as needed."""
    if data is None:
        return default_data_dir()
    if not data.exists() and not data.parent.exists():
        raise PisaError(f"--data {data}: folder {data.parent} does not exist (create it first)")
    return data


def _say_where(host: str, port: int, folder: Path, public_url: str | None) -> None:
    shown = "localhost" if host == LOCAL else host
    typer.echo(f"pisa3d serve: http://{shown}:{port}/  (matches in {folder}; Ctrl-C stops)")
    if public_url:
        typer.echo(f"pisa3d serve: people reach it at {public_url}")
    if host not in (LOCAL, "localhost", "::1"):
        typer.echo(f"pisa3d serve: listening on {host}: anyone on the network can open the lobby and start matches")
