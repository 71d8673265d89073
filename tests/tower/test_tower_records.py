"""Records with trajectories, replay verification, determinism across processes, the tall tower."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib

import numpy as np
import pytest

from pisa3d.core.errors import IllegalMoveError, RecordedOutcomeError
from pisa3d.core.events import Event
from pisa3d.core.match import play_match
from pisa3d.core.record import MAX_DEPTH, MAX_FILE_BYTES, MAX_JSON_BYTES, load_record, nesting_depth, save_record
from pisa3d.core.replay import verify_record
from pisa3d.games import get_game
from pisa3d.physics import Trajectory
from tests.processes import outputs_of_fresh_processes
from tests.tower.tile_sets import uniform_tile_set

GAME = get_game("tower")
QUIET_HANDS = {"noise_position_mm": 0.0, "noise_yaw_deg": 0.0, "noise_tilt_deg": 0.0}


def builders(n: int):
    return [GAME.agents["builder"](seat, GAME.options()) for seat in range(n)]


def test_each_placement_records_a_trajectory_of_the_tiles_standing():
    # (The save/load round trip and verification of every game's record: tests/contract/test_full_games.py.)
    outcome = play_match(GAME, [GAME.agents["random"](s, GAME.options()) for s in range(4)], seed=5)
    tiles_standing = 0
    for entry in outcome.record.moves:
        if entry.events[0].kind != "placed":
            assert entry.extras is None
            continue
        tiles_standing += 1
        trajectory = Trajectory.from_json(entry.extras["trajectory"])
        assert trajectory.num_frames >= 2 and trajectory.frames.shape[1] == tiles_standing
    assert tiles_standing > 0


def test_verify_reports_an_altered_move_by_index(tmp_path):
    options = {"tile_set": uniform_tile_set(tmp_path, 12)}
    outcome = play_match(GAME, builders(2), seed=2, options=options)
    record = outcome.record
    assert len(record.moves) >= 6
    entry = record.moves[5]
    move = GAME.parse_move(entry.move)
    turned = dataclasses.replace(move, rotation=(move.rotation + 1) % 4)
    altered = dataclasses.replace(entry, move=str(turned))
    record.moves[5] = altered
    report = verify_record(GAME, record)
    assert not report.ok
    assert report.divergences[0].move_index == 5


def test_verify_catches_an_edited_trajectory(tmp_path):
    outcome = play_match(GAME, builders(2), seed=2, options={"tile_set": uniform_tile_set(tmp_path, 8)})
    record = outcome.record
    record.moves[2].extras["trajectory"]["frames"][-1][0][0] += 0.001
    report = verify_record(GAME, record)
    assert [d.move_index for d in report.divergences] == [2]
    assert "trajectory" in report.divergences[0].message


_SUBPROCESS_GAME = """
import hashlib, json, sys
from pisa3d.core.errors import IllegalMoveError, RecordedOutcomeError
from pisa3d.core.events import Event
from pisa3d.core.match import play_match
from pisa3d.games import get_game
g = get_game("tower")
opts = {"tile_set": sys.argv[1]}
out = play_match(g, [g.agents["builder"](s, g.options(opts)) for s in range(3)], seed=11, options=opts)
print(hashlib.sha256(out.final_state.poses.tobytes()).hexdigest(), len(out.final_state.placements))
"""


def test_seeded_noisy_game_is_bitwise_identical_in_two_processes(tmp_path):
    tiles = uniform_tile_set(tmp_path, 24)
    results = [out.split()[-2:] for out in outputs_of_fresh_processes(_SUBPROCESS_GAME, tiles)]
    here = play_match(GAME, builders(3), seed=11, options={"tile_set": tiles}).final_state
    digest = hashlib.sha256(here.poses.tobytes()).hexdigest()
    assert results[0] == results[1] == [digest, str(len(here.placements))]
    assert len(here.placements) >= 5  # a real tower, not an early fall
    assert here.setup.options.noise_position_mm == 0.5  # the noise was on (careful hand)


@pytest.mark.slow
def test_noise_free_tall_tower_stands_to_the_end_and_its_record_is_small(tmp_path):
    """Builders place 45 tiles (9 full floors, about 0.58 m) without hand noise: every
    placement is legal and must stand; the last tile wins. The record stays well under 5 MB."""
    options = {"tile_set": uniform_tile_set(tmp_path, 48), **QUIET_HANDS}
    outcome = play_match(GAME, builders(4), seed=1, options=options)
    placed = [m.events[0].data for m in outcome.record.moves]
    assert all(e["fell"] is False for e in placed)
    assert max(e["max_displacement_mm"] for e in placed) < 2.0
    result = outcome.result
    assert result.details["outcome"] == "last_tile" and result.winners == (0,)
    assert result.details["placements"] == 45 and result.details["floors"] == 9
    assert result.details["height_mm"] > 570
    path = save_record(outcome.record, tmp_path / "tall.json")
    gz = save_record(outcome.record, tmp_path / "tall.json.gz")
    assert path.stat().st_size < 5_000_000
    assert gz.stat().st_size < path.stat().st_size
    assert verify_record(GAME, load_record(gz)).ok
    # The loading limits hold this longest real game with a hundredfold room (docs/records.md).
    assert path.stat().st_size * 100 < MAX_JSON_BYTES and gz.stat().st_size * 100 < MAX_FILE_BYTES
    assert nesting_depth(path.read_bytes()) * 4 <= MAX_DEPTH


def test_record_of_a_full_default_game_is_compact(tmp_path):
    """A whole default 4-player game (builders on the default set) stays far below 5 MB."""
    outcome = play_match(GAME, builders(4), seed=3)
    path = save_record(outcome.record, tmp_path / "game.json")
    size = path.stat().st_size
    per_tile = size / max(1, outcome.result.details["placements"])
    assert size < 5_000_000 and per_tile < 60_000, (size, per_tile)
    assert len(gzip.compress(path.read_bytes())) < size / 2


def test_release_poses_are_in_the_record_and_near_their_slot(tmp_path):
    outcome = play_match(GAME, builders(2), seed=3, options={"tile_set": uniform_tile_set(tmp_path, 8)})
    state = outcome.final_state
    releases = np.array([m.extras["release"] for m in outcome.record.moves])
    offsets = np.linalg.norm(releases[:, :3] - np.array(state.targets)[:, :3], axis=1)
    assert np.all(offsets < 0.006) and np.all(offsets > 0.0001)  # noise plus clearance, not zero


def test_a_fall_is_recorded_with_two_seconds_of_aftermath():
    agents = [GAME.agents["random"](s, GAME.options()) for s in range(4)]
    outcome = play_match(GAME, agents, seed=5)
    assert outcome.result.details["outcome"] == "fall"
    placed = [m for m in outcome.record.moves if m.extras is not None]
    last = Trajectory.from_json(placed[-1].extras["trajectory"])
    others = [Trajectory.from_json(m.extras["trajectory"]).duration for m in placed[:-1]]
    assert last.duration > 2.0 > max(others)
    # the tower keeps moving after the verdict (2 s = 60 frames before the end): it comes down
    assert np.abs(last.frames[-1] - last.frames[-61]).max() > 0.001
    assert verify_record(GAME, outcome.record).ok


def test_a_record_whose_outcome_the_rules_cannot_take_is_named_so_and_simulates_nothing(monkeypatch):
    state, _ = GAME.new_game(2, 1)
    monkeypatch.setattr(type(state.judge), "settle", lambda *args, **kwargs: pytest.fail("simulated"))
    move = GAME.parse_move("W0N")
    with pytest.raises(RecordedOutcomeError, match="the record has no 'placed' event"):
        state.apply_recorded(move, [], None)
    placed = Event("placed", {"fell": "no"})
    with pytest.raises(RecordedOutcomeError, match="'fell' must be true or false"):
        state.apply_recorded(move, [placed], None)
    events = state.apply_recorded(move, [Event("placed", {"fell": False, "steps": 7})], None)
    assert events[0].data["steps"] == 7 and state.poses[0].tolist() == state.targets[0].tolist()
    assert isinstance(RecordedOutcomeError("x"), IllegalMoveError)  # code catching bad moves still does
