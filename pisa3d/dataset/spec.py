"""The dataset spec: an experiment spec (game, players, agents, seeds, options, sweep) plus a
``[dataset]`` table saying which placements become scenes and how they are drawn.

    game = "tower"
    agents = ["random"]
    seeds = 200

    [dataset]
    keep = 1.0                 # share of placements kept as scenes (seeded per placement)
    keep_near_edge_mm = 0.5    # optional: a new tile within 0.5 mm of its statics edge is always kept
    keep_margin_below_mm = 0.5 # optional: ... and one whose statics margin is below 0.5 mm (statics: it falls)
    keep_by_floor = [0.1, 0.5] # optional: outside those bands, floor 0 keeps keep x 0.1, floor 1 keep x 0.5
    keep_by_kind = {wall_on_wall = 0.2}   # optional: and times this for what the tile stands on (capped at 1)
    unseen_hand = {hand = "casual", share = 0.1}   # optional: games (by seed) at a hand for test_hand only
    resolution = [224, 224]    # width, height in pixels
    channels = ["rgb", "depth", "segmentation"]
    taller_from_floor = 3      # new tile on this floor or above: held out by height (see split_of)
    split = {train = 0.8, validation = 0.1, test = 0.1}   # games, by a hash of the seed

    [dataset.previews]         # optional: the slots not played, judged on a copy of the position
    enabled = false
    keep = 1.0                 # previews outside the bands above kept (seeded per slot)

    [dataset.cameras]          # a ring around the tower
    framing = "tower"          # or "fixed": the same distance and aim for every scene
    count = 4
    elevation_deg = 20.0
    distance_m = 0.45
    target_height_mm = 120.0
    fov_deg = 45.0

    [dataset.labels]
    fall_odds_samples = 48     # hands the fall-odds estimator draws (fall_odds.py's default)
    observed_share = 0.05      # share of scenes (seeded) whose fall rate over fresh hands is observed
    observed_splits = []       # every scene of these splits is observed too, e.g. ["test", "taller"]
    observed_hands = 16        # hands simulated per such scene
    second_engine = "mujoco"   # a second engine's verdict on the same release (omit: none)

    [dataset.appearance]       # off by default: one fixed look
    random_colours = false     # tiles and table in random colours, per scene (seeded by game and placement)
    random_lighting = false    # the light's direction, tint and shares, per scene (seeded)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..core.errors import OptionsError
from ..experiments.spec import (
    SPEC_KEYS,
    ExperimentSpec,
    _problems,
    apply_overrides,
    parse_value,
    refuse_fixed_and_swept,
)
from ..experiments.tower import PLACEMENT_KINDS

CHANNELS = ("rgb", "depth", "segmentation")
SPLITS = ("train", "validation", "test", "taller", "train_taller", "validation_taller", "test_hand")
MAX_KIND_FACTOR = 100.0  # above 1 raises a kind's keep (a kind held back by the floors' factors too)


class _Strict(BaseModel):
    # nan and inf are never a setting (TOML writes them as nan and inf)
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class Cameras(_Strict):
    # tower: each scene framed so the whole tower and its new tile are in sight (a tall tower seen
    # from farther); fixed: every scene from distance_m, aimed target_height_mm up (a tall tower's
    # top leaves the picture)
    framing: Literal["tower", "fixed"] = "tower"
    count: int = Field(default=4, ge=1, le=16)
    elevation_deg: float = Field(default=20.0, ge=-10.0, le=90.0)
    distance_m: float = Field(default=0.45, gt=0.05, le=10.0)
    azimuth_deg: float = Field(default=45.0, ge=-360.0, le=360.0)  # of the first camera; the others follow round
    target_height_mm: float = Field(default=120.0, ge=0.0, le=2000.0)
    fov_deg: float = Field(default=45.0, gt=1.0, lt=170.0)


class SplitShares(_Strict):
    train: float = Field(default=0.8, ge=0.0, le=1.0)
    validation: float = Field(default=0.1, ge=0.0, le=1.0)
    test: float = Field(default=0.1, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _sum_to_one(self) -> SplitShares:
        if abs(self.train + self.validation + self.test - 1.0) > 1e-9:
            raise ValueError("train + validation + test must be 1")
        return self


class LabelSettings(_Strict):
    fall_odds_samples: int = Field(default=48, ge=1, le=4096)  # hands the fall-odds estimator draws
    observed_share: float = Field(default=0.0, ge=0.0, le=1.0)  # scenes (seeded) given an observed fall rate
    observed_splits: list[str] = Field(default_factory=list)  # every scene of these splits is observed too
    observed_hands: int = Field(default=16, ge=1, le=1024)  # fresh hands simulated per such scene
    second_engine: str | None = None  # e.g. "mujoco": its verdict on the same release

    @model_validator(mode="after")
    def _known_engine(self) -> LabelSettings:
        if self.second_engine is not None:
            from ..physics import engine_names

            if self.second_engine not in engine_names():
                raise ValueError(f"second_engine {self.second_engine!r}: choose from {engine_names()}")
        unknown = [s for s in self.observed_splits if s not in SPLITS]
        if unknown:
            raise ValueError(f"observed_splits {unknown}: choose from {list(SPLITS)}")
        return self


class UnseenHand(_Strict):
    """A hand training never sees: a share of the games (by a hash of the seed) are played at it,
    and every scene of those games forms the split ``test_hand``."""

    hand: str
    share: float = Field(default=0.1, gt=0.0, lt=1.0)

    @model_validator(mode="after")
    def _named(self) -> UnseenHand:
        from ..games.tower.rules.options import named_hands

        if self.hand not in named_hands():
            raise ValueError(f"unseen_hand.hand {self.hand!r}: choose from {list(named_hands())}")
        return self


class PreviewSettings(_Strict):
    """Placements judged but not played: at every position of a game, each legal slot the player
    did not choose is released by a seeded hand (the match's noise) and settled by the referee on
    a copy of the position, the game going on as played. A game ends at its first fall, so played
    placements alone hold few falls; previews add the placements the players avoided. They are
    kept by the dataset's statics bands like played ones, the rest with probability ``keep``."""

    enabled: bool = False
    keep: float = Field(default=1.0, ge=0.0, le=1.0)  # previews outside the bands kept (seeded)


class AppearanceSettings(_Strict):
    random_colours: bool = False  # every tile and the table a random colour, per scene (seeded)
    random_lighting: bool = False  # the light's direction, tint and shares, per scene (seeded)


class DatasetSettings(_Strict):
    keep: float = Field(default=1.0, gt=0.0, le=1.0)
    keep_near_edge_mm: float | None = Field(default=None, gt=0.0, le=100.0)  # margins this close to 0: always kept
    keep_margin_below_mm: float | None = Field(default=None, ge=-100.0, le=100.0)  # margins below: always kept
    keep_by_floor: list[float] = Field(default_factory=list, max_length=500)  # floor f's others: keep times [f]
    keep_by_kind: dict[str, float] = Field(default_factory=dict)  # a kind's others: keep times this (capped at 1)
    previews: PreviewSettings = Field(default_factory=PreviewSettings)
    unseen_hand: UnseenHand | None = None
    resolution: list[int] = Field(default_factory=lambda: [224, 224], min_length=2, max_length=2)
    channels: list[str] = Field(default_factory=lambda: list(CHANNELS), min_length=1)
    taller_from_floor: int = Field(default=3, ge=1, le=500)
    split: SplitShares = Field(default_factory=SplitShares)
    cameras: Cameras = Field(default_factory=Cameras)
    labels: LabelSettings = Field(default_factory=LabelSettings)
    appearance: AppearanceSettings = Field(default_factory=AppearanceSettings)

    @model_validator(mode="after")
    def _check(self) -> DatasetSettings:
        unknown = [c for c in self.channels if c not in CHANNELS]
        if unknown:
            raise ValueError(f"unknown channel(s) {unknown}; choose from {list(CHANNELS)}")
        if len(set(self.channels)) != len(self.channels):
            raise ValueError("a channel is named twice")
        if any(not 0.0 < f <= 1.0 for f in self.keep_by_floor):
            raise ValueError("keep_by_floor: each factor above 0 and at most 1")
        unknown_kinds = sorted(set(self.keep_by_kind) - set(PLACEMENT_KINDS))
        if unknown_kinds:
            raise ValueError(f"keep_by_kind: unknown kind(s) {unknown_kinds}; choose from {list(PLACEMENT_KINDS)}")
        if any(not 0.0 < f <= MAX_KIND_FACTOR for f in self.keep_by_kind.values()):
            raise ValueError(f"keep_by_kind: each factor above 0 and at most {MAX_KIND_FACTOR:g} "
                             "(keep times it is capped at 1)")
        width, height = self.resolution
        if not (16 <= width <= 2048 and 16 <= height <= 2048):
            raise ValueError(f"resolution {width}x{height}: each side 16 to 2048 pixels")
        return self


def _unit(salt: str, seed: int) -> float:
    """A number in [0, 1) from a hash of ``seed``: the same on every machine and in every release."""
    return int.from_bytes(hashlib.sha256(f"{salt}:{seed}".encode()).digest()[:8], "big") / 2**64


def plays_unseen_hand(seed: int, settings: DatasetSettings) -> bool:
    """Whether game ``seed`` is played at the spec's unseen hand (a hash of the seed apart from the
    split's, so the other games split as they would without it)."""
    unseen = settings.unseen_hand
    return unseen is not None and _unit("pisa3d-dataset-unseen-hand", seed) < unseen.share


def split_of(seed: int, floor: int, settings: DatasetSettings) -> str:
    """The scene's split. A game goes to train / validation / test by a hash of its seed (its scenes
    stay together, and a seed lands in the same split in every release). Scenes from floor
    ``taller_from_floor`` up are held out by height: a test game's form ``taller``, so no tower in
    ``taller`` grew from one that train or validation show; a train or validation game's go to
    ``train_taller`` / ``validation_taller``, for training on every height when the hold-out is not
    wanted. With ``unseen_hand``, every scene of a game played at that hand is in ``test_hand``."""
    if plays_unseen_hand(seed, settings):
        return "test_hand"
    u = _unit("pisa3d-dataset-split", seed)
    shares = settings.split
    game = "train" if u < shares.train else "validation" if u < shares.train + shares.validation else "test"
    if floor < settings.taller_from_floor:
        return game
    return "taller" if game == "test" else f"{game}_taller"


def as_stored(dataset: Mapping[str, Any]) -> dict[str, Any]:
    """A stored spec's ``[dataset]`` table as this pisa3d reads it: one stored before framing was a
    setting drew every scene with the fixed cameras."""
    return {**dataset, "cameras": {"framing": "fixed", **(dataset.get("cameras") or {})}}


class DatasetSpec(ExperimentSpec):
    dataset: DatasetSettings = Field(default_factory=DatasetSettings)


DATASET_SPEC_KEYS = (*SPEC_KEYS, "dataset")


def validate_dataset_spec(raw: Mapping[str, Any], source: str = "spec") -> DatasetSpec:
    """The validated spec; OptionsError with one line naming each bad field and what is allowed."""
    raw = dict(raw)
    raw.setdefault("game", "tower")
    if raw["game"] != "tower":
        raise OptionsError(f"{source}: game {raw['game']!r}: datasets are of tower scenes; use game = \"tower\"")
    settings = raw.get("dataset", {})
    if not isinstance(settings, Mapping):
        raise OptionsError(f"{source}: [dataset] must be a table")
    try:
        DatasetSettings.model_validate(dict(settings))
    except ValidationError as exc:
        problems = "; ".join(dict.fromkeys(_problems(exc)))
        raise OptionsError(f"{source}: [dataset] {problems}. Allowed keys: "
                           f"{', '.join(DatasetSettings.model_fields)}") from None
    refuse_fixed_and_swept(raw, source)
    _refuse_hand_clash(raw, source)
    try:
        spec = DatasetSpec.model_validate(raw)
    except ValidationError as exc:
        problems = dict.fromkeys(_problems(exc, top_level=True))
        raise OptionsError(f"{source}: " + "; ".join(problems) + f". Allowed keys: {', '.join(DATASET_SPEC_KEYS)}"
                           ) from None
    spec.seed_values()
    spec.grid()
    return spec


def _refuse_hand_clash(raw: Mapping[str, Any], source: str) -> None:
    """An unseen hand is a test only if no other game plays it, and it is a hand only if no noise
    option overrides the named hands' sigmas."""
    unseen = (raw.get("dataset") or {}).get("unseen_hand")
    if not isinstance(unseen, Mapping):
        return
    given = {**(raw.get("options") or {}), **(raw.get("sweep") or {})}
    noise = [k for k in given if k.startswith("noise_")]
    if noise:
        raise OptionsError(f"{source}: [dataset] unseen_hand is a named hand, but {', '.join(noise)} set the noise "
                           "of every game; use options.hand instead")
    from ..games.tower.rules.options import default_hand

    hands = given.get("hand", default_hand())
    if unseen.get("hand") in (hands if isinstance(hands, list) else [hands]):
        raise OptionsError(f"{source}: [dataset] unseen_hand {unseen.get('hand')!r} is the hand of the training "
                           "games too; choose another")


def apply_dataset_overrides(raw: Mapping[str, Any], assignments: Sequence[str]) -> dict[str, Any]:
    """``--set`` for datasets: ``dataset.keep=0.5`` or ``dataset.cameras.count=8`` set a field of
    the [dataset] table; everything else is an experiment override (apply_overrides)."""
    ours = [a for a in assignments if a.strip().startswith("dataset.")]
    out = apply_overrides(raw, [a for a in assignments if a not in ours])
    table: dict[str, Any] = json.loads(json.dumps(raw.get("dataset", {})))  # a deep copy
    for pair in ours:
        key, sep, text = pair.partition("=")
        path = key.strip().split(".")[1:]
        if not sep or not all(path):
            raise OptionsError(f"--set {pair!r}: write dataset.FIELD=value, e.g. dataset.keep=0.5")
        node = table
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise OptionsError(f"--set {pair!r}: dataset.{part} is not a table")
        node[path[-1]] = parse_value(text.strip())
    out["dataset"] = table
    return out
