"""Every bound the server puts on what clients send, in one place (docs/serve.md, "Limits"),
and the one JSON reader for their messages and request bodies."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..core.errors import PisaError
from ..core.record import nesting_depth

if TYPE_CHECKING:
    from starlette.requests import Request

MAX_MESSAGE_BYTES = 64 * 1024
"""A request body or a socket message."""
MAX_JSON_DEPTH = 32
"""Nesting of lists and objects in a message: the protocol's messages nest 3 deep."""
MAX_MESSAGES_PER_SECOND = 20
"""Socket messages from one connection; more are dropped with an error."""
MAX_CHATS_PER_WINDOW = 5
CHAT_WINDOW_SECONDS = 10.0
MAX_CHAT_CHARS = 300
MAX_CHAT_LINES = 2000
"""A match's whole chat: more is refused (the table has talked enough for one game)."""
MAX_SPECTATOR_CHAT_LINES = 1000
"""Spectators' share of it: they cannot fill the players' chat."""
CHAT_HISTORY = 50
"""Chat lines a page gets on connecting."""
MAX_CONNECTIONS_PER_MATCH = 64
"""Open sockets (seats and spectators) at one match."""
MAX_QUEUED_BYTES = 4 * 1024 * 1024
"""Messages a page has not read yet: more, and it is cut off (outbox.py), so that a page that
stops reading never holds up its match."""
DEFAULT_MATCHES_PER_ADDRESS = 4
"""Matches waiting or in play that one address created (--matches-per-address): the server's
--max-matches is shared, and no one address may take every place."""
DEFAULT_NEW_PER_MINUTE = 10
"""Matches one address may create in a minute (--new-per-minute): each is kept on disk as a replay."""
NEW_WINDOW_SECONDS = 60.0
"""The minute of --new-per-minute: creation times older than this are forgotten."""
LISTED_ENDED = 50
"""Ended matches the match list shows, the newest first (each stays at its own address)."""
ALONE_SECONDS = 600.0
"""A match waiting for a person with no page open this long gives its place to a new match when
the server is full (--max-matches): otherwise matches nobody returns to keep everyone out for a day."""
DEFAULT_BOT_SECONDS = 5.0
DEFAULT_IDLE_HOURS = 24.0


class BadMessage(PisaError):
    """A message or body that is not JSON."""


class TooDeep(BadMessage):
    """JSON nested deeper than MAX_JSON_DEPTH: a hostile message, which ends a socket."""


def parse_json(data: str | bytes) -> Any:
    """``data`` as JSON, refused (BadMessage, one line) when it is not JSON or nests deeper than
    MAX_JSON_DEPTH: Python's parser recurses, so depth is measured first, without parsing."""
    raw = data.encode() if isinstance(data, str) else data
    depth = nesting_depth(raw)
    if depth > MAX_JSON_DEPTH:
        raise TooDeep(f"the JSON is nested {depth} deep; messages nest at most {MAX_JSON_DEPTH} deep")
    try:
        return json.loads(raw or b"null")
    except (ValueError, RecursionError) as exc:
        raise BadMessage(f"not JSON ({str(exc)[:120]})") from None


class TooLarge(PisaError):
    """A request body over its limit (413)."""


async def read_body_json(request: Request, max_bytes: int = MAX_MESSAGE_BYTES, empty: bytes = b"") -> Any:
    """A request's JSON body, refused before more than ``max_bytes`` are read (TooLarge) and when it
    is not JSON or nests too deep (BadMessage); an empty body reads as ``empty``."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > max_bytes):
        raise TooLarge(f"the request is {declared[:20]} bytes; at most {max_bytes} are accepted")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            raise TooLarge(f"the request is over {max_bytes} bytes, the most accepted")
    return parse_json(bytes(body) or empty)
