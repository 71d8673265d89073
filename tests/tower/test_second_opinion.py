"""The referee's second opinion: a fall of a tile that statics holds by ``second_opinion_mm`` or
more is judged again by the other engine, whose verdict stands (docs/tower-physics.md, "The second
opinion"). Real PyBullet and MuJoCo throughout, on a captured scene of issue 41 and on a seeded game
whose verdict the second engine changes."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.core.match import play_match
from pisa3d.core.replay import verify_record
from pisa3d.games import get_game
from pisa3d.games.tower.presentation.narration import describe_placed
from pisa3d.games.tower.referee.judges import EngineJudge, verdict_engine
from pisa3d.games.tower.rules.options import TowerOptions
from pisa3d.games.tower.rules.setup import build_setup
from pisa3d.physics import make_engine
from pisa3d.physics.captured import CapturedScene
from tests.processes import outputs_of_fresh_processes

GAME = get_game("tower")
FIXTURES = Path(__file__).parent.parent / "physics" / "fixtures"
SCENE = CapturedScene.load(FIXTURES / "pybullet_only_fall_careful_mixed_40004_20.json")
OVERRULED = {"seed": 10, "options": {"hand": "casual"}}  # two random bots: MuJoCo holds W2S (+0.855 mm)


def judge(**options) -> EngineJudge:
    setup = build_setup(TowerOptions(**options))
    assert np.allclose(setup.tile_spec.half_extents, SCENE.tile.half_extents), "captured with the default tiles"
    return EngineJudge(setup)


def settle(referee: EngineJudge, margin_mm: float, release: np.ndarray | None = None):
    release = SCENE.released_by("pybullet") if release is None else release
    asked = []

    def margin() -> float:
        asked.append(True)
        return margin_mm / 1000.0

    return referee.settle(SCENE.states, release, SCENE.target, margin=margin), asked


def test_pybullet_alone_topples_the_scene_that_the_referee_holds_on_mujoco_s_word() -> None:
    alone, _ = settle(judge(second_opinion_mm=None), SCENE.static_margin_mm("pybullet"))
    assert alone.fell and alone.second_opinion is None, "the premise: PyBullet alone topples this scene"
    held, asked = settle(judge(), SCENE.static_margin_mm("pybullet"))
    assert asked and not held.fell
    assert held.second_opinion == ("mujoco", False)
    assert held.max_displacement * 1000 < 2.0  # MuJoCo's resting tower, not PyBullet's toppled one
    assert np.linalg.norm(held.states[:, :3] - alone.states[:, :3], axis=1).max() > 0.005


def test_a_fall_statics_does_not_hold_by_the_margin_is_the_engine_s_alone() -> None:
    verdict, asked = settle(judge(), 0.29)  # below the 0.3 mm default: no second opinion
    assert asked and verdict.fell and verdict.second_opinion is None


def test_a_fall_the_second_engine_sees_too_stays_a_fall() -> None:
    release = SCENE.released_by("pybullet").copy()
    release[:2] += 0.02  # 20 mm off its support: it comes down in both engines
    verdict, _ = settle(judge(), 1.0, release)  # a margin said to be large, so the second engine is asked
    assert verdict.fell and verdict.second_opinion == ("mujoco", True)


def test_a_stand_is_never_questioned() -> None:
    held = CapturedScene.load(FIXTURES / "pybullet_only_fall_careful_careful_30205_32.json")  # held since 0.6.0
    verdict = judge().settle(held.states, held.released_by("pybullet"), held.target,
                             margin=lambda: pytest.fail("statics asked about a stand"))
    assert not verdict.fell and verdict.second_opinion is None


def test_the_second_engine_is_the_other_one_and_named_with_every_parameter() -> None:
    assert TowerOptions().second_physics == "mujoco"
    assert TowerOptions(physics="mujoco").second_physics == "pybullet"
    resolved = TowerOptions(second_physics_params={"timestep": 0.001}).second_physics_params
    assert resolved == {**make_engine("mujoco").describe()["params"], "timestep": 0.001}
    with pytest.raises(OptionsError, match="another engine than physics='pybullet'; allowed: 'mujoco'"):
        TowerOptions(second_physics="pybullet")
    with pytest.raises(OptionsError, match="unknown physics engine 'bullet'; known engines: mujoco, pybullet"):
        TowerOptions(second_physics="bullet")


def overruled_game(seed: int = OVERRULED["seed"]):
    agents = [GAME.agents["random"](seat, GAME.options(OVERRULED["options"])) for seat in range(2)]
    return play_match(GAME, agents, seed=seed, options=OVERRULED["options"])


def test_a_game_notes_the_second_opinion_and_verifies_with_it() -> None:
    record = overruled_game().record
    placed = [e.data for m in record.moves for e in m.events if e.kind == "placed"]
    noted = [d for d in placed if "second_opinion" in d]
    assert noted == [d for d in placed if d.get("second_opinion") == {"engine": "mujoco", "fell": False}]
    assert len(noted) == 1 and noted[0]["static_margin_mm"] >= 0.3 and not noted[0]["fell"]
    assert "mujoco was asked: it holds it" in describe_placed(noted[0])
    # the dataset's and the experiments' referee_engine column
    assert [verdict_engine("pybullet", d) for d in placed].count("mujoco") == 1
    assert verdict_engine("pybullet", noted[0]) == "mujoco"
    assert verdict_engine("pybullet", {"second_opinion": {"engine": "mujoco", "fell": True}}) == "pybullet"
    assert verify_record(GAME, record).ok
    # Without the second opinion the same moves no longer give the same game.
    alone = copy.deepcopy(record)
    alone.header["options"]["second_opinion_mm"] = None
    assert not verify_record(GAME, alone).ok


def test_a_record_of_0_7_replays_without_the_second_opinion() -> None:
    """Records made before 0.8.0 let the engine alone decide: their options gain no second opinion."""
    options = GAME.record_options({"pisa3d_version": "0.7.0", "options": {"hand": "casual"}})
    assert options["second_opinion_mm"] is None
    assert "second_opinion_mm" not in GAME.record_options({"pisa3d_version": "0.8.0", "options": {}})


ASKED = (5, 10, 16, 23, 24, 33)  # casual, 2 random bots: MuJoCo holds the tower in four, confirms the fall in two


def digests(seeds: tuple[int, ...]) -> list[str]:
    """Per game, a digest of its moves and events, then what each second opinion said (H: the
    second engine held the tower, C: it confirmed the fall)."""
    out = []
    for seed in seeds:
        record = overruled_game(seed).record
        notes = "".join("C" if e.data["second_opinion"]["fell"] else "H" for m in record.moves for e in m.events
                        if e.kind == "placed" and "second_opinion" in e.data)
        moves = json.dumps(record.to_json()["moves"], sort_keys=True).encode()
        out.append(f"{hashlib.sha256(moves).hexdigest()}:{notes}")
    return out


_SUBPROCESS_GAMES = """
from tests.tower.test_second_opinion import ASKED, digests
print(" ".join(digests(ASKED)))
"""


@pytest.mark.slow  # 18 games in three processes: about a minute
def test_games_with_second_opinions_are_the_same_in_other_processes() -> None:
    here = digests(ASKED)
    notes = "".join(d.split(":")[1] for d in here)
    assert all(d.split(":")[1] for d in here), f"every seed must ask the second engine: {here}"
    assert "H" in notes and "C" in notes, notes  # it held some towers and confirmed some falls
    assert [out.split() for out in outputs_of_fresh_processes(_SUBPROCESS_GAMES)] == [here, here]
