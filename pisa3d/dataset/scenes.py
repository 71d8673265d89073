"""A tower game played to the end, each placement caught as a scene: the standing tower and the
new tile at its release pose (the hand's noise applied), with the game's verdict as labels.

The release is computed from a copy of the state as it stood before the move, by the state's own
``release_of`` (the same seeded hand, the same clearance as the move): the scene shows exactly the
pose the engine was given.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
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
from ..games.tower.rules.moves import PlaceMove
from .labels import scene_labels
from .spec import DatasetSettings


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
    target: np.ndarray  # (7,) where the tile was meant to go
    settled: np.ndarray  # (N, 7): every tile when the verdict was reached (a fall: when it was declared)
    placed: Mapping[str, Any]  # the game's placed event: fell, displacement, rotation, margins, hand
    labels: dict[str, Any] = field(default_factory=dict)  # labels.py: margins of all, fall odds, hands, 2nd engine
    keep_probability: float = 1.0  # the chance this placement had of becoming a scene


@dataclass
class PlayedGame:
    game: dict[str, Any]  # the experiments' game row
    scenes: list[Scene]
    seconds: dict[str, float] = field(default_factory=dict)


def keep_probability(static_margin_mm: float | None, settings: DatasetSettings) -> float:
    """The chance a placement becomes a scene: 1 for a new tile released within
    ``keep_near_edge_mm`` of its statics edge (either side), ``keep`` for the others (and where
    statics has no answer). Rows store it, so the selection can be undone by weighting 1/p."""
    near = settings.keep_near_edge_mm
    if near is not None and static_margin_mm is not None and abs(static_margin_mm) <= near:
        return 1.0
    return settings.keep


def kept(seed: int, index: int, probability: float) -> bool:
    """Whether placement ``index`` of game ``seed`` becomes a scene (independent of the workers;
    one seeded draw per placement, so a scene kept at some probability is kept at any higher one)."""
    return probability >= 1.0 or float(make_rng(seed, Stream.DATASET_KEEP, index).random()) < probability


def play_scenes(trial: Mapping[str, Any], settings: DatasetSettings | None = None) -> PlayedGame:
    """Play ``trial`` (an experiments trial, as JSON) and return its game row and kept scenes,
    labelled as ``settings`` asks (default: every placement, the default labels)."""
    settings = settings if settings is not None else DatasetSettings()
    label_seconds: dict[str, float] = {}
    game = get_game(trial["game"])
    options = game.options({**trial["options"], "record_trajectories": False})
    agents = [parse_agent(a).build(game, seat, options) for seat, a in enumerate(trial["seating"])]
    scenes: list[Scene] = []
    before: list[TowerState] = []
    placed_count = [0]

    def on_events(player: int | None, move: Any, events: list[Any], state: Any) -> None:
        if player is not None and isinstance(move, PlaceMove):
            placed = next((e for e in events if e.kind == "placed"), None)
            if placed is not None:
                index = placed_count[0]
                placed_count[0] += 1
                probability = keep_probability(placed.data.get("static_margin_mm"), settings)
                if kept(trial["seed"], index, probability):
                    scene = _scene(before[0], state, player, move, index, placed.data)
                    scene.keep_probability = probability
                    scene.labels = scene_labels(before[0], move, scene.poses[-1], scene.target, trial["seed"],
                                                index, settings, label_seconds)
                    scenes.append(scene)
        before[:] = [state.clone()]

    start = time.perf_counter()
    outcome = play_match(game, agents, trial["seed"], options, on_events=on_events)
    seconds = time.perf_counter() - start - sum(label_seconds.values())  # the labels are timed apart
    moves = {id(e): m for m, entry in enumerate(outcome.record.moves) for e in entry.events}
    placed_moves = [moves[id(e)] for entry in outcome.record.moves for e in entry.events if e.kind == "placed"]
    for scene in scenes:
        scene.move = placed_moves[scene.index]
    return PlayedGame(game_row(trial, outcome, seconds), scenes, {"game": seconds, **label_seconds})


def _scene(prior: TowerState, after: TowerState, player: int, move: PlaceMove, index: int,
           placed: Mapping[str, Any]) -> Scene:
    face = prior.face_of(player)
    _, target = prior.intended_pose(move.slot, face, move.rotation)
    release = prior.release_of(player, target)  # the seeded hand's release, as the move made
    return Scene(
        index=index, move=-1, player=player, tile=int(placed["tile"]), slot=str(move.slot),
        kind=placement_kind(prior.structure, move.slot), floor=move.slot.floor,
        poses=np.vstack([prior.poses.reshape(-1, 7), release]), target=np.asarray(target, dtype=np.float64),
        settled=np.asarray(after.poses, dtype=np.float64).copy(), placed=dict(placed),
    )
