"""What the conformance suite needs to know of each game, and random play to reach positions.

A new game needs nothing here: it is picked up from the registry with its default players and
options and played to the end. Only games whose moves are costly (the tower runs physics for every
placement) list a move budget, so the default suite stays fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from pisa3d.core import Game, State
from pisa3d.games import game_ids, get_game

MOVE_BUDGET: dict[str, int] = {"tower": 8}
"""Most moves a test plays in a game (None: to the end). Each tower placement is a physics run."""


@dataclass(frozen=True)
class Case:
    game: Game
    players: int
    options: Any

    @property
    def budget(self) -> int | None:
        return MOVE_BUDGET.get(self.game.id)

    def start(self, seed: int) -> State:
        state, _ = self.game.new_game(self.players, seed, self.options)
        return state

    def id_of(self, move: Any) -> int:
        return self.game.action_id(move, self.players, self.options)

    def move_of(self, action: int) -> Any:
        return self.game.move_from_action(action, self.players, self.options)


def cases() -> list[Case]:
    out = []
    for game_id in game_ids():
        game = get_game(game_id)
        out.append(Case(game, game.default_players, game.options()))
    return out


def case_ids() -> list[str]:
    return list(game_ids())


def walk(case: Case, seed: int, budget: int | None = None) -> Iterator[State]:
    """Every state of one random game (uniform over the legal moves), the first one included."""
    state = case.start(seed)
    rng = np.random.default_rng(seed)
    limit = budget if budget is not None else case.budget
    played = 0
    yield state
    while not state.is_over and (limit is None or played < limit):
        moves = state.legal_moves()
        state.apply(moves[int(rng.integers(len(moves)))])
        played += 1
        yield state


def play_out(case: Case, seed: int, moves: int) -> State:
    """The state after ``moves`` random moves (fewer if the game ends first)."""
    last = None
    for last in walk(case, seed, moves):  # noqa: B007
        pass
    assert last is not None
    return last


def fingerprint(state: State) -> str:
    """Everything observable about a state: each seat's view, the mover, the legal moves, the result."""
    parts: dict[str, Any] = {
        "views": [state.view(p) for p in range(state.num_players)],
        "current": state.current_player,
        "legal": [str(m) for m in state.legal_moves()],
        "result": state.result().to_json() if state.is_over else None,
    }
    return json.dumps(parts, sort_keys=True)


def mutate_everything(obj: Any) -> None:
    """Change every list and dict inside ``obj`` in place (to catch views sharing the state's data)."""
    if isinstance(obj, dict):
        for value in list(obj.values()):
            mutate_everything(value)
        obj["__mutated__"] = True
    elif isinstance(obj, list):
        for value in obj:
            mutate_everything(value)
        obj.append("__mutated__")


Swap = Callable[[State, int, np.random.Generator], "set[int] | None"]
"""Changes, in place, something ``player`` cannot see; returns the seats who can see the change
(None when there is nothing to change)."""
