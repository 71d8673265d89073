"""User-facing errors: each says what was wrong and what is allowed.

The CLI prints these as one line (no traceback); anything else is a bug.
"""

from __future__ import annotations


class PisaError(Exception):
    """Base class for every error caused by user input (moves, options, files, arguments)."""


class IllegalMoveError(PisaError):
    """A move that is malformed, or not allowed in the current position."""


class OptionsError(PisaError):
    """An unknown option, or a value of the wrong type or out of range."""


class RecordError(PisaError):
    """A game record that cannot be read: malformed, truncated, wrong version or tampered."""


class GameNotOverError(PisaError):
    """``result()`` or ``returns()`` asked of a game that is still being played."""
