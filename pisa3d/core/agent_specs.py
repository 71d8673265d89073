"""Agent kinds with declared parameters, built from code or from a command-line spec.

Every game lists its agents as ``AgentSpec`` values: a name, a one-line help, a builder and the
keyword parameters it takes (name, type, default, help). ``game.agents["mcts"](seat, options,
iterations=200)`` builds one from code; ``build_agent(game, "mcts:iterations=200", seat,
options)`` from the text people type (``--agent mcts:iterations=200,exploration=1.2``). Unknown
parameters and values of the wrong type are refused with the allowed parameters listed.

Every int and float parameter has a declared range (``low`` to ``high``, inclusive): specs come
from people (the command line, a server's seat, an experiment file), and one value far out of
range (``mcts:iterations=999999999999``) would hang whatever plays the bot. An agent class
declares its ranges beside its constructor, as ``PARAM_RANGES = {"samples": (1, 512)}``.
"""

from __future__ import annotations

import inspect
import math
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .agents import Agent, RandomAgent
from .errors import OptionsError, UnknownAgentError

if TYPE_CHECKING:
    from .game import Game
    from .options import GameOptions

_PARAM_TYPES: tuple[type, ...] = (bool, int, float, str)
ParamRanges = Mapping[str, tuple[float, float]]
"""An agent class's ``PARAM_RANGES``: parameter name -> (lowest, highest) allowed, inclusive."""


@dataclass(frozen=True)
class AgentParam:
    """One keyword parameter of an agent kind; an int or float one is allowed from ``low`` to
    ``high`` (inclusive)."""

    name: str
    type: type
    default: Any
    help: str = ""
    low: float | None = None
    high: float | None = None

    @property
    def ranged(self) -> bool:
        return self.low is not None and self.high is not None

    def range_text(self) -> str:
        """``from 1 to 20000``, or "" when no range is declared."""
        if not self.ranged:
            return ""
        return f"from {_number(self.low)} to {_number(self.high)}"

    def describe(self) -> str:
        within = f" {self.range_text()}" if self.ranged else ""
        return f"{self.name} ({self.type.__name__}{within}, default {self.default!r})"

    def convert(self, value: Any, agent: str) -> Any:
        """``value`` (from code, or text from the command line) as this parameter's type, within its
        range."""
        if isinstance(value, str) and self.type is not str:
            value = _from_text(value, self.type, agent, self.name)
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if self.default is None and value is None:
            return None
        if type(value) is not self.type:
            raise OptionsError(
                f"agent {agent!r}: parameter {self.name!r} must be {self.type.__name__}, got {value!r}"
            )
        if self.type in (int, float):
            self._check_range(value, agent)
        return value

    def _check_range(self, value: float, agent: str) -> None:
        if self.ranged:
            assert self.low is not None and self.high is not None
            if not self.low <= value <= self.high:  # nan fails both comparisons: refused too
                raise OptionsError(
                    f"agent {agent!r}: parameter {self.name!r} must be {self.range_text()}, got {value!r}")
        elif not math.isfinite(value):
            raise OptionsError(f"agent {agent!r}: parameter {self.name!r} must be a finite number, got {value!r}")


def _number(bound: float | None) -> str:
    """A range's end as people write it: 20000, 0.01, 60 (not 60.0 or 2e+04)."""
    assert bound is not None
    return str(int(bound)) if float(bound).is_integer() else repr(float(bound))


def _from_text(text: str, kind: type, agent: str, name: str) -> Any:
    if text.lower() == "none":
        return None
    try:
        if kind is bool:
            if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(text)
            return text.lower() in ("true", "1", "yes")
        return kind(text)
    except ValueError:
        raise OptionsError(f"agent {agent!r}: parameter {name!r} must be {kind.__name__}, got {text!r}") from None


AgentBuilder = Callable[..., "Agent"]
"""``build(seat, options, **params)`` -> an agent."""


@dataclass(frozen=True)
class AgentSpec:
    """An agent kind: call it as ``spec(seat, options, **params)``."""

    name: str
    build: AgentBuilder
    help: str = ""
    params: tuple[AgentParam, ...] = ()

    def __call__(self, seat: int, options: GameOptions | None, **params: Any) -> Agent:
        return self.build(seat, options, **self.resolve(params))

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter with its value: given ones checked and converted, the rest defaults."""
        known = {p.name: p for p in self.params}
        unknown = [name for name in given if name not in known]
        if unknown:
            raise OptionsError(f"agent {self.name!r} has no parameter {unknown[0]!r}; {self.allowed()}")
        return {p.name: p.convert(given[p.name], self.name) if p.name in given else p.default for p in self.params}

    def allowed(self) -> str:
        if not self.params:
            return "it takes no parameters"
        return "parameters: " + ", ".join(p.describe() for p in self.params)

    @classmethod
    def from_class(cls, name: str, agent_class: type, help: str = "", skip: tuple[str, ...] = ("seat",),
                   fixed: Mapping[str, Any] | None = None,
                   build: Callable[..., Agent] | None = None) -> AgentSpec:
        """A spec whose parameters are ``agent_class.__init__``'s keyword parameters with defaults
        of a plain type (bool, int, float, str, or None meaning "not set"), so an agent's own
        signature is its declaration. Each int or float one takes its range from the class's
        ``PARAM_RANGES`` (``{"samples": (1, 512)}``); one without a range is a TypeError here, when
        the game is declared. ``seat`` (and names in ``skip``) are filled in by the builder;
        ``fixed`` are keyword values passed through, not exposed."""
        hints = typing.get_type_hints(agent_class.__init__)
        ranges: ParamRanges = getattr(agent_class, "PARAM_RANGES", {})
        params = []
        for p in inspect.signature(agent_class.__init__).parameters.values():
            if p.name == "self" or p.name in skip or p.default is inspect.Parameter.empty:
                continue
            if fixed and p.name in fixed:
                continue
            kind = _plain_type(hints.get(p.name))
            if kind is None:
                continue  # objects (rollout policies, evaluators) are set in code, not by name
            low, high = ranges.get(p.name, (None, None))
            if kind in (int, float) and low is None:
                raise TypeError(f"{agent_class.__name__}.PARAM_RANGES declares no range for {p.name!r}")
            params.append(AgentParam(p.name, kind, p.default, "", low, high))
        doc = help or (inspect.getdoc(agent_class) or "").split("\n")[0]

        def default_build(seat: int, options: Any, **kwargs: Any) -> Agent:
            return agent_class(seat, **(fixed or {}), **kwargs)

        return cls(name, build or default_build, doc, tuple(params))


def _plain_type(hint: Any) -> type | None:
    """bool/int/float/str, also from ``X | None``; None for anything else."""
    if hint in _PARAM_TYPES:
        return hint
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if len(args) == 1 and args[0] in _PARAM_TYPES:
        return args[0]
    return None


def plain_agent(name: str, build: Callable[[int, Any], Agent], help: str = "") -> AgentSpec:
    """A spec for a factory ``build(seat, options)`` that takes no parameters."""
    return AgentSpec(name, lambda seat, options: build(seat, options), help)


@dataclass(frozen=True)
class AgentRegistry(Mapping[str, AgentSpec]):
    """A game's agent kinds by name; plain ``(seat, options)`` factories are wrapped."""

    specs: dict[str, AgentSpec] = field(default_factory=dict)

    @classmethod
    def of(cls, *specs: AgentSpec) -> AgentRegistry:
        return cls({spec.name: spec for spec in specs})

    def __getitem__(self, name: str) -> AgentSpec:
        spec = self.specs.get(name)
        if spec is None:
            raise UnknownAgentError(f"no agent kind {name!r}; choose from {', '.join(self.specs)}")
        return spec

    def __iter__(self) -> Iterator[str]:
        return iter(self.specs)

    def __len__(self) -> int:
        return len(self.specs)


def agent_registry(agents: Mapping[str, Any]) -> AgentRegistry:
    """``agents`` as an AgentRegistry (a game may still list plain factories)."""
    if isinstance(agents, AgentRegistry):
        return agents
    return AgentRegistry({
        name: spec if isinstance(spec, AgentSpec) else plain_agent(name, spec) for name, spec in agents.items()
    })


def parse_agent_spec(text: str) -> tuple[str, dict[str, str]]:
    """``"mcts:iterations=200,exploration=1.2"`` -> ("mcts", {"iterations": "200", ...})."""
    name, _, rest = text.strip().partition(":")
    if not name:
        raise OptionsError(f"agent {text!r}: write NAME or NAME:param=value,param=value")
    params: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise OptionsError(f"agent {text!r}: parameter {pair!r} must look like name=value")
        params[key.strip()] = value.strip()
    return name.strip(), params


def build_agent(game: Game, text: str, seat: int, options: GameOptions | None) -> Agent:
    """The agent ``text`` names for ``game`` (e.g. ``"cautious:max_candidates=4"``)."""
    name, params = parse_agent_spec(text)
    agents = agent_registry(game.agents)
    if name not in agents:
        raise OptionsError(f"unknown agent {name!r} for {game.id}; choose from {', '.join(agents)}")
    return agents[name](seat, options, **params)


def describe_agents(game: Game) -> list[str]:
    """One line per agent kind: name, help and parameters (for --help and error messages)."""
    lines = []
    for spec in agent_registry(game.agents).values():
        params = "; " + spec.allowed() if spec.params else ""
        lines.append(f"{spec.name}: {spec.help}{params}")
    return lines


def random_spec() -> AgentSpec:
    """The ``random`` kind every game has."""
    return AgentSpec("random", lambda seat, options: RandomAgent(), "a uniformly random legal move")
