"""A tiny game written on the framework, so core tests depend on no real game.

"Race": players take turns adding 1 or 2 to a shared counter; whoever reaches the target wins.
A seeded random target (10-12) exercises the game's own RNG stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from pisa3d.core import Event, Game, GameOptions, IllegalMoveError, RandomAgent, Result, State, make_rng
from pisa3d.core.contract import GameContract


@dataclass(frozen=True)
class Add:
    amount: int

    def __str__(self) -> str:
        return f"+{self.amount}"


class RaceOptions(GameOptions):
    max_step: int = Field(default=2, ge=1, le=5)


class RaceState(State):
    def __init__(self, num_players: int, target: int, max_step: int) -> None:
        self.num_players = num_players
        self.target = target
        self.max_step = max_step
        self.counter = 0
        self.turn = 0
        self.winner: int | None = None

    @property
    def current_player(self) -> int | None:
        return None if self.is_over else self.turn % self.num_players

    def legal_moves(self) -> list[Add]:
        return [] if self.is_over else [Add(k) for k in range(1, self.max_step + 1)]

    def apply(self, move: Any) -> list[Event]:
        if move not in self.legal_moves():
            raise IllegalMoveError(f"{move} is not allowed; allowed: {', '.join(map(str, self.legal_moves()))}")
        player = self.current_player
        self.counter = min(self.target, self.counter + move.amount)
        self.turn += 1
        events = [Event("added", {"player": player, "counter": self.counter})]
        if self.counter >= self.target:
            self.winner = player
            events.append(Event("won", {"player": player}))
        return events

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def result(self) -> Result:
        assert self.winner is not None
        scores = tuple(1.0 if p == self.winner else 0.0 for p in range(self.num_players))
        return Result(scores, (self.winner,), {"target": self.target})

    def view(self, player: int) -> dict[str, Any]:
        return {"counter": self.counter, "target": self.target}


class RaceGame(Game):
    id = "race"
    title = "Race to the target"
    min_players = 2
    max_players = 4
    default_players = 2
    options_model = RaceOptions
    contract = GameContract(chance="sampled", information="perfect", default_agent="random")

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        assert isinstance(options, RaceOptions)
        target = int(make_rng(seed, 0).integers(10, 13))
        return RaceState(num_players, target, options.max_step), [Event("target", {"target": target})]

    def parse_move(self, text: str) -> Add:
        if not (text.startswith("+") and text[1:].isdigit()):
            raise IllegalMoveError(f"move {text!r} is not of the form +N")
        return Add(int(text[1:]))

    def num_actions(self, num_players: int, options: GameOptions) -> int:
        assert isinstance(options, RaceOptions)
        return options.max_step

    def action_id(self, move: Any, num_players: int, options: GameOptions) -> int:
        return move.amount - 1

    def move_from_action(self, action: int, num_players: int, options: GameOptions) -> Add:
        return Add(action + 1)

    @property
    def agents(self) -> Mapping[str, Any]:
        return {"random": lambda seat, options: RandomAgent()}
