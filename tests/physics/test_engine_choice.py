"""Choosing the engine: PyBullet by default, MuJoCo by name (both are installed with pisa3d)."""

from __future__ import annotations

from pisa3d.physics import engine_names, make_engine


def test_mujoco_is_a_known_engine_and_pybullet_the_default() -> None:
    assert engine_names() == ["mujoco", "pybullet"]
    assert make_engine().name == "pybullet"


