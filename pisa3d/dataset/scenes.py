"""A tower game played to the end, each placement caught as a scene: the standing tower and the
new tile at its release pose (the hand's noise applied), with the game's verdict as labels.

The release is computed from a copy of the state as it stood before the move, by the state's own
``release_of`` (the same seeded hand, the same clearance as the move): the scene shows exactly the
pose the engine was given.

Previews (``[dataset.previews]``): at each position, the legal slots the player did not choose,
each released by a hand of its own (seeded by game, placement and slot) and settled by the game's
referee on a copy of the position; the game goes on as played.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.match import play_match
from ..core.rng import Stream, make_rng
from ..experiments.agents import parse_agent
from ..experiments.rows import game_row
from ..experiments.tower import placement_kind
from ..games import get_game
from ..games.tower.play.state import TowerState
from ..games.tower.referee.judges import EngineJudge
from ..games.tower.rules.moves import PlaceMove
from ..games.tower.rules.structure import Slot
from ..games.tower.rules.units import MM_PER_M
from .labels import scene_labels
from .spec import DatasetSettings, plays_unseen_hand, split_of


@dataclass
class Scene:
    index: int  # placement index in the game (0 = first tile placed)
    move: int  # move index in the game's record
    player: int
    tile: int
    slot: str
    kind: str
    floor: int
    poses: np.ndarray  # (N, 7): the tower as it stood, then the new tile at its release pose
    velocities: np.ndarray  # (N, 6): each tile's linear (m/s) and angular (rad/s) velocity, world axes; new tile 0
    target: np.ndarray  # (7,) where the tile was meant to go
    settled: np.ndarray  # (N, 7): every tile when the verdict was reached (a fall: when it was declared)
    placed: Mapping[str, Any]  # the game's placed event: fell, displacement, rotation, margins, hand
    labels: dict[str, Any] = field(default_factory=dict)  # labels.py: margins of all, fall odds, hands, 2nd engine
    keep_probability: float = 1.0  # the chance this placement had of becoming a scene
    played: bool = True  # False: a preview, judged on a copy of the position and not played
    name: str = ""  # within the game: the placement index, and a preview's slot

    def __post_init__(self) -> None:
        self.name = self.name or f"{self.index:03d}"


@dataclass
class PlayedGame:
    game: dict[str, Any]  # the experiments' game row
    scenes: list[Scene]
    seconds: dict[str, float] = field(default_factory=dict)


def keep_probability(static_margin_mm: float | None, settings: DatasetSettings, played: bool = True,
                    floor: int = 0, kind: str | None = None) -> float:
    """The chance a placement becomes a scene: 1 for a new tile released within
    ``keep_near_edge_mm`` of its statics edge (either side) or with a margin below
    ``keep_margin_below_mm``; else ``keep`` (a preview: ``previews.keep``) times the factor of
    its ``floor`` in ``keep_by_floor`` (the low floors, where almost nothing falls) and that of its
    ``kind`` in ``keep_by_kind`` (what it stands on, so that no kind's fall share gives its
    verdict away), at most 1, also where statics has no answer. Chosen by the tower and the
    release alone, never by the outcome: rows store it, so weighting a row by 1/p undoes the
    selection."""
    near, below = settings.keep_near_edge_mm, settings.keep_margin_below_mm
    if static_margin_mm is not None and ((near is not None and abs(static_margin_mm) <= near)
                                         or (below is not None and static_margin_mm < below)):
        return 1.0
    keep = settings.keep if played else settings.previews.keep
    factors = settings.keep_by_floor
    keep = keep * factors[floor] if floor < len(factors) else keep
    return min(1.0, keep * settings.keep_by_kind.get(kind, 1.0)) if kind is not None else keep


def kept(seed: int, index: int, probability: float, slot: int | None = None) -> bool:
    """Whether placement ``index`` of game ``seed`` becomes a scene (independent of the workers;
    one seeded draw per placement, so a scene kept at some probability is kept at any higher one);
    ``slot``: a preview's slot number, drawn apart."""
    if probability >= 1.0:
        return True
    if probability <= 0.0:
        return False
    rng = make_rng(seed, Stream.DATASET_KEEP, index) if slot is None else make_rng(seed, Stream.DATASET_PREVIEW,
                                                                                    index, slot, 0)
    return float(rng.random()) < probability


def at_unseen_hand(trial: Mapping[str, Any], settings: DatasetSettings) -> Mapping[str, Any]:
    """The trial as the dataset plays it: at the spec's unseen hand for the games chosen for it."""
    if not plays_unseen_hand(trial["seed"], settings):
        return trial
    assert settings.unseen_hand is not None
    return {**trial, "options": {**trial["options"], "hand": settings.unseen_hand.hand}}


@dataclass(frozen=True)
class _FixedRelease:
    """The game's referee, the tile let go at a release chosen beforehand (a preview's)."""

    engine: EngineJudge
    pose: np.ndarray

    def release(self, states: np.ndarray, target: np.ndarray, hand: Any, noise_scale: float = 1.0) -> np.ndarray:
        return self.pose

    def settle(self, states: np.ndarray, release: np.ndarray, target: np.ndarray, aftermath: bool = False,
               margin: Callable[[], float] | None = None) -> Any:
        return self.engine.settle(states, release, target, aftermath, margin)


def previews(prior: TowerState, played: PlaceMove, seed: int, index: int,
             settings: DatasetSettings) -> list[tuple[Scene, PlaceMove, int]]:
    """The kept previews of position ``index`` (before ``played``), each with its move and its
    slot's number among the legal slots: every legal slot but the played one (its first legal
    move), released by a seeded hand, kept or not by its release's statics margin, then settled
    on a copy of ``prior``."""
    if not settings.previews.enabled:
        return []
    player = prior.current_player
    assert player is not None
    places = [m for m in prior.legal_moves() if isinstance(m, PlaceMove)]
    slots: dict[Slot, PlaceMove] = {}
    for move in places:
        slots.setdefault(move.slot, move)
    out = []
    judge = EngineJudge(prior.setup)
    for k, (slot, move) in enumerate(slots.items()):
        if slot == played.slot:
            continue
        _, target = prior.intended_pose(slot, prior.face_of(player), move.rotation)
        release = judge.release(prior.states, target, make_rng(seed, Stream.DATASET_PREVIEW, index, k, 1))
        margin = prior.static_margin(slot, release)
        margin_mm = round(float(margin) * MM_PER_M, 3) if np.isfinite(margin) else None
        probability = keep_probability(margin_mm, settings, played=False, floor=slot.floor,
                                       kind=placement_kind(prior.structure, slot))
        if not kept(seed, index, probability, k):
            continue
        after = prior.clone()
        after.judge = _FixedRelease(judge, release)
        placed = next(e for e in after.apply(move) if e.kind == "placed")
        scene = _scene(prior, after, player, move, index, placed.data, release)
        scene.keep_probability, scene.played, scene.name = probability, False, f"{index:03d}-{slot}"
        out.append((scene, move, k))
    return out


def play_scenes(trial: Mapping[str, Any], settings: DatasetSettings | None = None) -> PlayedGame:
    """Play ``trial`` (an experiments trial, as JSON; at the unseen hand when the spec's hash of
    its seed says so) and return its game row and kept scenes, previews after the played scene of
    their position, labelled as ``settings`` asks (default: every placement, the default labels)."""
    settings = settings if settings is not None else DatasetSettings()
    trial = at_unseen_hand(trial, settings)
    seed = trial["seed"]
    label_seconds: dict[str, float] = {"previews": 0.0}
    game = get_game(trial["game"])
    options = game.options({**trial["options"], "record_trajectories": False})
    agents = [parse_agent(a).build(game, seat, options) for seat, a in enumerate(trial["seating"])]
    scenes: list[Scene] = []
    before: list[TowerState] = []
    placed_count = [0]

    def label(prior: TowerState, scene: Scene, move: PlaceMove, key: tuple[int, ...]) -> Scene:
        scene.labels = scene_labels(prior, move, scene.poses[-1], scene.target, seed, key, settings, label_seconds,
                                    split_of(seed, scene.floor, settings))
        return scene

    def on_events(player: int | None, move: Any, events: list[Any], state: Any) -> None:
        if player is not None and isinstance(move, PlaceMove):
            placed = next((e for e in events if e.kind == "placed"), None)
            if placed is not None:
                index = placed_count[0]
                placed_count[0] += 1
                prior = before[0]
                probability = keep_probability(placed.data.get("static_margin_mm"), settings, floor=move.slot.floor,
                                               kind=placement_kind(prior.structure, move.slot))
                if kept(seed, index, probability):
                    scene = _scene(prior, state, player, move, index, placed.data,
                                   prior.release_of(player, prior.intended_pose(
                                       move.slot, prior.face_of(player), move.rotation)[1]))
                    scene.keep_probability = probability
                    scenes.append(label(prior, scene, move, (index,)))
                start = time.perf_counter()
                found = previews(prior, move, seed, index, settings)
                label_seconds["previews"] += time.perf_counter() - start
                for scene, preview_move, slot in found:  # labels drawn by slot: alike whatever else is kept
                    scenes.append(label(prior, scene, preview_move, (index, 1 + slot)))
        before[:] = [state.clone()]

    start = time.perf_counter()
    outcome = play_match(game, agents, seed, options, on_events=on_events)
    seconds = time.perf_counter() - start - sum(label_seconds.values())  # the labels are timed apart
    moves = {id(e): m for m, entry in enumerate(outcome.record.moves) for e in entry.events}
    placed_moves = [moves[id(e)] for entry in outcome.record.moves for e in entry.events if e.kind == "placed"]
    for scene in scenes:
        scene.move = placed_moves[scene.index]
    if not label_seconds["previews"]:
        del label_seconds["previews"]
    return PlayedGame(game_row(trial, outcome, seconds), scenes, {"game": seconds, **label_seconds})


def _scene(prior: TowerState, after: TowerState, player: int, move: PlaceMove, index: int,
           placed: Mapping[str, Any], release: np.ndarray) -> Scene:
    """The scene of ``move`` from ``prior``, its tile let go at ``release`` (the seeded hand's, as
    the move made), ``after`` the position the referee left."""
    _, target = prior.intended_pose(move.slot, prior.face_of(player), move.rotation)
    return Scene(
        index=index, move=-1, player=player, tile=int(placed["tile"]), slot=str(move.slot),
        kind=placement_kind(prior.structure, move.slot), floor=move.slot.floor,
        poses=np.vstack([prior.poses.reshape(-1, 7), release]),
        velocities=np.vstack([prior.states[:, 7:].reshape(-1, 6), np.zeros((1, 6))]),  # the engine's states
        target=np.asarray(target, dtype=np.float64),
        settled=np.asarray(after.poses, dtype=np.float64).copy(), placed=dict(placed),
    )
