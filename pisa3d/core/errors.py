"""User-facing errors: each says what was wrong and what is allowed.

The CLI prints these as one line (no traceback); anything else is a bug.
"""

from __future__ import annotations


class PisaError(Exception):
    """Base class for every error caused by user input (moves, options, files, arguments)."""


class IllegalMoveError(PisaError):
    """A move that is malformed, or not allowed in the current position."""


class NotationError(IllegalMoveError):
    """Text that is no move of the game in any position (it cannot be read): the notation is wrong,
    not the move. An IllegalMoveError too, so code catching bad moves catches it."""


class ViewError(IllegalMoveError):
    """A view handed to a game (to rebuild a state from it) that is not one of this game's, or not
    of the seat asked about."""


class RecordedOutcomeError(IllegalMoveError):
    """A record's move whose recorded outcome the rules cannot take in a rules-only replay (a
    placement without its 'placed' event, an unreadable trajectory)."""


class OptionsError(PisaError):
    """An unknown option, or a value of the wrong type or out of range."""


class UnknownAgentError(OptionsError, KeyError):
    """An agent kind a game does not have. A KeyError too, so ``in`` and ``.get`` on a game's
    agent registry behave as on any mapping."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class HiddenInformationError(OptionsError):
    """An agent that asks for the whole state (``wants_state``) in a game where players do not see
    everything: it would know what its player may not (the order of a stack, another hand)."""


class SeatError(PisaError):
    """A player seat that the game does not have (views and observations of seat -1 or 99)."""


class RecordError(PisaError):
    """A game record that cannot be read: malformed, truncated, wrong version or tampered."""


class GameNotOverError(PisaError):
    """``result()`` or ``returns()`` asked of a game that is still being played."""
