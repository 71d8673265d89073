"""Speeding up the statics judge and the bots changes no game: seeded games replay the fixture's
moves, margins and rankings bit for bit (tests/tower/bot_regression.py), and the judge gives the
same floats as the judge of commit e32b8e4 (tests/tower/statics_reference.py) on settled towers
from real games and on messy ones (tiles shifted and tilted, some far off their slots)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pisa3d.games.tower.rules.structure import Placement, Structure
from pisa3d.games.tower.rules.tiles import Face
from pisa3d.games.tower.statics.statics import TowerStatics, placement_margin
from pisa3d.physics.poses import quat_from_axis_angle, quat_multiply
from tests.tower import statics_reference as reference
from tests.tower.bot_regression import FAST_CASES, FIXTURE, SLOW_CASES, play
from tests.tower.test_tower_statics import HALF, SETUP, _random_tower, nominal_poses

PINNED = json.loads(FIXTURE.read_text())["games"]
_TOWERS: list[tuple[list, np.ndarray]] = []  # settled towers of the fast games, for the judge checks


def _check_game(case) -> None:
    got, want = play(case, _TOWERS), PINNED[case.key]
    assert got["moves"] == want["moves"], case.key
    assert got["event_margins_mm"] == want["event_margins_mm"], case.key
    assert got["raw_margins"] == want["raw_margins"], case.key
    assert got["ranking_digests"] == want["ranking_digests"], case.key


@pytest.mark.parametrize("case", FAST_CASES, ids=lambda c: c.key)
def test_seeded_games_replay_the_pinned_moves_margins_and_rankings(case):
    _check_game(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW_CASES, ids=lambda c: c.key)
def test_whole_seeded_games_replay_the_pinned_moves_margins_and_rankings(case):
    _check_game(case)


def _same(got, want) -> None:
    assert [float(x).hex() for x in np.ravel(got)] == [float(x).hex() for x in np.ravel(want)]


def _messy(rng: np.random.Generator, poses: np.ndarray) -> np.ndarray:
    """Poses shifted and tilted a little, a few tiles a lot (off their supports, on edge)."""
    poses = poses.copy()
    poses[:, :2] += rng.normal(0, 0.001, (len(poses), 2))
    far = rng.random(len(poses)) < 0.1
    poses[far, :2] += rng.normal(0, 0.02, (int(far.sum()), 2))
    for pose, big in zip(poses, rng.random(len(poses)) < 0.05, strict=True):
        turn = quat_from_axis_angle(rng.normal(size=3), np.radians(rng.normal(0, 60 if big else 0.5)))
        pose[3:] = quat_multiply(turn, pose[3:])
    return poses


def _judge_both(slots, poses, rng: np.random.Generator) -> int:
    """The new and the old judge on one tower: every group's margin, a placement's margin, and
    with_added for every single and double addition the rules' slots allow (any tile)."""
    new, old = TowerStatics(slots, poses, HALF), reference.TowerStatics(slots, poses, HALF)
    _same(new.margins, old.margins)
    structure_slots = list(slots)
    structure = Structure([Placement(i, Face.WHITE, s, 0, 0, (0, 0, 0, 0)) for i, s in enumerate(slots)])
    candidates = [s for s in structure.candidate_slots() if structure.slot_rules(s, SETUP.rules).legal]
    hypotheticals = []
    for slot in candidates:
        pose = nominal_poses([*structure_slots, slot])[-1]
        pose[:2] += rng.normal(0, 0.0005, 2)
        _same(placement_margin(slots, poses, slot, pose, HALF), reference.placement_margin(slots, poses, slot, pose,
                                                                                            HALF))
        hypotheticals.append([(slot, pose)])
        after = Structure([*structure.placements, Placement(-1, Face.WHITE, slot, 0, 0, (0, 0, 0, 0))])
        for nxt in [s for s in after.candidate_slots() if after.slot_rules(s, SETUP.rules).legal]:
            hypotheticals.append([(slot, pose), (nxt, nominal_poses([*structure_slots, slot, nxt])[-1])])
    got, want = new.with_added(hypotheticals), old.with_added(hypotheticals)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        _same(g, w)
    return len(hypotheticals)


def test_the_judge_gives_the_old_judges_floats_on_settled_and_messy_towers():
    if not _TOWERS:  # run apart from the game tests (another worker): two games' settled towers
        for case in FAST_CASES[:2]:
            play(case, _TOWERS)
    rng = np.random.default_rng(2026)
    towers = _TOWERS[::3] + [(slots, _messy(rng, poses)) for slots, poses in _TOWERS[1::3]]
    for size in (0, 1, 2, 4, 5, 7, 11, 16, 23, 30, 41, 48):
        structure, poses = _random_tower(rng, size)
        towers.append(([p.slot for p in structure.placements], _messy(rng, poses)))
    checked = sum(_judge_both(slots, poses, rng) for slots, poses in towers)
    assert len(towers) > 30 and checked > 300
