"""The phases of a round, named once: the state, its views, the observation tensor, the
terminal and the narration all read these (a view carries the name as ``view["phase"]``)."""

from __future__ import annotations

VOTE, DISCARD, PLAY, OVER = "vote", "discard", "play", "over"
PHASES: tuple[str, ...] = (VOTE, DISCARD, PLAY, OVER)
"""In the order of a round (the observation's one-hot ``phase`` field follows it)."""
