"""``pisa3d play tower`` end to end, and ``pisa3d replay verify`` on its record."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.errors import PisaError
from pisa3d.core.record import load_record

RUNNER = CliRunner()


def test_play_prints_placements_and_the_end_and_writes_a_record(tmp_path):
    record = tmp_path / "game.json.gz"
    result = RUNNER.invoke(app, ["play", "tower", "--players", "4", "--seed", "3", "--record", str(record)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "player 1 puts tile" in out and "W0" in out and "largest move" in out
    assert "Winners:" in out and "mm high" in out and "floor(s)" in out
    loaded = load_record(record)
    assert loaded.header["game"] == "tower" and loaded.moves
    verify = RUNNER.invoke(app, ["replay", "verify", str(record)])
    assert verify.exit_code == 0 and "OK" in verify.output


def test_options_reach_the_game(tmp_path):
    record = tmp_path / "calm.json"
    result = RUNNER.invoke(app, ["play", "tower", "-n", "2", "--seed", "1", "--noise-mm", "0", "--yaw-deg", "0",
                                 "--tilt-deg", "0", "--set", "clearance_mm=0.3", "--record", str(record), "-q"])
    assert result.exit_code == 0, result.output
    options = load_record(record).options
    assert options["noise_position_mm"] == 0.0 and options["clearance_mm"] == 0.3
    assert "puts tile" not in result.output  # quiet: only the end


def test_user_mistakes_are_one_line_errors():
    proc = subprocess.run([sys.executable, "-c", "from pisa3d.cli import main; main()", "play", "tower",
                           "--set", "noise=1"], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert "unknown option 'noise'" in proc.stderr and "Traceback" not in proc.stderr
    for args, needle in (
        (["--agent", "genius"], "choose from random, careful, safest, daring, cautious, spoiler"),
        (["--players", "9"], "give a whole number from 2 to 8"),
        (["--tiles", "nowhere.json"], "tile set 'nowhere.json' not found"),
        (["--fall-mm", "-1"], "fall_distance_mm"),
    ):
        result = RUNNER.invoke(app, ["play", "tower", *args])
        assert isinstance(result.exception, PisaError), (args, result.output)
        assert needle in str(result.exception)


def test_help_teaches():
    result = RUNNER.invoke(app, ["play", "tower", "--help"])
    assert result.exit_code == 0
    for word in ("--agent", "cautious", "--record", "--noise-mm", "--tiles", "--fall-mm", "--set", "--human"):
        assert word in result.output


def test_verify_explains_why_a_record_of_an_earlier_version_diverges(tmp_path):
    """Records of pisa3d before 0.2.0 depended on the CPU's BLAS kernel in the last bits, so this
    version re-plays them otherwise: `verify` says so after the divergence, and only for them."""
    from pisa3d import __version__
    from pisa3d.core.match import play_match
    from pisa3d.core.record import save_record
    from pisa3d.games import get_game

    game = get_game("tower")
    record = play_match(game, [game.agents["random"](seat, game.options()) for seat in range(2)], seed=4).record
    record.moves[1].extras["trajectory"]["frames"][-1][0][0] += 0.00001  # as a last bit grown by the physics
    for made_by, noted in (("0.1.0", True), (__version__, False)):
        path = save_record(dataclasses.replace(record, header={**record.header, "pisa3d_version": made_by}),
                           tmp_path / f"made-by-{made_by}.json")
        verify = RUNNER.invoke(app, ["replay", "verify", str(path)])
        assert verify.exit_code == 1 and "DIVERGES at move 2" in verify.output
        assert ("note: this record was made by pisa3d 0.1.0" in verify.output) is noted, verify.output
        assert ("BLAS" in verify.output) is noted


def test_only_versions_before_the_portable_physics_are_called_older():
    from pisa3d.games.tower.game import PORTABLE_SINCE, _older_than

    assert PORTABLE_SINCE == "0.2.0"
    assert _older_than("0.1.0", "0.2.0") and _older_than("0.1", "0.2.0") and _older_than("0.1.9", "0.2.0")
    assert not _older_than("0.2.0", "0.2.0") and not _older_than("1.0.0", "0.2.0")
    assert not _older_than("", "0.2.0") and not _older_than("dev", "0.2.0")


def test_verify_explains_why_a_mujoco_record_of_an_earlier_version_diverges(tmp_path):
    """MuJoCo's release and contacts changed in 0.3.0: a MuJoCo record made before says why it
    diverges; a PyBullet record of the same version, and a MuJoCo record of today, get no such note."""
    from pisa3d import __version__
    from pisa3d.games.tower.game import MUJOCO_REVISED_IN, TowerGame

    game = TowerGame()
    assert MUJOCO_REVISED_IN == "0.3.0"
    for engine, made_by, noted in (("mujoco", "0.2.0", True), ("pybullet", "0.2.0", False),
                                   ("mujoco", __version__, False)):
        note = game.divergence_note({"pisa3d_version": made_by, "options": {"physics": engine}})
        assert (note is not None and "MuJoCo" in note and made_by in note) is noted, (engine, made_by, note)
    assert "BLAS" in game.divergence_note({"pisa3d_version": "0.1.0", "options": {"physics": "mujoco"}})


@pytest.mark.slow  # plays and re-plays whole games: about 40 s
def test_a_record_made_before_the_hand_let_go_slowly_verifies_as_played(tmp_path):
    """0.4.0 lets go of a new tile over ``release_time``; a record of 0.3.0 has no such parameter and
    was played letting go at once: it verifies, as played. The same header claiming 0.4.0 gets
    today's release and diverges."""
    from pisa3d.core.match import play_match
    from pisa3d.core.record import save_record
    from pisa3d.games import get_game
    from pisa3d.games.tower.game import LETTING_GO_SINCE

    assert LETTING_GO_SINCE == "0.4.0"
    game = get_game("tower")
    for seed, players, hand in ((4, 2, "careful"), (7, 3, "casual"), (11, 4, "shaky")):
        options = game.options({"hand": hand, "physics_params": {"release_time": 0.0}})
        record = play_match(game, [game.agents["random"](seat, options) for seat in range(players)], seed=seed,
                            options=options).record
        old_options = {**record.header["options"]}
        old_options["physics_params"] = {k: v for k, v in old_options["physics_params"].items()
                                         if k != "release_time"}
        for made_by, verifies in (("0.3.0", True), (LETTING_GO_SINCE, False)):
            header = {**record.header, "pisa3d_version": made_by, "options": old_options}
            path = save_record(dataclasses.replace(record, header=header), tmp_path / f"{seed}-{made_by}.json")
            verify = RUNNER.invoke(app, ["replay", "verify", str(path)])
            assert (verify.exit_code == 0) is verifies, (seed, made_by, verify.output)
