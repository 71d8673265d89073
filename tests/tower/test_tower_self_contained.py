"""A tower record carries everything it needs to replay anywhere: the tile set's contents (not a
path), the engine's name, version and every parameter. Old records that lack them are refused
with one line."""

from __future__ import annotations

import json
import os

import pytest

from pisa3d.core.errors import OptionsError, RecordError
from pisa3d.core.match import play_match
from pisa3d.core.record import load_record, record_from_json, save_record
from pisa3d.core.replay import start_from_record, verify_record
from pisa3d.games import get_game
from pisa3d.physics import resolve_engine_params
from tests.tower.tile_sets import uniform_tile_set

GAME = get_game("tower")


def play(options: dict, seed: int = 3):
    agents = [GAME.agents["random"](s, GAME.options(options)) for s in range(2)]
    return play_match(GAME, agents, seed=seed, options=options)


def test_the_header_holds_the_tile_set_contents_and_every_engine_parameter(tmp_path) -> None:
    tiles = uniform_tile_set(tmp_path, 8)
    record = play({"tile_set": tiles, "physics_params": {"solver_iterations": 150}}).record
    options = record.header["options"]
    assert options["tile_set"]["side_mm"] == 60 and len(options["tile_set"]["tiles"]) == 8
    assert options["physics"] == "pybullet"
    expected = resolve_engine_params("pybullet", {"solver_iterations": 150})
    assert options["physics_params"] == expected and options["physics_params"]["solver_iterations"] == 150
    assert {"timestep", "contact_stiffness", "fall_aftermath_time"} <= set(options["physics_params"])
    deal = record.setup_events[0].data
    assert deal["physics"].startswith("pybullet ") and deal["physics"].split()[1][0].isdigit()


def test_a_record_replays_without_its_tile_set_file_and_with_its_own_engine_parameters(tmp_path) -> None:
    tiles = uniform_tile_set(tmp_path, 8)
    outcome = play({"tile_set": tiles, "physics_params": {"solver_iterations": 150}}, seed=5)
    path = save_record(outcome.record, tmp_path / "game.json")
    os.remove(tiles)  # another machine: the file is not there
    loaded = load_record(path)
    report = verify_record(GAME, loaded)
    assert report.ok, report.divergences
    # The recorded parameters are what verify uses: other ones give another game.
    body = json.loads(path.read_text())
    body["options"]["physics_params"]["solver_iterations"] = 40
    body.pop("digest")
    from pisa3d.core.record import digest_of

    body["digest"] = digest_of(body)
    changed = record_from_json(body)
    report = verify_record(GAME, changed)
    assert not report.ok


def test_an_old_record_naming_engine_settings_by_file_is_refused_in_one_line(tmp_path) -> None:
    outcome = play({"tile_set": uniform_tile_set(tmp_path, 4)})
    body = outcome.record.to_json()
    body["options"] = {"tile_set": "tiles.json", "engine": {}}
    from pisa3d.core.record import digest_of

    body.pop("digest")
    body["digest"] = digest_of(body)
    with pytest.raises(RecordError, match=r"retired.*physics_params.*made again") as info:
        start_from_record(GAME, record_from_json(body))
    assert "\n" not in str(info.value)


def test_an_unknown_engine_and_bad_parameters_are_named() -> None:
    with pytest.raises(OptionsError, match="unknown physics engine 'bullet'; known engines: mujoco, pybullet"):
        GAME.options({"physics": "bullet"})
    with pytest.raises(OptionsError, match="unknown pybullet parameter"):
        GAME.options({"physics_params": {"stiffness": 1}})
    with pytest.raises(OptionsError, match="timestep"):
        GAME.options({"physics_params": {"timestep": -1.0}})


@pytest.mark.parametrize(("option", "value", "allowed"), [
    ("tile_side_mm", 600.0, "less than or equal to 200"),
    ("tile_side_mm", 5.0, "greater than or equal to 20"),
    ("tile_thickness_mm", 0.2, "greater than or equal to 1"),
    ("density_kg_m3", 20000.0, "less than or equal to 2000"),
    ("friction", 5.0, "less than or equal to 1.5"),
])
def test_tile_options_out_of_physical_reason_are_refused_with_the_range(option, value, allowed) -> None:
    with pytest.raises(OptionsError, match=f"{option}.*{allowed}") as info:
        GAME.options({option: value})
    # one readable line naming both ends of the range; the list of every option (the tile set's
    # contents, the engine's parameters) follows only a misspelt option name
    message = str(info.value)
    assert "\n" not in message and len(message) < 300 and "; allowed: " in message and "Allowed options" not in message


def test_tile_set_contents_out_of_range_name_the_field_and_the_range(tmp_path) -> None:
    path = tmp_path / "huge.json"
    path.write_text(json.dumps({"side_mm": 600, "thickness_mm": 40, "density_kg_m3": 700, "friction": 0.5,
                                "tiles": [{"id": 0, "white": "1111", "black": "1111"}]}))
    with pytest.raises(OptionsError, match="side_mm must be a number from 20 to 200, got 600"):
        GAME.options({"tile_set": str(path)})
    with pytest.raises(OptionsError, match="too thick"):
        GAME.new_game(2, 1, {"tile_side_mm": 40.0, "tile_thickness_mm": 12.0})


def test_fall_thresholds_scale_with_the_tile() -> None:
    from pisa3d.games.tower.rules.setup import build_setup

    small = build_setup(GAME.options({}))
    big = build_setup(GAME.options({"tile_side_mm": 180.0, "tile_thickness_mm": 12.0}))
    assert small.thresholds.distance == pytest.approx(0.005)
    assert big.thresholds.distance == pytest.approx(0.015)  # 1.25 thicknesses, RULES.md
    assert big.thresholds.angle_deg == small.thresholds.angle_deg == 10.0
    own = build_setup(GAME.options({"fall_distance_mm": 8.0}))
    assert own.thresholds.distance == pytest.approx(0.008)


def test_a_big_tile_placed_steadily_does_not_fall(tmp_path) -> None:
    """150 x 150 x 10 mm tiles: the base walls and a ceiling stand (a fixed 5 mm threshold would
    call a tile this size fallen at its first wobble)."""
    options = {"tile_set": uniform_tile_set(tmp_path, 8), "tile_side_mm": 150.0, "tile_thickness_mm": 10.0,
               "noise_position_mm": 0.0, "noise_yaw_deg": 0.0, "noise_tilt_deg": 0.0, "record_trajectories": False}
    state, _ = GAME.new_game(2, 1, options)
    for text in ("W0N", "W0E", "W0S", "W0W", "C0"):
        events = state.apply(GAME.parse_move(text))
        assert [e.kind for e in events] == ["placed"], (text, events)
    assert state.setup.thresholds.distance == pytest.approx(0.0125)
    assert state.height() == pytest.approx(0.16, abs=0.001)
