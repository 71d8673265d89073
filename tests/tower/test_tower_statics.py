"""The statics judge: hulls and margins against independent computations, the windmill's known
margins, incremental judging equal to judging from scratch, and the margin in placement events."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from pisa3d.games import get_game
from pisa3d.games.tower.rules.geometry import Side
from pisa3d.games.tower.rules.setup import build_setup
from pisa3d.games.tower.rules.structure import Placement, Slot, Structure
from pisa3d.games.tower.rules.tiles import Face
from pisa3d.games.tower.statics.statics import TowerStatics, convex_hulls, hull_margins
from pisa3d.physics.poses import quat_from_axis_angle, quat_multiply
from tests.tower.tile_sets import uniform_tile_set

GAME = get_game("tower")
SETUP = build_setup(GAME.options())
LAYOUT = SETUP.layout
HALF = SETUP.tile_spec.half_extents
A, T = LAYOUT.side, LAYOUT.thickness


def nominal_poses(slots: list[Slot]) -> np.ndarray:
    if not slots:
        return np.zeros((0, 7))
    ceilings = {s.floor for s in slots if s.side is None}
    top = max(s.floor for s in slots) + 1
    bases = LAYOUT.floor_base_heights([k in ceilings for k in range(top)], top)
    return np.array([LAYOUT.ceiling_pose(bases[s.floor], Face.WHITE, 0) if s.side is None
                     else LAYOUT.wall_pose(bases[s.floor], s.side, Face.BLACK, 1) for s in slots])


def judged(slots: list[Slot], poses: np.ndarray | None = None) -> TowerStatics:
    return TowerStatics(slots, nominal_poses(slots) if poses is None else poses, HALF)


# --- hulls and signed distances against scipy and brute force ---------------------------------
def _reference_margin(point: np.ndarray, pts: np.ndarray) -> float:
    hull = ConvexHull(pts)
    corners = pts[hull.vertices]  # counter-clockwise in 2-D
    edges = np.roll(corners, -1, 0) - corners
    rel = point - corners
    inside = float(np.min((edges[:, 0] * rel[:, 1] - edges[:, 1] * rel[:, 0]) / np.linalg.norm(edges, axis=1)))
    if inside >= 0:
        return inside
    gaps = []
    for e, c in zip(edges, corners, strict=True):
        along = np.clip((point - c) @ e / (e @ e), 0, 1)
        gaps.append(np.linalg.norm(point - c - along * e))
    return -min(gaps)


def test_hull_margins_match_scipy_on_many_random_point_sets():
    rng = np.random.default_rng(7)
    sets, masks, targets, expected = [], [], [], []
    for _ in range(300):
        count = int(rng.integers(3, 20))
        pts = rng.normal(0, 0.02, (count, 2)) * rng.uniform(0.1, 1, 2)
        pts = np.concatenate([pts, pts[: int(rng.integers(0, 4))]])  # exact duplicates too
        target = rng.normal(0, 0.02, 2)
        padded = np.zeros((24, 2))
        padded[: len(pts)] = pts
        order = rng.permutation(24)
        sets.append(padded[order])
        masks.append((np.arange(24) < len(pts))[order])
        targets.append(target)
        expected.append(_reference_margin(target, pts))
    hulls, counts = convex_hulls(np.array(sets), np.array(masks))
    got = hull_margins(hulls, counts, np.array(targets))
    assert np.allclose(got, expected, atol=1e-12)


def test_a_degenerate_region_has_no_inside():
    line = np.array([[[0.0, 0.0], [0.01, 0.0], [0.02, 0.0], [0.0, 0.0]]])
    hulls, counts = convex_hulls(line, np.ones((1, 4), dtype=bool))
    assert counts[0] == 2
    assert hull_margins(hulls, counts, np.array([[0.01, 0.0]]))[0] == pytest.approx(0.0, abs=1e-15)
    assert hull_margins(hulls, counts, np.array([[0.01, 0.003]]))[0] == pytest.approx(-0.003)


# --- the windmill's margins (docs/tower.md) ------------------------------------------------------
def test_walls_on_anything_stand_t_over_2_inside():
    slots = [Slot(0, s) for s in Side] + [Slot(1, s) for s in Side] + [Slot(1)] + [Slot(2, s) for s in Side]
    tower = judged(slots)
    walls = [i for i, s in enumerate(slots) if s.side is not None]
    # floor 0's walls carry the wall above each (no ceiling between): a column, still t/2 inside
    assert tower.groups[0].members == (1 << 0) | (1 << 4)
    assert np.allclose(tower.tile_margins[walls], T / 2)


@pytest.mark.parametrize("pair", [(Side.N, Side.E), (Side.E, Side.S), (Side.S, Side.W), (Side.W, Side.N)])
def test_a_ceiling_on_two_neighbouring_walls_is_the_thin_case_and_a_wall_on_its_far_side_topples(pair):
    slots = [Slot(0, s) for s in pair] + [Slot(0)]
    tower = judged(slots)
    assert tower.tile_margins[2] * 1000 == pytest.approx(1.3607, abs=1e-3)
    far = [s for s in Side if s not in pair]
    for side in far:
        trap = judged([*slots, Slot(1, side)])
        assert trap.tile_margins[2] < -0.005  # the ceiling with the far wall on it tips over
        assert trap.margin_of(3) < -0.005
    for side in pair:  # over a wall below, the same wall stands
        assert judged([*slots, Slot(1, side)]).margin_of(3) > 0


def test_wall_on_wall_margin_is_half_the_thickness_minus_the_offset_whatever_the_yaw():
    rng = np.random.default_rng(3)
    for _ in range(40):
        side = Side(int(rng.integers(4)))
        slots = [Slot(0, side), Slot(1, side)]
        poses = nominal_poses(slots)
        offset = rng.uniform(-1.5 * T, 1.5 * T)
        outward = LAYOUT.wall_outward[side]
        poses[1, :3] += offset * outward
        yaw = quat_from_axis_angle([0, 0, 1], np.radians(rng.uniform(-3, 3)))
        poses[1, 3:] = quat_multiply(yaw, poses[1, 3:])
        margin = judged(slots, poses).tile_margins[1]
        if abs(offset) < T / 2 - 1e-4:
            # Turned about its centre, the upper wall's bottom face still covers the centre
            # line, so the nearest edge is the lower wall's (t/2 - |offset|) or its own (t/2).
            assert margin == pytest.approx(T / 2 - abs(offset), abs=2e-6)
        else:
            assert margin <= 1e-6


def test_levels_hold_everything_above_them():
    slots = [Slot(0, s) for s in Side] + [Slot(0)] + [Slot(1, Side.N), Slot(1, Side.E), Slot(1)]
    tower = judged(slots)
    assert len(tower.level_margins) == 2
    names = [g.name for g in tower.groups]
    assert names[-2:] == ["floor 0 and above", "floor 1 and above"]
    ceiling = slots.index(Slot(0))
    assert tower.groups[ceiling].members == sum(1 << i for i in range(ceiling, len(slots)))
    assert tower.margin_of(len(slots) - 1) == pytest.approx(min(tower.margins[[len(slots) - 1, ceiling, 8, 9]]))


def test_the_weakest_group_holding_a_wall_can_be_a_column_rooted_floors_below():
    """Each wall of a leaning column sits 0.3 t outward of the one below (each stands on its own),
    but walls 1-3 together lean 0.6 t past wall 0's middle: the column rooted at W1N is what tips."""
    slots = [Slot(floor, Side.N) for floor in range(4)]
    poses = nominal_poses(slots)
    for floor in range(4):
        poses[floor, :3] += 0.3 * T * floor * LAYOUT.wall_outward[Side.N]
    tower = judged(slots, poses)
    assert tower.tile_margins[3] == pytest.approx(T / 2 - 0.3 * T, abs=2e-6)  # its own: 0.2 t inside
    name, margin = tower.weakest_holding(3)
    assert name == "W1N" and margin == tower.margin_of(3) == pytest.approx(-0.1 * T, abs=2e-6)


# --- incremental judging equals judging from scratch ---------------------------------------------
def _random_tower(rng: np.random.Generator, size: int) -> tuple[Structure, np.ndarray]:
    """A rule-legal structure of ``size`` tiles (any edges) with noisy nominal poses."""
    structure = Structure()
    rules = SETUP.rules
    for _ in range(size):
        slots = [s for s in structure.candidate_slots() if structure.slot_rules(s, rules).legal]
        slot = slots[int(rng.integers(len(slots)))]
        structure.add(Placement(len(structure.placements), Face.WHITE, slot, 0, 0, (0, 0, 0, 0)))
    poses = nominal_poses([p.slot for p in structure.placements])
    poses[:, :2] += rng.normal(0, 0.0007, (size, 2))
    for pose in poses:
        tilt = quat_from_axis_angle(rng.normal(size=3), np.radians(rng.normal(0, 0.3)))
        pose[3:] = quat_multiply(tilt, pose[3:])
    return structure, poses


def test_with_added_equals_judging_the_bigger_tower_from_scratch():
    rng = np.random.default_rng(11)
    rules = SETUP.rules
    checked = 0
    for size in (0, 1, 3, 4, 6, 9, 14, 20, 27, 35):
        structure, poses = _random_tower(rng, size)
        tower = TowerStatics([p.slot for p in structure.placements], poses, HALF)
        hypotheticals = []
        for slot in [s for s in structure.candidate_slots() if structure.slot_rules(s, rules).legal]:
            first = (slot, nominal_poses([p.slot for p in structure.placements] + [slot])[-1])
            first[1][:2] += rng.normal(0, 0.0005, 2)
            hypotheticals.append([first])
            after = Structure([*structure.placements, Placement(-1, Face.WHITE, slot, 0, 0, (0, 0, 0, 0))])
            for nxt in [s for s in after.candidate_slots() if after.slot_rules(s, rules).legal]:
                pose = nominal_poses([p.slot for p in after.placements] + [nxt])[-1]
                hypotheticals.append([first, (nxt, pose)])
        got = tower.with_added(hypotheticals)
        for hypo, margins in zip(hypotheticals, got, strict=True):
            slots = [p.slot for p in structure.placements] + [s for s, _ in hypo]
            whole = TowerStatics(slots, np.vstack([poses.reshape(-1, 7)] + [p for _, p in hypo]), HALF)
            want = [whole.margin_of(size + j) for j in range(len(hypo))]
            assert np.allclose(margins, want, atol=1e-12), (size, [str(s) for s, _ in hypo])
            checked += 1
    assert checked > 100


# --- the game records the margin before release --------------------------------------------------
def test_placement_events_carry_the_margin_before_release(tmp_path):
    options = {"tile_set": uniform_tile_set(tmp_path, 12), "noise_position_mm": 0.0, "noise_yaw_deg": 0.0,
               "noise_tilt_deg": 0.0}
    state, _ = GAME.new_game(2, 1, options)
    events = [state.apply(GAME.parse_move(text))[0] for text in ("W0N", "W0E", "W0S", "W0W", "C0")]
    for event in events[:4]:
        assert event.data["target_margin_mm"] == pytest.approx(T / 2 * 1000)
        # released 0.25 mm clear of its neighbours: a little off the slot, still about t/2 in
        assert 1.5 < event.data["static_margin_mm"] <= T / 2 * 1000 + 1e-9
    assert events[4].data["target_margin_mm"] > 20


def test_ceiling_on_two_neighbours_with_a_far_wall_falls_in_the_simulation_too(tmp_path):
    """Statics and PyBullet agree on the trap random bots fall into: a wall on the far side of a
    ceiling resting on two neighbouring walls (noise-free hands)."""
    options = {"tile_set": uniform_tile_set(tmp_path, 12), "noise_position_mm": 0.0, "noise_yaw_deg": 0.0,
               "noise_tilt_deg": 0.0}
    state, _ = GAME.new_game(2, 1, options)
    for text in ("W0N", "W0E", "W0S", "W0W", "W1N", "W1E", "C1"):
        assert not state.apply(GAME.parse_move(text))[0].data["fell"]
    event = state.apply(GAME.parse_move("W2S"))[0]
    assert event.data["target_margin_mm"] < -5
    assert event.data["fell"]
