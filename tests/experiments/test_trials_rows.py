"""Trials are self-contained with stable keys; rows say what the game's events say."""

from __future__ import annotations

import json

import numpy as np

from pisa3d.experiments.runners import play_trial
from pisa3d.experiments.spec import validate_spec
from pisa3d.experiments.trials import expand_trials
from tests.processes import outputs_of_fresh_processes
from tests.tower.tile_sets import uniform_tile_set

KEY_SCRIPT = """
import json, sys
from pisa3d.experiments.spec import validate_spec
from pisa3d.experiments.trials import expand_trials
from pisa3d.experiments.runners import play_trial
spec = validate_spec({"game": "tower", "players": 3, "seeds": 2, "options": {"record_trajectories": False},
                      "sweep": {"noise_position_mm": [2.0, 3.0]}})
trials = expand_trials(spec)
rows = play_trial(trials[-1].to_json())
rows["game"].pop("wall_s")
print(json.dumps([[t.key for t in trials], rows], sort_keys=True))
"""


def test_keys_and_rows_are_the_same_in_fresh_processes():
    first, second = outputs_of_fresh_processes(KEY_SCRIPT)
    assert first == second
    keys, rows = json.loads(first)
    assert len(set(keys)) == 4 and rows["placements"]


def test_keys_follow_the_resolved_game_not_how_it_was_written():
    base = {"game": "tower", "players": 3, "seeds": 2}
    plain = expand_trials(validate_spec(base))
    written_out = expand_trials(validate_spec({**base, "options": {"noise_position_mm": 0.5,  # the careful default
                                                                   "record_trajectories": False}}))
    assert [t.key for t in plain] == [t.key for t in written_out]
    other = expand_trials(validate_spec({**base, "options": {"noise_position_mm": 0.9}}))
    assert not {t.key for t in plain} & {t.key for t in other}
    trial = plain[0].to_json()
    assert trial["options"]["tile_set"] and trial["options"]["noise_yaw_deg"] == 0.5  # every default filled in


def test_rotated_seats_put_each_agent_in_each_seat_equally():
    spec = validate_spec({"game": "cards", "players": 4, "agents": ["heuristic", "random"], "rotate_seats": True,
                          "seeds": 8})
    trials = expand_trials(spec)
    seats = [[a.name for a in t.seating] for t in trials]
    assert all(s.count("heuristic") == 2 for s in seats)
    for seat in range(4):
        assert sum(s[seat] == "heuristic" for s in seats) == 4
    fixed = expand_trials(validate_spec({**spec.to_json(), "rotate_seats": False}))
    assert all([a.name for a in t.seating] == ["heuristic", "random"] * 2 for t in fixed)


def _independent_kind(slot: str, occupied: set[str]) -> str:
    """The placement kind worked out from slot names alone (a second implementation)."""
    floor = int(slot[1:-1]) if slot[0] == "W" else int(slot[1:])
    if slot[0] == "W":
        if floor == 0:
            return "wall_on_table"
        return "wall_on_ceiling" if f"C{floor - 1}" in occupied else "wall_on_wall"
    walls = [s[-1] for s in occupied if s[0] == "W" and int(s[1:-1]) == floor]
    if len(walls) == 2:
        return "ceiling_on_2_opposite" if set(walls) in ({"N", "S"}, {"E", "W"}) else "ceiling_on_2_neighbouring"
    return f"ceiling_on_{len(walls)}"


def _small_tower(tmp_path, agents, players, noise, seeds, **options):
    """Games on a 12-tile set whose edges all match: short games, and every kind of placement."""
    return validate_spec({"game": "tower", "players": players, "agents": agents, "seeds": seeds,
                          "options": {"record_trajectories": False, "tile_set": uniform_tile_set(tmp_path, 12),
                                      "noise_position_mm": noise, **options}})


def test_tower_rows_agree_with_the_games_events(tmp_path):
    specs = [_small_tower(tmp_path, ["builder"], 2, 0.0, 2), _small_tower(tmp_path, ["random"], 3, 1.5, 8)]
    kinds_seen = set()
    outcomes = set()
    for trial in [t for spec in specs for t in expand_trials(spec)]:
        rows = play_trial(trial.to_json())
        game, placements = rows["game"], rows["placements"]
        outcomes.add(game["outcome"])
        assert game["placements"] == len(placements) > 0
        assert game["fell"] == any(p["fell"] for p in placements) == (game["outcome"] == "fall")
        assert game["physics_steps"] == sum(p["steps"] for p in placements)
        assert [p["index"] for p in placements] == list(range(len(placements)))
        if game["outcome"] == "fall":
            assert placements[-1]["fell"] and not any(p["fell"] for p in placements[:-1])
            assert game["placer"] == placements[-1]["player"]
        occupied: set[str] = set()
        for p in placements:
            assert p["kind"] == _independent_kind(p["slot"], occupied), (p, occupied)
            occupied.add(p["slot"])
            kinds_seen.add(p["kind"])
    assert {"wall_on_table", "ceiling_on_4", "wall_on_ceiling"} <= kinds_seen, kinds_seen
    assert len(kinds_seen) >= 5 and {"fall", "last_tile"} <= outcomes


def test_hand_offset_is_the_drawn_noise(tmp_path):
    offsets = {}
    for noise, seeds in ((0.0, 3), (2.0, 10)):
        spec = _small_tower(tmp_path, ["random"], 4, noise, seeds, fall_distance_mm=50.0, fall_angle_deg=60.0,
                            noise_yaw_deg=0.0, noise_tilt_deg=0.0)
        rows = [p for trial in expand_trials(spec) for p in play_trial(trial.to_json())["placements"]]
        offsets[noise] = np.array([p["hand_offset_mm"] for p in rows])
    steady, shaky = offsets[0.0], offsets[2.0]
    assert np.median(steady) < 0.01
    # x and y each drawn with sigma 2 mm: the offset across the table is Rayleigh, mean sigma sqrt(pi / 2).
    assert len(shaky) >= 50
    assert abs(shaky.mean() / (2.0 * np.sqrt(np.pi / 2)) - 1) < 0.2


def test_a_played_trial_leaves_no_physics_world_but_the_shared_engines(tmp_path):
    """Rows leave a trial as plain data and a finished game holds no world: the only clients open
    after trials are the process's shared engines (pisa3d.physics.shared_engine), which the next
    trial reuses, so a worker does not gain a client per trial; closing them leaves none open.
    Whatever ran before in this process (the pool is emptied first)."""
    import pybullet as pb

    from pisa3d.physics import close_shared_engines

    def open_clients() -> set[int]:
        return {i for i in range(256) if pb.getConnectionInfo(physicsClientId=i)["isConnected"]}

    close_shared_engines()
    before = open_clients()
    spec = _small_tower(tmp_path, ["cautious:max_candidates=2,hand_samples=1"], 2, 1.0, 3)
    after = []
    for trial in expand_trials(spec):
        rows = play_trial(trial.to_json())
        assert set(rows) == {"key", "game", "placements"}  # plain rows, no state or outcome
        after.append(open_clients())
    assert len(after) == 3 and after[0] > before  # the games did use physics
    assert after[1] == after[2] == after[0]  # reused, none added per trial
    close_shared_engines()
    assert open_clients() == before  # every client a trial left open was a shared engine's
