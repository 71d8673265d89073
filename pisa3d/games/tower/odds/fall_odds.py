"""Fall odds: the chance that a placement topples the tower, for every legal slot of a position.

The statics judge over sampled hands: the new tile is put at its target pose moved by ``samples``
draws of the hand's noise (the hand model of hand.py: x, y, yaw, two tilts), each draw's statics
margin goes through a response curve, the chance that the physics referee calls the tile a fall
(a curve for the hand and for what the tile stands on), and the odds are the mean over the draws.
The curves are fitted to the referee (PyBullet, the game's own release and settle) by fit.py, on
the games of collect.py, and stored in assets/tower/fall_odds.json; their calibration table
(benchmarks/fall_odds.py) is in docs/tower-physics.md.

Why a curve and not "margin below zero": settling under a new tile knocks it and the tower about,
so the referee calls some tiles with a small positive margin falls, and a wall standing on the
4 mm top edge of the wall below often stays up although released past that edge (in the cases
traced, its foot also rests on the end of a neighbouring wall of the floor below, a support the
judge does not count: supports follow slots), while a ceiling, or a wall on a ceiling or on the
table, falls almost every time it is released past its edge. A wall on a column of walls stands
more often the taller the column, since the statics of the whole column decide its margin and the
corners its walls touch carry load the judge does not count. Hence a curve per support
(``SUPPORTS``): a wall on one wall, on a column of 2-3 walls, on a column of 4 or more, a wall on a
ceiling or the table, and a ceiling. Why a curve per hand with a spread: the
referee's release wanders less than the sampled hands at the steady and careful hands (for a wall
on a wall only the aim counts), as much at the casual hand (docs/tower-physics.md, "Curves per
hand").

Deterministic: the draws come from a generator seeded by ``seed`` alone, the same draws for every
slot (so slots are compared on the same hands) and for every position; no simulation, no BLAS.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from statistics import NormalDist

import numpy as np

from ....assets import load_json_asset
from ....core.errors import OptionsError
from ....core.rng import Stream, make_rng
from ....physics.poses import quat_multiply
from ..play.state import TowerState
from ..rules.moves import PlaceMove
from ..rules.options import hand_noise
from ..rules.structure import Slot
from ..rules.units import MM_PER_M
from ..statics.statics import TowerStatics

DEFAULT_SAMPLES = 48
DEFAULT_SEED = 0


@dataclass(frozen=True)
class FallResponse:
    """Chance the referee calls a released tile a fall given its statics margin ``m`` (metres):
    ``floor + (1 - 2 floor) / (1 + exp((m' - midpoint) / width))``, where ``m'`` is the margin as
    aimed plus ``spread`` times the sampled hand's change of it: ``spread`` below 1 says the
    referee's release wanders less than the sampled hands do (0: only the aim counts). ``floor``
    keeps room for the falls statics cannot see (and the stands it cannot either)."""

    midpoint_mm: float
    width_mm: float
    floor: float
    spread: float = 1.0

    def __call__(self, margins: np.ndarray, aimed: np.ndarray | None = None) -> np.ndarray:
        """(..., samples) sampled margins, ``aimed`` (...,) the margins as aimed (needed unless
        ``spread`` is 1), in metres."""
        margins = np.asarray(margins, dtype=np.float64)
        if self.spread != 1.0:
            if aimed is None:
                raise ValueError("a response with spread below 1 needs the margins as aimed")
            aim = np.asarray(aimed, dtype=np.float64)[..., None]
            both = np.isfinite(margins) & np.isfinite(aim)  # inf: nothing holds the tile; kept as it is
            margins = np.where(both, aim + self.spread * np.where(both, margins - aim, 0.0), margins)
        z = (margins * MM_PER_M - self.midpoint_mm) / self.width_mm
        z = np.clip(z, -50.0, 50.0)  # margins are inf where nothing holds the tile: no overflow
        return self.floor + (1.0 - 2.0 * self.floor) / (1.0 + np.exp(z))


@dataclass(frozen=True)
class ResponseModel:
    """The response curve as a function of the hand's position sigma s (mm) and of the tower's size
    n (tiles standing before the placement): its midpoint moves by ``midpoint_slope_mm`` per e-fold
    of s and by ``midpoint_per_ten_tiles_mm`` per 10 tiles, and its width grows as s to the
    ``width_exponent`` and by the factor ``exp(width_log_per_ten_tiles)`` per 10 tiles, from their
    values at ``reference_sigma_mm`` and no tiles. Why the hand matters (likely, not checked): the
    sampled margins spread with the hand as the draws do, but the referee's release is not the
    drawn pose (the hand slides a tile clear of its neighbours and lowers it; a tilted tile lands on
    a corner), and a steady hand's falls are the settling's, not the aim's. Why the size (likely,
    not checked): in a tall tower more tiles lean on neighbours and the settling moves more, both of
    which statics does not count, so its margin decides less. s is held within ``sigma_range_mm``
    and n within ``tiles_range``, what the fit saw (a noise-free match gets the steadiest curve
    fitted)."""

    midpoint_mm: float
    midpoint_slope_mm: float
    width_mm: float
    width_exponent: float
    floor: float
    reference_sigma_mm: float = 0.5
    sigma_range_mm: tuple[float, float] = (0.25, 1.0)
    midpoint_per_ten_tiles_mm: float = 0.0
    width_log_per_ten_tiles: float = 0.0
    tiles_range: tuple[int, int] = (0, 48)

    def at(self, sigma_mm: float, tiles: int) -> FallResponse:
        """The curve for a hand of position sigma ``sigma_mm`` placing on a tower of ``tiles`` tiles."""
        low, high = self.sigma_range_mm
        ratio = min(max(float(sigma_mm), low), high) / self.reference_sigma_mm
        tens = min(max(int(tiles), self.tiles_range[0]), self.tiles_range[1]) / 10.0
        return FallResponse(
            self.midpoint_mm + self.midpoint_slope_mm * float(np.log(ratio)) + self.midpoint_per_ten_tiles_mm * tens,
            self.width_mm * ratio ** self.width_exponent * float(np.exp(self.width_log_per_ten_tiles * tens)),
            self.floor)


@dataclass(frozen=True)
class HandCurve:
    """The response fitted at one hand of position sigma ``sigma_mm`` (mm)."""

    sigma_mm: float
    response: FallResponse


@dataclass(frozen=True)
class HandCurves:
    """A response curve fitted at each named hand (``curves``, by rising sigma); a hand between two of
    them gets their curve interpolated in ln sigma (midpoint, ln width, floor and spread), a hand
    outside them the nearest one's. Why a curve per hand and not a law in sigma: at the steady and
    careful hands the referee's release wanders less than the sampled hands (spread near 0 for a
    wall on a wall: only the aim counts), at the casual hand as much, which no smooth law of the
    earlier form followed (docs/tower-physics.md, "Curves per hand"). The tower's size is not used."""

    curves: tuple[HandCurve, ...]

    def at(self, sigma_mm: float, tiles: int) -> FallResponse:
        """The curve for a hand of position sigma ``sigma_mm`` (``tiles`` is not used)."""
        del tiles
        sigma = min(max(float(sigma_mm), self.curves[0].sigma_mm), self.curves[-1].sigma_mm)
        for c in self.curves:
            if c.sigma_mm == sigma:  # a hand fitted: its curve as stored
                return c.response
        logs, at = np.log([c.sigma_mm for c in self.curves]), float(np.log(sigma))
        responses = [c.response for c in self.curves]

        def blend(values: list[float]) -> float:
            return float(np.interp(at, logs, values))

        return FallResponse(blend([r.midpoint_mm for r in responses]),
                            float(np.exp(blend([float(np.log(r.width_mm)) for r in responses]))),
                            blend([r.floor for r in responses]), blend([r.spread for r in responses]))


SUPPORTS = ("wall_on_wall", "wall_on_column", "wall_on_tall_column", "wall_on_flat", "ceiling")
"""What a tile stands on, a curve each (fall_odds.json's): a wall on the top edge of one wall (which
stands on a ceiling or the table), on a column of 2 or 3 such walls, on a column of 4 or more; a
wall on a ceiling or on the table; a ceiling. Why the columns apart: the taller the column of walls
under a wall, the less often the referee topples it at the same statics margin, and the shortest
more often (docs/tower-physics.md, "Columns of walls")."""
EARLIER_SUPPORTS = ("wall_on_wall", "other")
"""The supports of curves stored before 0.10.0: a wall on a wall, and every other tile."""
EARLIER_CURVES = {"wall_on_column": "wall_on_wall", "wall_on_tall_column": "wall_on_wall",
                  "wall_on_flat": "other", "ceiling": "other"}
"""The curve of ``EARLIER_SUPPORTS`` that serves each support the earlier curves lack."""
WALL_ON_WALL_SUPPORTS = SUPPORTS[:3]
TALL_COLUMN = 4  # walls under a wall from which its column counts as tall


def model_of(doc: dict) -> ResponseModel | HandCurves:
    """One response model as fall_odds.json stores it: curves by hand (``hands``), or the earlier
    law in sigma (a curve without the size terms: none)."""
    if "hands" in doc:
        curves = (HandCurve(float(c["sigma_mm"]), FallResponse(float(c["midpoint_mm"]), float(c["width_mm"]),
                                                               float(c["floor"]), float(c["spread"])))
                  for c in doc["hands"])
        return HandCurves(tuple(sorted(curves, key=lambda c: c.sigma_mm)))
    return ResponseModel(float(doc["midpoint_mm"]), float(doc["midpoint_slope_mm"]), float(doc["width_mm"]),
                         float(doc["width_exponent"]), float(doc["floor"]), float(doc["reference_sigma_mm"]),
                         tuple(float(v) for v in doc["sigma_range_mm"]),
                         float(doc.get("midpoint_per_ten_tiles_mm", 0.0)),
                         float(doc.get("width_log_per_ten_tiles", 0.0)),
                         tuple(int(v) for v in doc.get("tiles_range", (0, 48))))


Model = ResponseModel | HandCurves  # either answers .at(sigma_mm, tiles) with a FallResponse


def models_of(doc: dict) -> dict[str, Model]:
    """The response model of each support (``SUPPORTS``) as fall_odds.json stores them; curves stored
    before 0.10.0 serve each support as ``EARLIER_CURVES`` says."""
    curves = doc["curves"]
    return {support: model_of(curves[support] if support in curves else curves[EARLIER_CURVES[support]])
            for support in SUPPORTS}


@cache
def default_models() -> dict[str, Model]:
    """The response models fitted to the referee (assets/tower/fall_odds.json), by support."""
    return models_of(load_json_asset("tower", "fall_odds.json"))


def model_for(models: dict[str, Model], support: str) -> Model:
    """The curve of ``support``; a clear error where a set of curves lacks it."""
    if support not in models:
        raise KeyError(f"fall odds: no curve for a tile of support {support!r} (the curves given: "
                       f"{', '.join(sorted(models))}; fall_odds.json has one per {', '.join(SUPPORTS)})")
    return models[support]


def walls_under(standing: Collection[Slot], slot: Slot) -> int:
    """How many walls stand in a column straight under a wall slot, each on the top edge of the one
    below it (0: the slot is a ceiling, or a wall on a ceiling or on the table)."""
    if slot.side is None:
        return 0
    count, floor = 0, slot.floor - 1
    while floor >= 0 and Slot(floor) not in standing and Slot(floor, slot.side) in standing:
        count, floor = count + 1, floor - 1
    return count


def support_of(standing: Collection[Slot], slot: Slot) -> str:
    """Which curve of ``SUPPORTS`` a tile aimed at ``slot`` goes through."""
    if slot.side is None:
        return "ceiling"
    walls = walls_under(standing, slot)
    if walls == 0:
        return "wall_on_flat"
    return "wall_on_wall" if walls == 1 else "wall_on_column" if walls < TALL_COLUMN else "wall_on_tall_column"


@dataclass(frozen=True)
class FallOdds:
    """One slot's odds: ``odds`` the chance it falls (0-1), ``margin`` the statics margin as aimed
    (metres, the hint's "margin now"), ``standing_hands`` how many of the sampled hands statics says
    stand (margin above zero), of ``samples``."""

    slot: Slot
    odds: float
    margin: float
    standing_hands: int
    samples: int


def hand_sigmas(state: TowerState, hand: str | None) -> tuple[float, float, float]:
    """(position sigma in metres, yaw and tilt sigmas in degrees): the match's hand, or a named one."""
    if hand is None:
        return state.setup.noise
    if not isinstance(hand, str):
        raise OptionsError(f"fall odds: hand must be a hand's name or None (the match's), got {hand!r}")
    noise = hand_noise(hand)
    return noise["noise_position_mm"] / MM_PER_M, noise["noise_yaw_deg"], noise["noise_tilt_deg"]


def slot_odds(state: TowerState, slots: Sequence[Slot], aimed: np.ndarray, sampled: np.ndarray,
              sigmas: tuple[float, float, float], models: dict[str, Model] | None = None) -> np.ndarray:
    """(S,) fall odds of ``slots`` from their margins as aimed (S,) and sampled (S, samples), in
    metres: each draw through the curve of its slot's support, for a hand of these sigmas on this
    tower, averaged. ``models``: by support (default: those fitted to the referee)."""
    models = default_models() if models is None else models
    standing = {p.slot for p in state.placements}
    supports = np.array([support_of(standing, slot) for slot in slots])
    odds = np.empty(len(slots))
    for support in set(supports.tolist()):
        rows = supports == support
        curve = model_for(models, support).at(sigmas[0] * MM_PER_M, len(state.placements))
        odds[rows] = curve(sampled[rows], aimed[rows]).mean(axis=1)
    return odds


def _axis_quats(axis: int, angles: np.ndarray) -> np.ndarray:
    q = np.zeros((len(angles), 4))
    q[:, axis] = np.sin(0.5 * angles)
    q[:, 3] = np.cos(0.5 * angles)
    return q


def sampled_poses(target: np.ndarray, draws: np.ndarray, sigmas: tuple[float, float, float]) -> np.ndarray:
    """(N, 7) poses of a tile meant for ``target`` under N hands: ``draws`` are (N, 5) standard
    normals (x, y, yaw, tilt about x, tilt about y) scaled by the sigmas, applied as hand.py's
    apply_hand_noise does (shift across the table, turn about the tile's centre)."""
    sigma_pos, sigma_yaw, sigma_tilt = sigmas
    scale = np.array([sigma_pos, sigma_pos, np.radians(sigma_yaw), np.radians(sigma_tilt), np.radians(sigma_tilt)])
    d = draws * scale
    turn = quat_multiply(_axis_quats(0, d[:, 3]), quat_multiply(_axis_quats(1, d[:, 4]), _axis_quats(2, d[:, 2])))
    quats = quat_multiply(turn, np.broadcast_to(np.asarray(target[3:], dtype=np.float64), turn.shape))
    quats /= np.sqrt((quats * quats).sum(1, keepdims=True))
    poses = np.empty((len(d), 7))
    poses[:, :3] = target[:3]
    poses[:, :2] += d[:, :2]
    poses[:, 3:] = quats
    return poses


@cache
def hand_draws(samples: int, seed: int) -> np.ndarray:
    """(samples, 5) standard normal draws (x, y, yaw, two tilts), stratified: every column holds the
    same values, the normal's quantiles at (k + 1/2) / samples, each column in a seeded order of its
    own. So each of the five has mean 0 and the same spread and tails, and a slot on any side of
    the tower meets the same hand. Plain pseudo-random draws do not: 48 of them were off by up to
    0.28 in mean and 12% in spread, the same for every slot (docs/tower-physics.md, "The hand sampled")."""
    quantiles = np.array([NormalDist().inv_cdf((k + 0.5) / samples) for k in range(samples)])
    rng = make_rng(seed, Stream.FALL_ODDS)
    draws = np.column_stack([rng.permutation(quantiles) for _ in range(5)])
    draws.setflags(write=False)
    return draws


def slot_margins(state: TowerState, slots: Sequence[Slot], sigmas: tuple[float, float, float],
                 samples: int, seed: int, draws: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(aimed margins (S,), sampled margins (S, samples)) in metres for the current tile in each slot;
    ``draws``: (samples, 5) standard normals to use instead of ``hand_draws(samples, seed)``."""
    player = state.current_player
    assert player is not None
    face = state.face_of(player)
    tower = TowerStatics([p.slot for p in state.placements], state.poses, state.setup.tile_spec.half_extents)
    draws = hand_draws(samples, seed) if draws is None else draws
    hypotheticals = []
    for slot in slots:
        _, target = state.intended_pose(slot, face, 0)
        hypotheticals.append([(slot, target)])
        hypotheticals.extend([(slot, pose)] for pose in sampled_poses(target, draws, sigmas))
    margins = np.array([m[0] for m in tower.with_added(hypotheticals)]).reshape(len(slots), samples + 1)
    return margins[:, 0], margins[:, 1:]


def fall_odds(
    state: TowerState, hand: str | None = None, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
    models: dict[str, Model] | None = None,
) -> dict[PlaceMove, FallOdds]:
    """The chance that each legal placement of the current position topples the tower.

    ``state``: the position (the referee's state or one sampled from a player's view: only the
    tower is read). ``hand``: a named hand (``steady``, ``careful``, ``casual``, ``shaky``) or None
    for the match's own noise options. ``samples``: hands drawn per slot (more: smoother odds,
    slower; 48 keeps a 48-tile position under 50 ms). ``seed``: which hands are drawn (the same
    for every slot and every position). ``models``: the margin-to-fall curves by support
    (default: those fitted to the referee, assets/tower/fall_odds.json).

    Returns every legal placement (rotations of one slot share its odds, which depend on where
    the box goes, not which edges show); empty when the game is over or only a pass is legal.
    Same inputs, same odds, bit for bit. Costs a statics judgement of ``samples`` hypothetical
    tiles per slot, no simulation.
    """
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise OptionsError(f"fall odds: samples must be a whole number of hands, 1 or more, got {samples!r}")
    if state.current_player is None:
        return {}
    moves = [m for m in state.legal_moves() if isinstance(m, PlaceMove)]
    if not moves:
        return {}
    sigmas = hand_sigmas(state, hand)
    slots = list(dict.fromkeys(m.slot for m in moves))
    aimed, sampled = slot_margins(state, slots, sigmas, samples, seed)
    odds = slot_odds(state, slots, aimed, sampled, sigmas, models)
    by_slot = {slot: FallOdds(slot, float(odds[k]), float(aimed[k]), int((sampled[k] > 0).sum()), samples)
               for k, slot in enumerate(slots)}
    return {m: by_slot[m.slot] for m in moves}
