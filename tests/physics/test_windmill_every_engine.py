"""The noise-free 48-tile windmill (RULES.md) stands in every engine, each tile released 0.25 mm
above its slot as the game releases it."""

from __future__ import annotations

import pytest

from pisa3d.games.tower.referee.windmill import build_windmill
from pisa3d.physics import engine_names, make_engine


@pytest.mark.slow
@pytest.mark.parametrize("name", engine_names())
def test_a_noise_free_48_tile_windmill_stands(name: str) -> None:
    engine = make_engine(name)
    verdicts = [verdict for _, verdict in build_windmill(engine, 48)]
    engine.close()
    assert len(verdicts) == 48
    assert not any(v.fell for v in verdicts)
    assert all(v.settled for v in verdicts)
    assert max(v.max_displacement for v in verdicts) < 0.001  # every release moved the tower < 1 mm
