"""Agent specs with parameters: ``"cautious"``, ``"mcts:iterations=200,exploration=0.7"`` or the
TOML table ``{name = "mcts", iterations = 200}``, turned into agents for a game.

A parameter is one of the agent's constructor arguments that the built agent keeps under the
same name (``MCTSAgent.iterations``, ``CautiousAgent.hand_samples``). The games' factories take
only (seat, options) today, so the agent is built by its factory, the name and type of each
parameter checked, and the agent built again by its own constructor with the parameters
changed; a factory that takes keyword arguments gets them directly instead.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.agents import Agent
from ..core.errors import OptionsError
from ..core.game import Game
from ..core.options import GameOptions

_PLAIN = (bool, int, float, str)
# Constructor arguments that are the agent's wiring, not a knob a study turns.
_WIRING = {"self", "game", "seat", "tileset", "rollout_policy", "evaluate"}


@dataclass(frozen=True)
class AgentSpec:
    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, **dict(sorted(self.params.items()))}

    @property
    def label(self) -> str:
        """Short text for tables and file names: ``mcts:iterations=200``."""
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(self.params.items()))


def parse_agent(value: Any) -> AgentSpec:
    """An AgentSpec from a string (``name`` or ``name:key=value,...``) or a table with ``name``."""
    if isinstance(value, AgentSpec):
        return value
    if isinstance(value, str):
        name, _, rest = value.partition(":")
        params: dict[str, Any] = {}
        for pair in filter(None, (p.strip() for p in rest.split(","))):
            key, sep, raw = pair.partition("=")
            if not sep or not key.strip():
                raise OptionsError(f"agent {value!r}: parameters look like name:key=value,key=value")
            try:
                params[key.strip()] = json.loads(raw)
            except json.JSONDecodeError:
                params[key.strip()] = raw.strip()
        return AgentSpec(name.strip(), params)
    if isinstance(value, Mapping) and isinstance(value.get("name"), str):
        return AgentSpec(value["name"], {k: v for k, v in value.items() if k != "name"})
    raise OptionsError(f"agent {value!r}: give a name, 'name:key=value' or a table with a 'name' key")


def agent_parameters(agent: object) -> dict[str, Any]:
    """The parameters an agent takes, with their current values."""
    signature = inspect.signature(type(agent).__init__)
    out = {}
    for name in signature.parameters:
        if name in _WIRING or not hasattr(agent, name):
            continue
        value = getattr(agent, name)
        if value is None or isinstance(value, _PLAIN):
            out[name] = value
    return out


def _factory_takes_params(factory: Any) -> bool:
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD for p in params) or len(params) > 2


def _fits(value: Any, current: Any) -> bool:
    if current is None:
        return value is None or (isinstance(value, int | float) and not isinstance(value, bool))
    if isinstance(current, bool) or isinstance(value, bool):
        return type(value) is type(current)
    if isinstance(current, float):
        return isinstance(value, int | float)
    return type(value) is type(current)


def build_agent(game: Game, spec: AgentSpec, seat: int, options: GameOptions) -> Agent:
    """The agent ``spec`` names for ``seat``; OptionsError naming what is allowed otherwise."""
    factory = game.agents.get(spec.name)
    if factory is None:
        raise OptionsError(f"unknown agent {spec.name!r} for {game.id}; choose from {', '.join(game.agents)}")
    if spec.params and _factory_takes_params(factory):
        return factory(seat, options, **spec.params)  # type: ignore[call-arg]
    agent = factory(seat, options)
    allowed = agent_parameters(agent)
    for key, value in spec.params.items():
        if key not in allowed:
            names = ", ".join(f"{k} (default {v!r})" for k, v in allowed.items()) or "none"
            raise OptionsError(f"agent {spec.name!r} has no parameter {key!r}; its parameters: {names}")
        current = allowed[key]
        if not _fits(value, current):
            raise OptionsError(
                f"agent {spec.name!r} parameter {key!r}: {value!r} is not a {type(current).__name__} "
                f"(default {current!r})"
            )
    return _rebuilt(agent, {k: float(v) if isinstance(allowed[k], float) else v for k, v in spec.params.items()})


def _rebuilt(agent: Any, params: Mapping[str, Any]) -> Any:
    """The agent built again by its own constructor, with ``params`` changed: the constructor's
    checks (MCTS refuses 0 iterations) and anything it derives from them stay right."""
    if not params:
        return agent
    signature = inspect.signature(type(agent).__init__)
    names = [n for n, p in signature.parameters.items()
             if n != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return type(agent)(**{**{n: getattr(agent, n) for n in names if hasattr(agent, n)}, **params})
