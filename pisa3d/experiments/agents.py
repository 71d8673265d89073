"""The agent at a seat of an experiment: a name and parameters, written as ``"cautious"``,
``"mcts:iterations=200,exploration=0.7"`` or the TOML table ``{name = "mcts", iterations = 200}``.

The game's agent registry (``pisa3d.core.agent_specs``) declares each agent's parameters, checks
and converts them, and builds the agent; this module only reads the spec forms and keeps the
choice as plain, typed data so a trial can be hashed and sent to a worker.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.agent_specs import agent_registry, parse_agent_spec
from ..core.agents import Agent
from ..core.errors import OptionsError
from ..core.game import Game
from ..core.options import GameOptions


@dataclass(frozen=True)
class AgentChoice:
    """An agent kind by name with the parameters the spec gave (typed: 200, not "200")."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **dict(sorted(self.params.items()))}

    @property
    def label(self) -> str:
        """Short text for tables: ``mcts:iterations=200``."""
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(self.params.items()))

    def resolved(self, game: Game) -> dict[str, Any]:
        """Every parameter of the agent with its value, defaults filled in (what decides its play)."""
        return {"name": self.name, **self._kind(game).resolve(self.params)}

    def build(self, game: Game, seat: int, options: GameOptions) -> Agent:
        return self._kind(game)(seat, options, **self.params)

    def checked(self, game: Game) -> AgentChoice:
        """The same choice with its parameters checked and converted by the agent's declaration."""
        kind = self._kind(game)
        resolved = kind.resolve(self.params)
        return AgentChoice(self.name, {k: resolved[k] for k in self.params})

    def _kind(self, game: Game) -> Any:
        agents = agent_registry(game.agents)
        if self.name not in agents:
            raise OptionsError(f"unknown agent {self.name!r} for {game.id}; choose from {', '.join(agents)}")
        return agents[self.name]


def parse_agent(value: Any) -> AgentChoice:
    """An AgentChoice from ``"name"``, ``"name:key=value,..."`` or a table with a ``name`` key."""
    if isinstance(value, AgentChoice):
        return value
    if isinstance(value, str):
        name, params = parse_agent_spec(value)
        return AgentChoice(name, {k: _typed(v) for k, v in params.items()})
    if isinstance(value, Mapping) and isinstance(value.get("name"), str):
        return AgentChoice(value["name"], {k: v for k, v in value.items() if k != "name"})
    raise OptionsError(f"agent {value!r}: give a name, 'name:key=value' or a table with a 'name' key")


def _typed(text: str) -> Any:
    """``"200"`` -> 200, ``"0.5"`` -> 0.5, ``"true"`` -> True; anything else stays text (the
    agent's declaration converts or refuses it)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
