"""Every engine's parameters: one declaration of the settle rule and the world (engine_params.py),
checked alike for each engine, and a JSON form identical to the asset, so record headers written
before the shared declaration load and verify unchanged. Needs no engine library."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from pisa3d.assets import load_json_asset
from pisa3d.core.errors import OptionsError
from pisa3d.physics import SettleRule
from pisa3d.physics.engine_params import EngineParams
from pisa3d.physics.mujoco_params import MujocoParams
from pisa3d.physics.pybullet_params import PyBulletParams

ENGINES = [PyBulletParams, MujocoParams]
SHARED = [f.name for f in fields(EngineParams)]
# A bad value for every shared field, and the words its message must hold.
BAD = {name: (-1.0, "must be a positive finite number") for name in SHARED}
BAD |= {
    "settle_min_time": (-0.5, "must be a number >= 0"),
    "fall_aftermath_time": (float("nan"), "must be a number >= 0"),
    "release_time": (-0.1, "must be a number >= 0"),
    "check_every_steps": (2.5, "must be an integer"),
    "fall_exit_factor": (0.5, "must be at least 1"),
    "table_half_extents": ([0.3, 0.3], "must hold 3 finite numbers"),
}


def test_the_settle_rule_and_the_world_are_declared_once_for_every_engine() -> None:
    rule = [f.name for f in fields(SettleRule)]
    assert [*rule, "gravity", "table_friction", "table_half_extents"] == SHARED
    for params in ENGINES:
        assert [f.name for f in fields(params)][: len(SHARED)] == SHARED
        assert isinstance(params(), SettleRule)  # handed to run_settle as it is


@pytest.mark.parametrize("params", ENGINES, ids=lambda p: p.NAME)
def test_the_json_form_is_the_asset_key_for_key_in_its_order(params: type[EngineParams]) -> None:
    """The record header stores to_json(): the same text as the asset, so headers are unchanged."""
    asset = {k: v for k, v in load_json_asset("physics", f"{params.NAME}.json").items() if not k.startswith("_")}
    assert json.dumps(params().to_json()) == json.dumps(asset)
    assert params.from_data(asset) == params() and hash(params.from_data(asset)) == hash(params())
    changed = params.from_data({"max_time": 2.0, "table_half_extents": [0.2, 0.2, 0.01]})
    assert changed.max_time == 2.0 and changed.table_half_extents == (0.2, 0.2, 0.01)
    assert list(changed.to_json()) == list(asset) and params.from_data(changed.to_json()) == changed


@pytest.mark.parametrize("name", SHARED)
@pytest.mark.parametrize("params", ENGINES, ids=lambda p: p.NAME)
def test_a_bad_shared_value_is_named_alike_for_every_engine(params: type[EngineParams], name: str) -> None:
    value, words = BAD[name]
    with pytest.raises(OptionsError, match=rf"^{params.NAME}\.{name} {words}"):
        params.from_data({name: value})


@pytest.mark.parametrize("params", ENGINES, ids=lambda p: p.NAME)
def test_unknown_parameters_are_listed_with_the_allowed_ones(params: type[EngineParams]) -> None:
    with pytest.raises(OptionsError, match=rf"unknown {params.NAME} parameter\(s\) \['max_tim'\]; allowed: .*max_time"):
        params(max_tim=1.0)


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan"), "high"])
def test_a_warm_starting_factor_outside_0_to_1_is_refused_with_its_range(value: object) -> None:
    with pytest.raises(OptionsError, match=r"^pybullet\.warm_starting_factor must be between 0 and 1"):
        PyBulletParams.from_data({"warm_starting_factor": value})
