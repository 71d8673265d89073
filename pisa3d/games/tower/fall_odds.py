"""Fall odds: the chance that a placement topples the tower, for every legal slot of a position.

The statics judge (statics.py) over sampled hands: the new tile is put at its target pose moved
by ``samples`` draws of the hand's noise (the hand model of hand.py: x, y, yaw, two tilts), each
draw's statics margin goes through a response curve, the chance that the physics referee calls a
tile released with that margin a fall (a curve for the hand and the tower's size), and the odds
are the mean over the draws. The curve is
fitted to the referee (PyBullet, the game's own release and settle) by benchmarks/fall_odds.py and
stored in assets/tower/fall_odds.json; its calibration table is in docs/tower-physics.md.

Why a curve and not "margin below zero": a tile is set down, not placed, and settling knocks it
about, so the referee calls some tiles with a small positive margin falls (a wall on a wall flips
at 0.96 of its statics limit) and lets some with a slightly negative one stand (neighbours it
leans on, which the judge does not count).

Deterministic: the draws come from a generator seeded by ``seed`` alone, the same draws for every
slot (so slots are compared on the same hands) and for every position; no simulation, no BLAS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from ...assets import load_json_asset
from ...core.errors import OptionsError
from ...core.rng import Stream, make_rng
from ...physics.poses import quat_multiply
from .moves import PlaceMove
from .options import hand_noise
from .state import TowerState
from .statics import TowerStatics
from .structure import Slot
from .units import MM_PER_M

DEFAULT_SAMPLES = 48
DEFAULT_SEED = 0


@dataclass(frozen=True)
class FallResponse:
    """Chance the referee calls a released tile a fall given its statics margin ``m`` (metres):
    ``floor + (1 - 2 floor) / (1 + exp((m - midpoint) / width))``; ``floor`` keeps room for the
    falls statics cannot see (and the stands it cannot either)."""

    midpoint_mm: float
    width_mm: float
    floor: float

    def __call__(self, margins: np.ndarray) -> np.ndarray:
        z = (np.asarray(margins, dtype=np.float64) * MM_PER_M - self.midpoint_mm) / self.width_mm
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


def model_of(doc: dict) -> ResponseModel:
    """A response model stored as fall_odds.json stores it (a curve without the size terms: none)."""
    return ResponseModel(float(doc["midpoint_mm"]), float(doc["midpoint_slope_mm"]), float(doc["width_mm"]),
                         float(doc["width_exponent"]), float(doc["floor"]), float(doc["reference_sigma_mm"]),
                         tuple(float(v) for v in doc["sigma_range_mm"]),
                         float(doc.get("midpoint_per_ten_tiles_mm", 0.0)),
                         float(doc.get("width_log_per_ten_tiles", 0.0)),
                         tuple(int(v) for v in doc.get("tiles_range", (0, 48))))


@cache
def default_model() -> ResponseModel:
    """The response model fitted to the referee (assets/tower/fall_odds.json)."""
    return model_of(load_json_asset("tower", "fall_odds.json"))


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


def fitted_curve(state: TowerState, sigmas: tuple[float, float, float]) -> FallResponse:
    """The curve fitted to the referee for a hand of these sigmas placing on this tower (its size)."""
    return default_model().at(sigmas[0] * MM_PER_M, len(state.placements))


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
def _draws(samples: int, seed: int) -> np.ndarray:
    draws = make_rng(seed, Stream.FALL_ODDS).standard_normal((samples, 5))
    draws.setflags(write=False)
    return draws


def slot_margins(state: TowerState, slots: Sequence[Slot], sigmas: tuple[float, float, float],
                 samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(aimed margins (S,), sampled margins (S, samples)) in metres for the current tile in each slot."""
    player = state.current_player
    assert player is not None
    face = state.face_of(player)
    tower = TowerStatics([p.slot for p in state.placements], state.poses, state.setup.tile_spec.half_extents)
    draws = _draws(samples, seed)
    hypotheticals = []
    for slot in slots:
        _, target = state.intended_pose(slot, face, 0)
        hypotheticals.append([(slot, target)])
        hypotheticals.extend([(slot, pose)] for pose in sampled_poses(target, draws, sigmas))
    margins = np.array([m[0] for m in tower.with_added(hypotheticals)]).reshape(len(slots), samples + 1)
    return margins[:, 0], margins[:, 1:]


def fall_odds(
    state: TowerState, hand: str | None = None, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
    response: FallResponse | None = None,
) -> dict[PlaceMove, FallOdds]:
    """The chance that each legal placement of the current position topples the tower.

    ``state``: the position (the referee's state or one sampled from a player's view: only the
    tower is read). ``hand``: a named hand (``steady``, ``careful``, ``casual``, ``shaky``) or None
    for the match's own noise options. ``samples``: hands drawn per slot (more: smoother odds,
    slower; 48 keeps a 48-tile position under 50 ms). ``seed``: which hands are drawn (the same
    for every slot and every position). ``response``: the margin-to-fall curve (default: the
    one fitted to the referee for this hand and this tower's size, assets/tower/fall_odds.json).

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
    curve = fitted_curve(state, sigmas) if response is None else response
    slots = list(dict.fromkeys(m.slot for m in moves))
    aimed, sampled = slot_margins(state, slots, sigmas, samples, seed)
    odds = curve(sampled).mean(axis=1)
    by_slot = {slot: FallOdds(slot, float(odds[k]), float(aimed[k]), int((sampled[k] > 0).sum()), samples)
               for k, slot in enumerate(slots)}
    return {m: by_slot[m.slot] for m in moves}
