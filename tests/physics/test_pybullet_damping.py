"""Rolling and spinning friction of the tiles (assets/physics/pybullet.json, 0 in the shipped referee):
the candidates for damping a landing wall's rocking measured in docs/tower-physics.md, "Damping the
landing, measured"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.physics.captured import CapturedScene
from pisa3d.physics.pybullet_backend import PyBulletEngine, pb
from pisa3d.physics.pybullet_params import PyBulletParams
from tests.physics.test_pybullet_only_falls import SCENES, settle

ONE_TILE = np.array([[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]])


def test_the_shipped_referee_has_no_rolling_or_spinning_friction() -> None:
    params = PyBulletParams()
    assert (params.rolling_friction, params.spinning_friction) == (0.0, 0.0)


@pytest.mark.parametrize("name", ["rolling_friction", "spinning_friction"])
@pytest.mark.parametrize("bad", [-1e-4, float("nan"), "0.1", None])
def test_a_friction_length_must_be_a_number_at_least_zero(name: str, bad: object) -> None:
    with pytest.raises(OptionsError, match=name):
        PyBulletParams(**{name: bad})


def test_the_values_reach_every_tile_and_the_table_and_are_on_record() -> None:
    params = PyBulletParams(rolling_friction=1.5e-4, spinning_friction=2e-4)
    with PyBulletEngine(params=params) as engine:
        engine.build(ONE_TILE)
        for body in (*engine.body_ids, engine._table):
            info = pb.getDynamicsInfo(body, -1, physicsClientId=engine.client_id)
            assert (info[6], info[7]) == pytest.approx((1.5e-4, 2e-4))
        assert engine.describe()["params"]["rolling_friction"] == 1.5e-4


# The three scenes "Damping the landing, measured" tried every candidate on. Of the solver cases
# captured later, rolling friction holds 40008/14 but not 40004/20 or 40006/36 ("Warm starting,
# measured"), so it is no mend for those either.
MEASURED = [p for p in SCENES if p.stem.rsplit("_", 2)[-2] in ("30123", "30205", "30201")]


@pytest.mark.slow
@pytest.mark.parametrize("path", MEASURED, ids=[p.stem for p in MEASURED])
def test_rolling_friction_of_015_mm_holds_every_scene(path: Path) -> None:
    """The only candidate that holds all three scenes, the rocking wall included; it also moves
    every wall's statics flip 10% beyond the exact limit, so it is not the referee's (the doc)."""
    assert len(MEASURED) == 3, "the three scenes the candidates were measured on"
    fell, mm, deg = settle("pybullet", CapturedScene.load(path), {"rolling_friction": 1.5e-4})
    assert not fell, f"{path.stem}: topples with rolling friction 0.15 mm ({mm:.2f} mm, {deg:.2f} deg)"
