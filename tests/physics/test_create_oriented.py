"""``create_oriented`` (assets/physics/pybullet.json, on in the shipped referee since 0.6.0): each tile body
created at its own pose, so Bullet's first step of a question uses each tile's true world inertia.

Created in one batch at the identity orientation and posed afterwards, a body keeps the identity's
world inertia until its first step ends: a wall then turns in that step as if it lay flat (about
world z with twice its inertia). docs/tower-physics.md, "The mend, measured"."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.physics import TileSpec
from pisa3d.physics.pybullet_backend import PyBulletEngine, pb
from pisa3d.physics.pybullet_params import PyBulletParams

WALL = [0.7071067811865476, 0.0, 0.0, 0.7071067811865476]  # the tile turned 90 degrees about x


def first_steps_turn(create_oriented: bool, steps: int = 3) -> list[float]:
    """A wall in zero gravity pushed sideways 10 mm from its centre: its angular speed about world
    z after each step, in units of what one step of the exact inertia gives."""
    tile = TileSpec()
    with PyBulletEngine(tile, PyBulletParams(create_oriented=create_oriented)) as engine:
        engine.build(np.array([[0.0, 0.0, 1.0, *WALL, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]))
        client, body = engine.client_id, engine.body_ids[0]
        pb.setGravity(0.0, 0.0, 0.0, physicsClientId=client)
        push, arm = 1e-3, 0.01
        inertia_z = tile.mass * ((2 * tile.half_extents[0]) ** 2 + (2 * tile.half_extents[2]) ** 2) / 12
        per_step = push * arm * engine.params.timestep / inertia_z
        out = []
        for _ in range(steps):
            pb.applyExternalForce(body, -1, [0.0, push, 0.0], [arm, 0.0, 1.0], pb.WORLD_FRAME,
                                  physicsClientId=client)
            engine.step(1)
            out.append(pb.getBaseVelocity(body, physicsClientId=client)[1][2] / per_step)
    return out


def test_a_batched_wall_turns_in_its_first_step_as_if_it_lay_flat() -> None:
    """The batched creation (the referee's before 0.6.0): half the turn in step 1 (a flat tile's
    inertia about z is twice a wall's), exact from step 2 on."""
    turn = first_steps_turn(False)
    assert turn[0] == pytest.approx(0.5, abs=0.01)
    assert np.diff([0.0, *turn])[1:] == pytest.approx([1.0, 1.0], abs=0.01)


def test_an_oriented_wall_turns_right_from_the_first_step() -> None:
    assert first_steps_turn(True) == pytest.approx([1.0, 2.0, 3.0], abs=0.01)


def test_the_switch_is_a_boolean_and_on_record() -> None:
    assert PyBulletParams().create_oriented is True  # the shipped referee creates each tile at its pose
    assert PyBulletEngine(params=PyBulletParams(create_oriented=False)).describe()["params"]["create_oriented"] is False
    with pytest.raises(OptionsError, match="create_oriented"):
        PyBulletParams(create_oriented=1)
