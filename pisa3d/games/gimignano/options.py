"""The options of San Gimignano; defaults are the numbers RULES.md gives."""

from __future__ import annotations

from pydantic import Field

from ...core.options import GameOptions


class GimignanoOptions(GameOptions):
    stones_per_player: int = Field(default=20, ge=1, le=200, description="stones each player starts with")
    towers_per_player: int = Field(
        default=10, ge=1, le=100, description="towers each player has; building the last ends the game"
    )
