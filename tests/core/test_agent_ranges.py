"""Every number a bot takes has a declared range, and specs outside it (or not finite) are refused
in one line naming the agent, the parameter and the range: a seat ``mcts:iterations=999999999999``
must never reach a bot."""

from __future__ import annotations

import math
import re
import subprocess
from typing import ClassVar

import pytest

from pisa3d.core.agent_specs import AgentParam, AgentSpec, ParamRanges, agent_registry, build_agent
from pisa3d.core.errors import OptionsError
from pisa3d.core.registry import game_ids, get_game


def numeric_params() -> list[tuple[str, AgentSpec, AgentParam]]:
    """(game id, agent kind, parameter) for every int or float parameter of every registered game."""
    out = []
    for game_id in game_ids():
        for spec in agent_registry(get_game(game_id).agents).values():
            out.extend((game_id, spec, p) for p in spec.params if p.type in (int, float))
    return out


PARAMS = numeric_params()
IDS = [f"{game_id}-{spec.name}-{p.name}" for game_id, spec, p in PARAMS]


def test_the_games_have_numeric_bot_parameters_to_check() -> None:
    kinds = {(game_id, spec.name) for game_id, spec, _ in PARAMS}
    assert {("cards", "mcts"), ("gimignano", "mcts"), ("tower", "mcts"), ("tower", "cautious")} <= kinds


@pytest.mark.parametrize(("game_id", "spec", "param"), PARAMS, ids=IDS)
def test_every_number_has_a_range_holding_its_default(game_id: str, spec: AgentSpec, param: AgentParam) -> None:
    assert param.low is not None and param.high is not None, f"{game_id} {spec.name}.{param.name} has no range"
    assert param.low <= param.high
    if param.default is not None:  # None: not set (mcts's time_limit)
        assert param.low <= param.default <= param.high
    if param.type is int:
        assert float(param.low).is_integer() and float(param.high).is_integer()


@pytest.mark.parametrize(("game_id", "spec", "param"), PARAMS, ids=IDS)
def test_both_ends_are_accepted_and_just_beyond_them_refused_naming_the_range(
    game_id: str, spec: AgentSpec, param: AgentParam
) -> None:
    assert param.low is not None and param.high is not None
    game = get_game(game_id)
    for end in (param.low, param.high):
        value = param.type(end)
        assert spec.resolve({param.name: value})[param.name] == value
        spec(0, game.options(), **{param.name: value})  # the agent's own checks agree with the spec
    if param.type is int:
        outside = [int(param.low) - 1, int(param.high) + 1]
    else:
        outside = [math.nextafter(param.low, -math.inf), math.nextafter(param.high, math.inf)]
    allowed = param.range_text()
    for value in outside:
        with pytest.raises(OptionsError) as info:
            spec.resolve({param.name: value})
        assert str(info.value) == f"agent {spec.name!r}: parameter {param.name!r} must be {allowed}, got {value!r}"
        with pytest.raises(OptionsError, match=re.escape(f"must be {allowed}, got")):  # as text, as people type it
            build_agent(game, f"{spec.name}:{param.name}={value!r}", 0, game.options())


@pytest.mark.parametrize(("game_id", "spec", "param"), [row for row in PARAMS if row[2].type is float],
                         ids=[i for i, row in zip(IDS, PARAMS, strict=True) if row[2].type is float])
def test_infinities_and_nan_are_refused(game_id: str, spec: AgentSpec, param: AgentParam) -> None:
    game = get_game(game_id)
    refusal = re.escape(f"parameter {param.name!r} must be {param.range_text()}, got")
    for value in (math.inf, -math.inf, math.nan):
        with pytest.raises(OptionsError, match=refusal):
            spec.resolve({param.name: value})
    for text in ("inf", "-inf", "nan", "Infinity"):
        with pytest.raises(OptionsError, match=refusal):
            build_agent(game, f"{spec.name}:{param.name}={text}", 0, game.options())


def test_the_ranges_are_described_beside_each_parameter() -> None:
    mcts = agent_registry(get_game("cards").agents)["mcts"]
    assert "iterations (int from 1 to 20000, default 200)" in mcts.allowed()
    assert "time_limit (float from 0.01 to 60, default None)" in mcts.allowed()
    unknown = "agent 'mcts' has no parameter 'depth'; parameters: iterations (int from 1 to 20000, default 200)"
    with pytest.raises(OptionsError, match=re.escape(unknown)):
        mcts.resolve({"depth": 3})


def test_a_parameter_without_a_range_is_refused_finite_only() -> None:
    free = AgentParam("weight", float, 1.0)
    assert free.convert("2.5", "toy") == 2.5
    with pytest.raises(OptionsError, match="agent 'toy': parameter 'weight' must be a finite number, got inf"):
        free.convert("inf", "toy")


def test_an_agent_class_must_declare_a_range_for_each_number() -> None:
    class Unranged:
        PARAM_RANGES: ClassVar[ParamRanges] = {"depth": (0, 3)}

        def __init__(self, seat: int, depth: int = 1, width: float = 2.0) -> None:
            self.seat = seat

    with pytest.raises(TypeError, match=r"Unranged\.PARAM_RANGES declares no range for 'width'"):
        AgentSpec.from_class("toy", Unranged)


def test_the_games_catalog_gives_each_bot_number_its_range() -> None:
    from pisa3d.serve.catalog import games_catalog

    for game in games_catalog():
        specs = agent_registry(get_game(game["id"]).agents)
        for bot in game["bots"]:
            for entry in bot["params"]:
                param = next(p for p in specs[bot["name"]].params if p.name == entry["name"])
                if param.type in (int, float):
                    assert (entry["min"], entry["max"]) == (param.low, param.high)
                else:
                    assert "min" not in entry and "max" not in entry
    cards_mcts = next(b for b in next(g for g in games_catalog() if g["id"] == "cards")["bots"] if b["name"] == "mcts")
    assert {"name": "iterations", "type": "int", "default": 200, "min": 1, "max": 20000} in cards_mcts["params"]


def test_the_command_line_refuses_an_out_of_range_bot_in_one_line() -> None:
    run = subprocess.run(["pisa3d", "play", "cards", "-a", "mcts:iterations=999999999999"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == ("pisa3d: error: agent 'mcts': parameter 'iterations' must be from 1 to 20000, "
                          "got 999999999999\n")
