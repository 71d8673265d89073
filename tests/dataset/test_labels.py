"""The labels beyond the game's verdict, checked against the game re-played with real PyBullet
(and MuJoCo): fall odds as the estimator gives them, margins of every tile and level, observed
fall rates over fresh hands, a second engine's verdict on the same release."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.core.match import play_match
from pisa3d.dataset.labels import chosen_for_hands, observed_falls, second_verdict
from pisa3d.dataset.reader import read_scenes
from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
from pisa3d.dataset.store import build_dataset
from pisa3d.experiments.agents import parse_agent
from pisa3d.experiments.runners import LocalRunner
from pisa3d.experiments.spec import read_spec_file
from pisa3d.experiments.storage import load_stored_spec
from pisa3d.games import get_game
from pisa3d.games.tower.odds.fall_odds import fall_odds
from pisa3d.games.tower.rules.moves import PlaceMove
from pisa3d.games.tower.statics.statics import TowerStatics

from .helpers import write_spec

LABELS = ("seeds=2", "dataset.labels.observed_share=0.5", "dataset.labels.observed_hands=3",
          'dataset.labels.second_engine="pybullet"')


@pytest.fixture(scope="module")
def labelled(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("labels")
    spec_path = write_spec(folder)
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(spec_path), list(LABELS)), str(spec_path))
    build_dataset(spec, str(spec_path), folder / "out", LocalRunner(workers=1))
    return folder / "out"


@pytest.fixture(scope="module")
def replayed(labelled) -> list[tuple[Any, PlaceMove, dict[str, Any]]]:
    """(the state before the move, the move, the stored row) for every scene, the games re-played."""
    root = labelled
    stored = load_stored_spec(root)
    cell = stored["cells"][0]
    game = get_game("tower")
    options = game.options(cell["options"])
    rows = sorted(read_scenes(root).to_pylist(), key=lambda r: r["scene"])
    out = []
    for seed in sorted({r["seed"] for r in rows}):
        mine = [r for r in rows if r["seed"] == seed]
        agents = [parse_agent(a).build(game, i, options) for i, a in enumerate(cell["agents"] * 3)]
        before: list[Any] = []
        found: list[tuple[Any, PlaceMove]] = []

        def on_events(player, move, events, state, before=before, found=found):
            if player is not None and isinstance(move, PlaceMove) and any(e.kind == "placed" for e in events):
                found.append((before[0], move))
            before[:] = [state.clone()]

        play_match(game, agents[:3], seed, options, on_events=on_events)
        assert len(found) == len(mine)
        out += [(prior, move, row) for (prior, move), row in zip(found, mine, strict=True)]
    return out


@pytest.mark.slow
def test_fall_odds_are_the_estimators_for_the_move_under_the_matchs_hand(replayed):
    scenes = replayed
    for prior, move, row in scenes:
        assert row["fall_odds"] == pytest.approx(fall_odds(prior)[move].odds, abs=1e-9)
    assert len({row["fall_odds"] for _, _, row in scenes}) > 1  # it tells positions apart


@pytest.mark.slow
def test_every_tile_and_level_has_its_statics_margin_and_the_new_tiles_is_the_games(replayed):
    for prior, move, row in replayed:
        assert len(row["tile_margins_mm"]) == row["tiles"]
        assert row["tile_margins_mm"][-1] == pytest.approx(row["static_margin_mm"], abs=6e-4)  # event: 1 µm
        slots = [p.slot for p in prior.placements] + [move.slot]
        tower = TowerStatics(slots, np.asarray(row["poses"]), prior.setup.tile_spec.half_extents)
        np.testing.assert_allclose(row["level_margins_mm"], tower.level_margins * 1000, atol=1e-5)
        assert len(row["level_margins_mm"]) == len({s.floor for s in slots if s.side is not None})


@pytest.mark.slow
def test_a_seeded_subset_gets_the_fall_rate_over_fresh_hands(replayed):
    scenes = replayed
    chosen = [row for _, _, row in scenes if row["observed_hands"] is not None]
    assert 0 < len(chosen) < len(scenes)
    for prior, move, row in scenes:
        assert (row["observed_hands"] is not None) == chosen_for_hands(row["seed"], row["index"], 0.5)
        if row["observed_hands"] is not None:
            assert row["observed_hands"] == 3
            falls = observed_falls(prior, move, row["seed"], row["index"], 3)
            assert row["observed_falls"] == falls and row["observed_fall_rate"] == falls / 3
        else:
            assert row["observed_fall_rate"] is None


@pytest.mark.slow
def test_the_second_engine_judges_the_very_release_the_game_judged(replayed, labelled):
    """PyBullet as the 'second' engine must give the game's own verdict back, bit for bit."""
    sheet = (labelled / "DATASHEET.md").read_text()
    assert f"the second engine judged {len(replayed)} scenes and disagreed with the referee on 0 (0.0%)" in sheet
    assert f"; second engine pybullet {importlib.metadata.version('pybullet')}." in sheet
    for _, _, row in replayed:
        assert row["second_engine"] == "pybullet"
        assert row["second_engine_version"] == importlib.metadata.version("pybullet")
        assert row["second_fell"] == row["fell"]
        assert row["second_max_displacement_mm"] == row["max_displacement_mm"]
        assert row["second_max_rotation_deg"] == row["max_rotation_deg"]


@pytest.mark.slow
def test_mujoco_gives_its_own_verdict_on_the_same_release(replayed):
    pytest.importorskip("mujoco")
    scenes = replayed[:3]
    for prior, _, row in scenes:
        poses = np.asarray(row["poses"])
        verdict = second_verdict(prior, poses[-1], np.asarray(row["target_pose"]), "mujoco")
        assert verdict.engine == "mujoco" and isinstance(verdict.fell, bool)
        assert verdict.max_displacement_mm >= 0.0
    assert any(second_verdict(p, np.asarray(r["poses"])[-1], np.asarray(r["target_pose"]), "mujoco")
               .max_displacement_mm != r["max_displacement_mm"] for p, _, r in scenes)  # not PyBullet's


def test_no_labels_asked_leaves_the_columns_empty(tmp_path):
    spec_path = write_spec(tmp_path)
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(spec_path), ["seeds=1"]))
    build_dataset(spec, str(spec_path), tmp_path / "out", LocalRunner(workers=1))
    rows = read_scenes(tmp_path / "out").to_pylist()
    assert rows and all(r["second_engine"] is None and r["observed_hands"] is None for r in rows)
    assert all(r["fall_odds"] is not None and len(r["tile_margins_mm"]) == r["tiles"] for r in rows)


def test_an_unknown_second_engine_is_refused_naming_the_known_ones():
    with pytest.raises(OptionsError, match=r"second_engine 'havok': choose from \['mujoco', 'pybullet'\]"):
        validate_dataset_spec({"dataset": {"labels": {"second_engine": "havok"}}})
