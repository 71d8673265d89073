"""Trials: one (cell, seed) each, one game, self-contained and keyed by a stable hash.

A cell is one point of the sweep grid with everything resolved: the game's options with every
default filled in (``game.options(...)``), the number of players and the agent line-up with its
parameters. A trial adds the seed and the seating that follows from it. Its key hashes the
resolved cell and the seed, so the same trial has the same key on any machine and in any run,
and a resumed run recognises the trials it already stored.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ..core.errors import OptionsError
from ..games import get_game
from .agents import AgentChoice, parse_agent
from .spec import ExperimentSpec

KEY_LENGTH = 16
# Options that change what a game writes down, never how it is played: left out of the keys so
# that `--records` (which needs the tower's trajectories) finds the trials a run without it stored.
PRESENTATION_OPTIONS = frozenset({"record_trajectories"})


def stable_hash(payload: Any, length: int = KEY_LENGTH) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()[:length]


@dataclass(frozen=True)
class Cell:
    id: str
    params: dict[str, Any]  # the sweep axes' values for this cell
    game: str
    players: int
    lineup: tuple[AgentChoice, ...]
    rotate_seats: bool
    options: dict[str, Any]  # fully resolved
    agents: tuple[dict[str, Any], ...]  # the line-up with every agent parameter resolved

    def identity(self) -> dict[str, Any]:
        """What makes a cell this cell: everything that decides how its games are played."""
        return {
            "game": self.game, "players": self.players, "rotate_seats": self.rotate_seats,
            "agents": list(self.agents),
            "options": {k: v for k, v in self.options.items() if k not in PRESENTATION_OPTIONS},
        }

    def seating(self, seed: int) -> tuple[AgentChoice, ...]:
        """The agent at each seat for the game with ``seed`` (the line-up cycles over the seats,
        and turns one seat per seed when seats rotate)."""
        full = [self.lineup[i % len(self.lineup)] for i in range(self.players)]
        if not self.rotate_seats:
            return tuple(full)
        shift = seed % self.players
        return tuple(full[(seat - shift) % self.players] for seat in range(self.players))


@dataclass(frozen=True)
class Trial:
    key: str
    cell: Cell
    seed: int

    @property
    def seating(self) -> tuple[AgentChoice, ...]:
        return self.cell.seating(self.seed)

    def to_json(self) -> dict[str, Any]:
        """Everything a worker needs, as plain data (picklable, and the same on every machine)."""
        return {
            "key": self.key, "cell": self.cell.id, "params": self.cell.params, "game": self.cell.game,
            "players": self.cell.players, "seed": self.seed, "options": self.cell.options,
            "seating": [a.to_json() for a in self.seating],
        }


def _apply_axis(key: str, value: Any, players: int | None, lineup: list[AgentChoice], options: dict[str, Any]
                ) -> tuple[int | None, list[AgentChoice]]:
    if key == "players":
        return value, lineup
    if key == "agents":
        return players, [parse_agent(a) for a in value]
    head, _, param = key.partition(".")
    if head == "agent" or (head.startswith("agent") and head[5:].isdigit()):
        if not param:
            raise OptionsError(f"sweep {key!r}: name the parameter, e.g. {head}.iterations")
        targets = range(len(lineup)) if head == "agent" else [int(head[5:]) - 1]
        for index in targets:
            if not 0 <= index < len(lineup):
                raise OptionsError(f"sweep {key!r}: the agent list has {len(lineup)} entries; use agent1 to "
                                   f"agent{len(lineup)}")
            spec = lineup[index]
            lineup[index] = AgentChoice(spec.name, {**spec.params, param: value})
        return players, lineup
    options[key] = value
    return players, lineup


def resolve_cells(spec: ExperimentSpec) -> list[Cell]:
    """Every cell of the spec, validated (options by the game, agents by building them)."""
    game = get_game(spec.game)
    cells = []
    for params in spec.grid():
        players = spec.players
        lineup = spec.lineup()
        options = dict(spec.options)
        for key, value in params.items():
            players, lineup = _apply_axis(key, value, players, lineup, options)
        players = players if players is not None else game.default_players
        game.check_players(players)
        if len(lineup) > players:
            raise OptionsError(f"{len(lineup)} agents for {players} players: give at most one agent per seat")
        resolved = game.options(options)
        lineup = [agent.checked(game) for agent in lineup]
        for seat, agent in enumerate(lineup):
            agent.build(game, seat, resolved)  # refuses bad agents and parameters now, not mid-run
        partial = Cell("", params, spec.game, players, tuple(lineup), spec.rotate_seats,
                       resolved.model_dump(mode="json"), tuple(a.resolved(game) for a in lineup))
        cells.append(Cell(stable_hash(partial.identity(), 12), params, partial.game, players, partial.lineup,
                          spec.rotate_seats, partial.options, partial.agents))
    return cells


def trial_key(cell: Cell, seed: int) -> str:
    return stable_hash({"cell": cell.identity(), "seed": seed})


def expand_trials(spec: ExperimentSpec, cells: list[Cell] | None = None) -> list[Trial]:
    """All trials of the spec, seed by seed over the cells: a run stopped part-way has every cell
    at (nearly) the same number of seeds, so its partial report compares like with like."""
    cells = cells if cells is not None else resolve_cells(spec)
    return [Trial(trial_key(cell, seed), cell, seed) for seed in spec.seed_values() for cell in cells]
