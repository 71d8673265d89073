"""Labels of a scene beyond the game's own verdict, each made from the position as it stood
before the move (``prior``) and the tile's release pose:

- the statics margin of every tile and every level of the tower with the new tile at its release
  pose (the statics judge, statics.py);
- the fall odds of the move's slot under the match's hand (fall_odds.py, the estimator the hints
  use: statics over sampled hands through the response curves fitted to the referee);
- for a seeded subset of scenes, and every scene of the splits named, the observed fall rate: the
  same placement released by N fresh draws of the match's hand and judged by the game's referee;
- a second engine's own verdict on exactly the release the game's referee judged (same start states,
  same release pose, same target, same fall thresholds).

Every draw is seeded by the game's seed and the placement's index: the same labels on any worker.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.rng import Stream, make_rng
from ..games.tower.odds.fall_odds import DEFAULT_SEED, hand_sigmas, slot_margins, slot_odds
from ..games.tower.play.state import TowerState
from ..games.tower.rules.moves import PlaceMove
from ..games.tower.rules.units import MM_PER_M
from ..games.tower.statics.statics import TowerStatics
from ..physics import resolve_engine_params, shared_engine
from .spec import DatasetSettings


def _mm(metres: float) -> float | None:
    """Millimetres rounded to 1 nm; None where statics has no answer (inf: nothing holds it)."""
    return round(metres * MM_PER_M, 6) if math.isfinite(metres) else None


@dataclass
class SecondVerdict:
    engine: str
    version: str
    fell: bool
    max_displacement_mm: float
    max_rotation_deg: float


def margins(prior: TowerState, move: PlaceMove, release: np.ndarray) -> tuple[list[float | None], list[float | None]]:
    """(per tile in placement order, the new tile last: the least margin of any group holding it;
    per floor: the margin of that floor's walls and everything above them), in mm."""
    slots = [p.slot for p in prior.placements] + [move.slot]
    poses = np.vstack([prior.poses.reshape(-1, 7), np.asarray(release, dtype=np.float64)])
    tower = TowerStatics(slots, poses, prior.setup.tile_spec.half_extents)
    return ([_mm(tower.margin_of(i)) for i in range(len(slots))],
            [_mm(float(m)) for m in tower.level_margins])


def fall_odds_of(prior: TowerState, move: PlaceMove, samples: int) -> float:
    """The fall odds of ``move``'s slot under the match's hand: the value ``fall_odds(prior)``
    gives this move (the same draws, the same curves), computed for this one slot only."""
    sigmas = hand_sigmas(prior, None)
    aimed, sampled = slot_margins(prior, [move.slot], sigmas, samples, DEFAULT_SEED)
    return float(slot_odds(prior, [move.slot], aimed, sampled, sigmas)[0])


def chosen_for_hands(seed: int, key: int | tuple[int, ...], share: float) -> bool:
    """Whether the scene ``key`` of game ``seed`` (a played placement's index; a preview's index and
    number) gets an observed fall rate by the seeded share."""
    key = (key,) if isinstance(key, int) else key
    return share > 0.0 and (share >= 1.0 or float(make_rng(seed, Stream.OBSERVED_CHOICE, *key).random()) < share)


def observed_falls(prior: TowerState, move: PlaceMove, seed: int, key: int | tuple[int, ...], hands: int) -> int:
    """How many of ``hands`` fresh draws of the match's hand bring the tower down when the tile
    is released for ``move`` (the game's release and settle, ``TowerState.preview``)."""
    key = (key,) if isinstance(key, int) else key
    return sum(prior.preview(move, hand=make_rng(seed, Stream.OBSERVED_HANDS, *key, k)).fell for k in range(hands))


def second_verdict(prior: TowerState, release: np.ndarray, target: np.ndarray, engine: str) -> SecondVerdict:
    """``engine``'s own verdict (its default parameters) on the release the game's referee judged."""
    setup = prior.setup
    judge = shared_engine(engine, setup.tile_spec, resolve_engine_params(engine))
    verdict = judge.settle(prior.states, release, target, setup.thresholds)
    return SecondVerdict(engine, judge.describe()["version"], bool(verdict.fell),
                         round(verdict.max_displacement * MM_PER_M, 4), round(verdict.max_rotation_deg, 4))


def scene_labels(prior: TowerState, move: PlaceMove, release: np.ndarray, target: np.ndarray, seed: int,
                 key: int | tuple[int, ...], settings: DatasetSettings, seconds: dict[str, float],
                 split: str | None = None) -> dict[str, Any]:
    """Every extra label of one scene (``key``: see ``chosen_for_hands``; ``split``: the scene's,
    every scene of ``labels.observed_splits`` is observed) as row columns; adds each part's seconds
    to ``seconds`` (``statics``: the margins and the fall odds; ``hands``: the observed fall rates;
    ``second_engine``)."""
    labels = settings.labels
    start = time.perf_counter()
    tiles, levels = margins(prior, move, release)
    odds = fall_odds_of(prior, move, labels.fall_odds_samples)
    after_statics = time.perf_counter()
    seconds["statics"] = seconds.get("statics", 0.0) + after_statics - start
    row: dict[str, Any] = {"tile_margins_mm": tiles, "level_margins_mm": levels, "fall_odds": round(odds, 9),
                           "observed_hands": None, "observed_falls": None, "observed_fall_rate": None,
                           "second_engine": None, "second_engine_version": None, "second_fell": None,
                           "second_max_displacement_mm": None, "second_max_rotation_deg": None}
    if split in labels.observed_splits or chosen_for_hands(seed, key, labels.observed_share):
        falls = observed_falls(prior, move, seed, key, labels.observed_hands)
        row.update(observed_hands=labels.observed_hands, observed_falls=falls,
                   observed_fall_rate=falls / labels.observed_hands)
    after_hands = time.perf_counter()
    seconds["hands"] = seconds.get("hands", 0.0) + after_hands - after_statics
    if labels.second_engine is not None:
        second = second_verdict(prior, release, target, labels.second_engine)
        row.update(second_engine=second.engine, second_engine_version=second.version, second_fell=second.fell,
                   second_max_displacement_mm=second.max_displacement_mm,
                   second_max_rotation_deg=second.max_rotation_deg)
    seconds["second_engine"] = seconds.get("second_engine", 0.0) + time.perf_counter() - after_hands
    return row

