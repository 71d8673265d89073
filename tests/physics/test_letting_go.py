"""The hand lets go of a new tile over the engine's ``release_time`` (settle_rule.letting_go): its
weight comes on linearly, in every engine, and the hand is off once the verdict is made."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.physics import FallThresholds, TileSpec, engine_names, make_engine
from pisa3d.physics.settle_rule import letting_go

TILE = TileSpec()
THRESHOLDS = FallThresholds.for_tile(TILE)
ON_TABLE = np.array([0.0, 0.0, TILE.thickness / 2, 0.0, 0.0, 0.0, 1.0])
UP = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])


def test_the_share_the_hand_carries_falls_linearly_one_step_at_a_time_then_it_lets_go() -> None:
    calls: list[tuple[str, float]] = []
    advance = letting_go(lambda n: calls.append(("step", n)), lambda share: calls.append(("hold", share)), 4)
    for done in range(0, 12, 3):  # chunks of 3 steps, the hand on for the first 4
        advance(done, 3)
    assert calls == [("hold", 1.0), ("step", 1), ("hold", 0.75), ("step", 1), ("hold", 0.5), ("step", 1),
                     ("hold", 0.25), ("step", 1), ("hold", 0.0), ("step", 2), ("step", 3), ("step", 3)]


@pytest.fixture(params=engine_names())
def engine_name(request: pytest.FixtureRequest) -> str:
    return request.param


def test_a_tile_let_go_in_mid_air_falls_slowly_while_held(engine_name: str) -> None:
    """Released 10 mm above the table (inside the fall exit): at the first frame (1/30 s) a tile
    let go at once has fallen g t^2 / 2 = 5.4 mm, one the hand lets go of over 0.1 s
    g t^3 / (6 * 0.1 s) = 0.6 mm."""
    fallen = {}
    for release_time in (0.0, 0.1):
        with make_engine(engine_name, TILE, {"release_time": release_time}) as engine:
            verdict = engine.settle(np.zeros((0, 13)), ON_TABLE + 0.01 * UP, ON_TABLE, THRESHOLDS)
        frames = verdict.trajectory.frames
        fallen[release_time] = 1000 * (frames[0][0][2] - frames[1][0][2])
    assert fallen[0.0] == pytest.approx(5.4, abs=0.4)
    assert fallen[0.1] == pytest.approx(0.6, abs=0.3)


def test_the_hand_is_off_for_a_fall_s_aftermath(engine_name: str) -> None:
    """Released 60 mm above its slot, the tile is past the fall exit at the first check, while the
    hand still holds most of its weight; the aftermath must drop it freely: on the table within
    0.15 s (free fall takes 0.11 s; with the hand's share of the first check left on, 0.28 s)."""
    with make_engine(engine_name, TILE) as engine:
        verdict = engine.settle(np.zeros((0, 13)), ON_TABLE + 0.06 * UP, ON_TABLE, THRESHOLDS, aftermath=True)
    assert verdict.fell and verdict.steps * engine.params.timestep < engine.params.release_time
    hz = verdict.trajectory.hz
    heights = np.array([frame[0][2] for frame in verdict.trajectory.frames])
    landed = int(np.argmax(heights < ON_TABLE[2] + 0.001))
    assert heights[landed] < ON_TABLE[2] + 0.001 and landed / hz < 0.15 + 2 / hz, heights[:12]
