"""The experiment spec: a TOML file naming the game, the players, the agents per seat, fixed
options, a sweep and the seeds, with every field overridable from the command line.

    name = "tower-noise"                      # default: the file name without .toml
    game = "tower"
    players = 4                                # default: the game's usual number
    agents = ["cautious", {name = "mcts", iterations = 24}]   # cycles over the seats
    rotate_seats = false                       # true: game with seed k seats agent i at (i + k) mod n
    seeds = 200                                # a count from 0, or {start = 100, stop = 300}
    zip = [["noise_position_mm", "noise_yaw_deg"]]   # axes that step together, not as a grid

    [options]                                  # fixed game options
    tile_set = "tiles.json"

    [sweep]                                    # the grid: lists or {start, stop, num} (both ends in)
    noise_position_mm = [0, 0.5, 1]
    noise_yaw_deg = {start = 0, stop = 1, num = 3}
    agent1.iterations = [8, 24]                # a parameter of the first agent in the list
    agent.shake = [1.0, 2.0]                   # ... of every agent in the list
    players = [3, 4]
    agents = [["random"], ["cautious"]]        # whole line-ups

Mistakes end in one line naming the field and what is allowed, like game options.
"""

from __future__ import annotations

import itertools
import json
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..core.errors import OptionsError
from .agents import AgentChoice, parse_agent

DEFAULT_SEEDS = 100
MAX_SEEDS = 1_000_000  # seeds per cell: a million games of each condition is already a month of CPU
MAX_SEED = 2**63 - 1  # seeds are stored as 64-bit integers
MAX_AXIS_VALUES = 10_000  # values of one {start, stop, num} range
MAX_CELLS = 100_000  # cells of the whole grid


class _Strict(BaseModel):
    # nan and inf are never a setting (TOML writes them as nan and inf)
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class SeedRange(_Strict):
    start: int = Field(default=0, ge=0, le=MAX_SEED)
    stop: int | None = Field(default=None, ge=1, le=MAX_SEED)
    count: int | None = Field(default=None, ge=1, le=MAX_SEEDS)

    def values(self) -> list[int]:
        if (self.stop is None) == (self.count is None):
            raise OptionsError("seeds: give {start, stop} (stop not included) or {start, count}, not both")
        stop = self.stop if self.stop is not None else self.start + (self.count or 0)
        if stop <= self.start:
            raise OptionsError(f"seeds: stop {stop} must be above start {self.start}")
        if stop - self.start > MAX_SEEDS:
            raise OptionsError(f"seeds: {self.start} to {stop} is {stop - self.start} seeds per cell; at most "
                               f"{MAX_SEEDS}")
        return list(range(self.start, stop))


class SweepRange(_Strict):
    start: float | int
    stop: float | int
    num: int = Field(ge=1, le=MAX_AXIS_VALUES)

    def values(self) -> list[Any]:
        if self.num == 1:
            return [self.start]
        step = (self.stop - self.start) / (self.num - 1)
        values = [round(self.start + i * step, 12) for i in range(self.num)]
        if isinstance(self.start, int) and isinstance(self.stop, int) and all(v == int(v) for v in values):
            return [int(v) for v in values]  # integer options (iterations) stay integers
        return [float(v) for v in values]


class ExperimentSpec(_Strict):
    name: str = Field(default="experiment", min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    game: str
    players: int | None = Field(default=None, ge=1)
    agents: list[Any] = Field(default_factory=lambda: ["random"], min_length=1)
    rotate_seats: bool = False
    seeds: int | SeedRange = Field(default=DEFAULT_SEEDS)  # a count: 1 to MAX_SEEDS
    zip: list[list[str]] = Field(default_factory=list)
    options: dict[str, Any] = Field(default_factory=dict)
    sweep: dict[str, Any] = Field(default_factory=dict)

    @field_validator("options", "sweep")
    @classmethod
    def _finite(cls, value: dict[str, Any]) -> dict[str, Any]:
        bad = first_non_finite(value)
        if bad is not None:
            raise ValueError(f"{bad} is not a finite number; nan and inf are never a setting")
        return value

    @field_validator("seeds")
    @classmethod
    def _positive_count(cls, value: int | SeedRange) -> int | SeedRange:
        if isinstance(value, int) and not 1 <= value <= MAX_SEEDS:
            raise ValueError(f"a seed count must be at least 1 and at most {MAX_SEEDS}")
        return value

    # --- derived -------------------------------------------------------------------------------
    def seed_values(self) -> list[int]:
        return list(range(self.seeds)) if isinstance(self.seeds, int) else self.seeds.values()

    def lineup(self) -> list[AgentChoice]:
        return [parse_agent(a) for a in self.agents]

    def axes(self) -> dict[str, list[Any]]:
        """Each sweep axis with its values (ranges expanded), in the order written."""
        return {key: _axis_values(key, value) for key, value in flatten_sweep(self.sweep).items()}

    def grid(self) -> list[dict[str, Any]]:
        """Every cell of the sweep as {axis: value}: zipped axes step together, the rest multiply."""
        axes = self.axes()
        grouped: dict[str, list[str]] = {}
        for group in self.zip:
            missing = [key for key in group if key not in axes]
            if missing:
                raise OptionsError(f"zip names {', '.join(map(repr, missing))}, not in [sweep]; sweep axes: "
                                   f"{', '.join(axes) or 'none'}")
            lengths = {key: len(axes[key]) for key in group}
            if len(set(lengths.values())) > 1:
                counts = ", ".join(f"{key} {n}" for key, n in lengths.items())
                raise OptionsError(f"zip {group}: these axes step together and need the same number of values, "
                                   f"got {counts}; give each of them as many values (--set key=a,b,c), fix "
                                   "some to one value, or --set zip=[] to sweep them as a grid")
            for key in group:
                if key in grouped:
                    raise OptionsError(f"zip: axis {key!r} is in two groups")
                grouped[key] = group
        factors: list[list[dict[str, Any]]] = []
        done: set[str] = set()
        for key in axes:
            if key in done:
                continue
            group = grouped.get(key, [key])
            done.update(group)
            factors.append([dict(zip(group, values, strict=True))
                            for values in zip(*(axes[k] for k in group), strict=True)])
        cells = math.prod(len(factor) for factor in factors)
        if cells > MAX_CELLS:  # counted before the grid is made
            raise OptionsError(f"sweep: {cells} cells ({' x '.join(str(len(f)) for f in factors)}); at most "
                               f"{MAX_CELLS}: sweep fewer values, or zip axes that step together")
        return [{k: v for part in combo for k, v in part.items()} for combo in itertools.product(*factors)]

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


SPEC_KEYS = tuple(ExperimentSpec.model_fields)
"""The keys a spec file may hold, in the order the spec declares them."""


def flatten_sweep(sweep: Mapping[str, Any]) -> dict[str, Any]:
    """``{"agent1": {"iterations": [..]}}`` (a TOML dotted key) becomes ``{"agent1.iterations": [..]}``."""
    flat: dict[str, Any] = {}
    for key, value in sweep.items():
        if _is_agent_axis(key) and isinstance(value, Mapping):
            for param, values in value.items():
                flat[f"{key}.{param}"] = values
        else:
            flat[key] = value
    return flat


def first_non_finite(value: Any, where: str = "") -> str | None:
    """The dotted key of the first nan or infinity in ``value`` (nested tables and lists), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return where or "value"
    items = value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = first_non_finite(item, f"{where}.{key}" if where else str(key))
        if found is not None:
            return found
    return None


def _is_agent_axis(key: str) -> bool:
    head = key.split(".", 1)[0]
    return head == "agent" or (head.startswith("agent") and head[5:].isdigit())


def _axis_values(key: str, value: Any) -> list[Any]:
    if key in ("name", "game", "seeds", "rotate_seats", "zip", "options", "sweep"):
        raise OptionsError(f"sweep: {key!r} cannot be swept; sweep game options, agent parameters "
                           f"(agent.NAME, agent1.NAME), players or agents")
    if isinstance(value, Mapping):
        try:
            return SweepRange.model_validate(dict(value)).values()
        except ValidationError as exc:
            problems = "; ".join(_problems(exc))
            raise OptionsError(f"sweep {key!r}: {problems}; a range is {{start, stop, num}}") from None
    if not isinstance(value, list) or not value:
        raise OptionsError(f"sweep {key!r}: give a non-empty list of values or {{start, stop, num}}, got {value!r}")
    if key == "agents":
        return [[parse_agent(a).to_json() for a in (v if isinstance(v, list) else [v])] for v in value]
    return list(value)


def _problems(exc: ValidationError, top_level: bool = False) -> list[str]:
    """One short phrase per problem pydantic found, naming the key: its full dotted path, or with
    ``top_level`` the spec key it lies under."""
    problems = []
    for err in exc.errors():
        loc = err["loc"]
        where = (str(loc[0]) if loc else "spec") if top_level else (".".join(str(p) for p in loc) or "value")
        if err["type"] == "extra_forbidden":
            problems.append(f"unknown key {where!r}")
        elif err["type"] == "missing":
            problems.append(f"missing key {where!r}")
        else:
            problems.append(f"{where!r}: {err['msg']} (got {err.get('input')!r})")
    return problems


# --- reading and overriding ---------------------------------------------------------------------


def read_spec_file(path: Path) -> dict[str, Any]:
    """The raw table of a spec file; OptionsError naming the file and the line on a mistake."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OptionsError(f"{path}: no such spec file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OptionsError(f"{path}: cannot read the spec ({exc})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise OptionsError(f"{path}: not valid TOML: {exc}") from None
    raw.setdefault("name", path.stem)
    return raw


def parse_value(text: str) -> Any:
    """A command-line value: TOML (``0.5``, ``[1, 2]``, ``{start=0, stop=1, num=5}``, ``true``),
    else a comma list of such values (``0,0.5,1``), else the text itself."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    if "," in text:
        return [parse_value(part.strip()) for part in text.split(",")]
    return text


def parse_seeds(text: str) -> int | dict[str, int]:
    """``200`` (seeds 0-199) or ``100:300`` (seeds 100-299)."""
    start, sep, stop = text.partition(":")
    try:
        if sep:
            return {"start": int(start or 0), "stop": int(stop)}
        return int(text)
    except ValueError:
        raise OptionsError(f"--seeds {text!r}: give a count (200) or a range start:stop (100:300)") from None


def apply_overrides(raw: Mapping[str, Any], assignments: Sequence[str]) -> dict[str, Any]:
    """The raw spec with ``key=value`` overrides: spec fields are replaced; anything else is a
    game option or agent parameter, fixed for one value and swept for a list."""
    out = {**raw, "options": dict(raw.get("options", {})), "sweep": flatten_sweep(raw.get("sweep", {}))}
    for pair in assignments:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise OptionsError(f"--set {pair!r}: write key=value (a list such as key=0,0.5,1 sweeps it)")
        value = parse_value(text.strip())
        is_list = isinstance(value, list) or (isinstance(value, Mapping) and set(value) <= {"start", "stop", "num"})
        if key == "agents" or (key in SPEC_KEYS and key != "players") or (key == "players" and not is_list):
            out[key] = value
            out["sweep"].pop(key, None)
        elif is_list:
            out["sweep"][key] = value
            out["options"].pop(key, None)
            if key == "players":
                out.pop("players", None)
        elif _is_agent_axis(key):
            out["sweep"][key] = [value]
        else:
            out["options"][key] = value
            out["sweep"].pop(key, None)
            _unzip(out, key)
    return out


def _unzip(spec: dict[str, Any], key: str) -> None:
    """An axis fixed to one value leaves its zip group; the rest of the group still steps together."""
    groups = spec.get("zip")
    if not isinstance(groups, list):
        return  # validate_spec names the wrong type
    kept = [[k for k in group if k != key] if isinstance(group, list) else group for group in groups]
    spec["zip"] = [group for group in kept if not isinstance(group, list) or len(group) > 1]


def refuse_fixed_and_swept(raw: Mapping[str, Any], source: str = "spec") -> None:
    """A game option fixed in [options] and swept in [sweep] (or players fixed and swept) has two
    sources; which one the games used would be a guess: refused, naming both values."""
    options, sweep = raw.get("options"), raw.get("sweep")
    if not isinstance(options, Mapping) or not isinstance(sweep, Mapping):
        return  # the model names the wrong type
    fixed = {**options, **({"players": raw["players"]} if raw.get("players") is not None else {})}
    for key, values in flatten_sweep(sweep).items():
        if key in fixed:
            where = "players =" if key == "players" and key not in options else "[options]"
            raise OptionsError(f"{source}: {key} is fixed in {where} ({json.dumps(fixed[key])}) and swept in [sweep] "
                               f"({json.dumps(values)}); keep one of them (--set {key}=... replaces both)")


def validate_spec(raw: Mapping[str, Any], source: str = "spec") -> ExperimentSpec:
    """The validated spec; OptionsError with one line naming each bad field and what is allowed."""
    refuse_fixed_and_swept(raw, source)
    try:
        spec = ExperimentSpec.model_validate(dict(raw))
    except ValidationError as exc:
        problems = dict.fromkeys(_problems(exc, top_level=True))  # each phrase once, in order
        allowed = ", ".join(SPEC_KEYS)
        raise OptionsError(f"{source}: " + "; ".join(problems) + f". Allowed keys: {allowed}") from None
    for agent in spec.agents:
        parse_agent(agent)
    spec.seed_values()
    spec.grid()
    return spec


@dataclass(frozen=True)
class LoadedSpec:
    spec: ExperimentSpec
    source: str


def load_spec(path: Path, assignments: Sequence[str] = ()) -> LoadedSpec:
    raw = apply_overrides(read_spec_file(path), assignments)
    return LoadedSpec(validate_spec(raw, str(path)), str(path))
