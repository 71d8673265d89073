"""A tower game judged by MuJoCo (``--set physics=mujoco``): its record names the engine and every
parameter, replays and verifies, and the web page and video work from its engine-neutral
trajectories."""

from __future__ import annotations

import copy

import pytest

pytest.importorskip("mujoco")

from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.match import play_match
from pisa3d.core.record import load_record
from pisa3d.core.replay import verify_record
from pisa3d.games import get_game
from pisa3d.physics import Trajectory, make_engine, other_engine
from pisa3d.physics.mujoco_params import MujocoParams

RUNNER = CliRunner()
GAME = get_game("tower")


@pytest.mark.slow
def test_a_mujoco_record_names_the_engine_replays_verifies_and_exports(tmp_path):
    record = tmp_path / "mujoco.json.gz"
    played = RUNNER.invoke(app, ["play", "tower", "-n", "2", "--seed", "4", "--set", "physics=mujoco",
                                 "--set", 'physics_params={"iterations": 60}', "--record", str(record), "-q"])
    assert played.exit_code == 0, played.output
    loaded = load_record(record)
    assert loaded.options["physics"] == "mujoco"
    assert loaded.options["physics_params"] == MujocoParams.from_data({"iterations": 60}).to_json()
    frames = [Trajectory.from_json(m.extras["trajectory"]) for m in loaded.moves if m.extras]
    assert frames and all(t.hz == pytest.approx(30.0) for t in frames)
    verify = RUNNER.invoke(app, ["replay", "verify", str(record)])
    assert verify.exit_code == 0 and "OK" in verify.output, verify.output
    page, film = tmp_path / "game.html", tmp_path / "game.gif"
    exported = RUNNER.invoke(app, ["export", str(record), "--html", str(page), "--video", str(film),
                                   "--width", "96", "--height", "72", "--fps", "5", "--speed", "8",
                                   "--hold", "0.2", "--renderer", "tiny"])
    assert exported.exit_code == 0, exported.output
    assert page.stat().st_size > 10_000 and film.stat().st_size > 1_000


def test_a_record_verifies_only_with_the_engine_that_made_it():
    """The verdicts come from the engine the options name: a MuJoCo game verifies, the same record
    relabelled as PyBullet's does not (the trajectories differ)."""
    agents = [GAME.agents["builder"](seat, GAME.options()) for seat in range(2)]
    mujoco = play_match(GAME, agents, seed=7, options={"physics": "mujoco"})
    report = verify_record(GAME, mujoco.record)
    assert report.ok, report.divergences
    as_pybullet = load_record_as(mujoco.record, physics="pybullet")
    assert not verify_record(GAME, as_pybullet).ok


def load_record_as(record, physics: str):
    other = copy.deepcopy(record)
    other.header["options"]["physics"] = physics
    other.header["options"]["physics_params"] = make_engine(physics).describe()["params"]
    second = other_engine(physics)  # the second opinion comes from the other engine
    other.header["options"]["second_physics"] = second
    other.header["options"]["second_physics_params"] = make_engine(second).describe()["params"]
    return other
