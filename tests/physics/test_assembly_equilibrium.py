"""The whole-assembly equilibrium of benchmarks/assembly_equilibrium.py on issue 41's captured scenes:
where MuJoCo brings each to rest, rigid tiles have forces that hold it (so statics misses no mechanism
there and PyBullet's fall comes from its landing), and the check does say "no" where a tile is past its
support."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from pisa3d.physics.captured import CapturedScene

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
SCENES = sorted(FIXTURES.glob("pybullet_only_fall_*.json"))
KNIFE_EDGE = FIXTURES / "pybullet_only_fall_careful_mixed_40004_20.json"  # W6E: its thickness runs along x



@pytest.fixture(scope="module")
def probe():
    spec = importlib.util.spec_from_file_location("assembly_equilibrium",
                                                  ROOT / "benchmarks" / "assembly_equilibrium.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_rigid_tiles_can_stand_where_mujoco_rests_each_scene(probe, path: Path) -> None:
    holds, contacts = probe.check(path, np.zeros(3))
    assert contacts > 0
    assert holds, f"{path.stem}: no equilibrium of the whole assembly at MuJoCo's resting poses"


def test_the_check_refuses_a_wall_moved_past_the_edge_statics_gives_it(probe) -> None:
    """Statics gives the new wall of 40004/20 +0.48 mm across its thickness (along +x): moved 0.3 mm
    outward it still has forces that hold it, moved 0.6 mm it has none."""
    assert probe.check(KNIFE_EDGE, np.array([0.3, 0.0, 0.0]))[0]
    assert not probe.check(KNIFE_EDGE, np.array([0.6, 0.0, 0.0]))[0]


def test_without_friction_the_resting_tower_has_no_equilibrium(probe) -> None:
    """The friction pyramid is a real constraint: at the same resting poses frictionless tiles cannot be
    held, since no contact is exactly level (a tile's weight has a part along it)."""
    scene = CapturedScene.load(KNIFE_EDGE)
    poses = probe.resting_poses(scene)
    tile = scene.tile
    contacts = probe.contact_points(poses, tile)
    assert probe.has_equilibrium(poses, contacts, tile.mass, tile.friction)
    assert not probe.has_equilibrium(poses, contacts, tile.mass, 0.0)
