"""A tower game in progress: plain data (stacks, placements, every tile's pose and velocity) plus
the rules that advance it.

What a released tile does is decided by the judge the state is given when it is made
(judges.py): the engine's by default, which asks the process's shared engine to settle the release
from ``self.states``; verdicts are history-free (pisa3d/physics/contract.py), so a clone, a state
rebuilt in another process, or one whose look-ahead (``preview``) judged other releases continues
bit for bit like the original. A state holds no engine, so neither does a finished game or its
outcome. A rules-only replay (``apply_recorded``) hands each move the record's judge instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ....core.errors import IllegalMoveError
from ....core.events import Event
from ....core.rng import Stream, make_rng
from ....core.state import Move, Result, State, View
from ....physics import Verdict, box_corners, pose_differences
from ..referee.judges import EngineJudge, PlacementJudge, RecordedJudge
from ..rules.geometry import visible_bits
from ..rules.moves import NOTATION_HELP, PASS, PassMove, PlaceMove, TowerMove, max_floors
from ..rules.options import TowerOptions
from ..rules.setup import TowerSetup
from ..rules.structure import Placement, Slot, Structure
from ..rules.tiles import Face, face_of_seat
from ..rules.units import MM_PER_M
from ..statics.placement import intended_pose
from ..statics.statics import placement_margin, placement_weakest
from .refusals import where_it_fits

RECORDED_PHYSICS = (
    "max_displacement_mm", "max_rotation_deg", "worst_tile", "steps", "height_mm",
    "static_margin_mm", "target_margin_mm", "hand_offset_mm", "hand_turn_deg", "second_opinion",
)
"""Fields of a placed event that the simulation decides (the release is set clear of the tiles by
the engine, the margins read settled poses); a rules-only replay copies them from the record."""


def _second_opinion(verdict: Verdict) -> dict[str, Any]:
    """The placed event's note of a second engine's verdict, when the referee asked one."""
    if verdict.second_opinion is None:
        return {}
    engine, fell = verdict.second_opinion
    return {"second_opinion": {"engine": engine, "fell": fell}}


def _mm_or_none(metres: float) -> float | None:
    return round(metres * MM_PER_M, 3) if np.isfinite(metres) else None


class TowerState(State):
    game_id = "tower"

    def __init__(
        self, setup: TowerSetup, num_players: int, seed: int, stacks: list[list[int]],
        judge: PlacementJudge | None = None,
    ) -> None:
        self.setup = setup
        self.judge: PlacementJudge = judge if judge is not None else EngineJudge(setup)
        self.num_players = num_players
        self.seed = seed
        self.stacks = stacks  # per seat, index 0 is the top tile
        self.structure = Structure()
        self.nominal_poses: list[np.ndarray] = []  # slot pose at placement time (layout heights)
        self.targets: list[np.ndarray] = []  # intended pose on the tower as it stood
        self.states = np.zeros((0, 13))  # every tile's settled pose and velocity, placement order
        self.skip_next = [False] * num_players
        self.non_placements_in_row = 0
        self.history: list[str] = []
        self.outcome: dict[str, Any] | None = None
        self._current: int | None = 0
        self._extras: dict[str, Any] | None = None
        self._legal: list[TowerMove] | None = None
        self.tiles_in_play = sum(len(s) for s in stacks)
        # Per stack: how many tiles at its top nobody has seen yet (a pass or penalty shows one).
        self.unseen = [len(s) for s in stacks]

    @property
    def options(self) -> TowerOptions:
        return self.setup.options

    # --- copies ---------------------------------------------------------------------------------
    def clone(self) -> TowerState:
        """An independent copy sharing nothing mutable (there is no engine to copy)."""
        other = TowerState(self.setup, self.num_players, self.seed, [list(s) for s in self.stacks], self.judge)
        other.structure = Structure(self.structure.placements)
        other.nominal_poses = [p.copy() for p in self.nominal_poses]
        other.targets = [p.copy() for p in self.targets]
        other.states = self.states.copy()
        other.skip_next = list(self.skip_next)
        other.non_placements_in_row = self.non_placements_in_row
        other.history = list(self.history)
        other.outcome = dict(self.outcome) if self.outcome is not None else None
        other._current = self._current
        other.tiles_in_play = self.tiles_in_play
        other.unseen = list(self.unseen)
        return other

    def __deepcopy__(self, memo: dict) -> TowerState:
        return self.clone()

    @property
    def poses(self) -> np.ndarray:
        """(N, 7) settled poses, placement order."""
        return self.states[:, :7]

    # --- turn order -------------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.outcome is not None else self._current

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def placements(self) -> list[Placement]:
        return self.structure.placements

    def face_of(self, seat: int) -> Face:
        return face_of_seat(seat)

    def top_tile(self, seat: int) -> int:
        return self.stacks[seat][0]

    def _advance(self, player: int) -> None:
        seat = player
        for _ in range(2 * self.num_players):
            seat = (seat + 1) % self.num_players
            if self.skip_next[seat]:
                self.skip_next[seat] = False
                continue
            break
        self._current = seat
        self._legal = None

    # --- rules --------------------------------------------------------------------------------------
    def bits_for(self, seat: int, rotation: int) -> tuple[int, int, int, int]:
        """The edge bits ``seat``'s top tile would show turned by ``rotation``."""
        return self.bits_for_tile(self.top_tile(seat), self.face_of(seat), rotation)

    def bits_for_tile(self, tile: int, face: Face, rotation: int) -> tuple[int, int, int, int]:
        return visible_bits(self.setup.tile_set.tiles[tile].pattern(face), rotation)

    def legal_placements(self) -> list[PlaceMove]:
        player = self.current_player
        if player is None:
            return []
        rules = self.setup.rules
        moves = []
        for slot in self.structure.candidate_slots():
            if not self.structure.slot_rules(slot, rules).legal:
                continue
            for rotation in range(4):
                if not self.structure.mismatches(slot, self.bits_for(player, rotation)):
                    moves.append(PlaceMove(slot, rotation))
        return moves

    def legal_moves(self) -> Sequence[Move]:
        if self.is_over:
            return []
        if self._legal is None:
            placements = self.legal_placements()
            self._legal = list(placements) if placements else [PASS]
        return list(self._legal)

    def rule_check(self, move: PlaceMove) -> str | None:
        """Why this well-formed placement breaks the rules, or None when it is legal."""
        assert self.current_player is not None
        check = self.structure.check(move.slot, self.bits_for(self.current_player, move.rotation), self.setup.rules)
        return None if check.legal else check.reason

    def refusal(self, move: Move) -> str | None:
        """None for a legal move; else the rule it breaks (a pass while a placement exists, a slot
        that does not exist or is taken, or ``Structure.check``'s reason) and where the tile fits.
        A placement the rules forbid is refused here, although ``apply`` takes it (as the rules'
        penalty)."""
        if self.is_over:
            return f"{move} is not allowed: the game is over"
        if not isinstance(move, PlaceMove | PassMove):
            return f"{move!r} is not a tower move; {NOTATION_HELP}"
        if move in self.legal_moves():
            return None
        if isinstance(move, PassMove):
            return f"pass is not allowed: a pass is only for a tile that fits no slot, and {where_it_fits(self)}"
        try:
            self.check_well_formed(move)
        except IllegalMoveError as exc:
            return f"{exc}; {where_it_fits(self)}"
        return f"{move} breaks the rules: {self.rule_check(move)}; {where_it_fits(self)}"

    def check_well_formed(self, move: object) -> TowerMove:
        """``move`` as a tower move that ``apply`` can take (a legal move, or a placement in a
        free slot that the rules may still penalise); IllegalMoveError saying why not."""
        if isinstance(move, str):
            raise IllegalMoveError("give a move object (use TowerGame.parse_move for text)")
        if not isinstance(move, PlaceMove | PassMove):
            raise IllegalMoveError(f"not a tower move: {move!r}")
        if isinstance(move, PassMove):
            if self.legal_moves() != [PASS]:
                raise IllegalMoveError(self.refusal(move) or "pass is allowed only when no placement is legal")
            return move
        floors = max_floors(self.tiles_in_play)
        if not 0 <= move.slot.floor < floors:
            raise IllegalMoveError(f"{move}: there is no floor {move.slot.floor}; floors run 0 to {floors - 1}")
        if not 0 <= move.rotation < 4:
            raise IllegalMoveError(f"{move}: rotations are 0 to 3")
        if move.slot in self.structure.by_slot:
            raise IllegalMoveError(f"{move}: slot {move.slot} already holds a tile")
        return move

    # --- applying moves -----------------------------------------------------------------------------
    def apply(self, move: Move) -> list[Event]:
        return self._apply(move, self.judge)

    def _apply(self, move: Move, judge: PlacementJudge) -> list[Event]:
        if self.is_over:
            raise IllegalMoveError("the game is over; no more moves")
        player = self.current_player
        assert player is not None
        tower_move = self.check_well_formed(move)
        self._extras = None
        self.history.append(str(tower_move))
        if isinstance(tower_move, PassMove):
            events = [Event("passed", {"player": player, "tile": self.top_tile(player)})]
            self._tile_to_bottom(player)
            return events + self._after_non_placement(player)
        reason = self.rule_check(tower_move)
        if reason is not None:
            events = [Event("penalty", {"player": player, "tile": self.top_tile(player), "move": str(tower_move),
                                        "reason": reason})]
            self._tile_to_bottom(player)
            self.skip_next[player] = True
            return events + self._after_non_placement(player)
        return self._place(player, tower_move, judge)

    def _tile_to_bottom(self, player: int) -> None:
        stack = self.stacks[player]
        stack.append(stack.pop(0))
        self._top_seen(player)

    def _top_seen(self, player: int) -> None:
        """The top tile of ``player``'s stack left it face up (placed, or shown and put under)."""
        self.unseen[player] = max(0, self.unseen[player] - 1)

    def _after_non_placement(self, player: int) -> list[Event]:
        self.non_placements_in_row += 1
        left = sum(len(s) for s in self.stacks)
        if self.non_placements_in_row >= left:
            self.outcome = {"kind": "draw", "winners": [], "placer": None}
            return [Event("draw", {"turns_without_placement": self.non_placements_in_row, "tiles_left": left})]
        self._advance(player)
        return []

    def intended_pose(self, slot: Slot, face: Face, rotation: int) -> tuple[np.ndarray, np.ndarray]:
        """(nominal slot pose from the layout, target pose carried by the tower as it stands)."""
        return intended_pose(self.setup.layout, self.structure, self.nominal_poses, self.poses, slot, face, rotation)

    def release_of(self, player: int, target: np.ndarray) -> np.ndarray:
        """Where ``player``'s seated hand lets go of the current tile meant for ``target`` (the
        noise of this placement, drawn from the game's seed: the release ``apply`` makes)."""
        return self.judge.release(self.states, target, self._hand(player))

    def _hand(self, player: int) -> np.random.Generator:
        return make_rng(self.seed, Stream.TOWER_HANDS, player, len(self.placements))

    def _place(self, player: int, move: PlaceMove, judge: PlacementJudge) -> list[Event]:
        tile = self.top_tile(player)
        face = self.face_of(player)
        nominal, target = self.intended_pose(move.slot, face, move.rotation)
        release = judge.release(self.states, target, self._hand(player))
        aftermath = self.setup.options.record_trajectories  # frames of the tower coming down, for replays
        aimed, released = (self.static_margin(move.slot, pose) for pose in (target, release))
        verdict = judge.settle(self.states, release, target, aftermath=aftermath, margin=lambda: released)
        standing = self.height()  # the tower before this tile: what stands if it brings it down
        self.stacks[player].pop(0)
        self._top_seen(player)
        bits = self.bits_for_tile(tile, face, move.rotation)
        self.structure.add(Placement(tile, face, move.slot, move.rotation, player, bits))
        self.nominal_poses.append(nominal)
        self.targets.append(target)
        self.states = np.array(verdict.states, dtype=np.float64)
        self.non_placements_in_row = 0
        self._legal = None
        # How far (across the table) and how much turned the hand let go from where the tile was
        # meant to go: the drawn noise, plus any slide clear of neighbours. Experiments relate it
        # to the verdict; the lift by the clearance is left out.
        hand_offset = float(np.hypot(*(release[:2] - target[:2])))
        _, hand_turn = pose_differences(target, release)
        events = [Event("placed", {
            "player": player, "tile": tile, "face": face.label, "move": str(move),
            "fell": verdict.fell,
            "max_displacement_mm": round(verdict.max_displacement * MM_PER_M, 4),
            "max_rotation_deg": round(verdict.max_rotation_deg, 4),
            "worst_tile": verdict.worst_tile, "steps": verdict.steps,
            "height_mm": round((standing if verdict.fell else self.height()) * MM_PER_M, 3),
            "static_margin_mm": _mm_or_none(released), "target_margin_mm": _mm_or_none(aimed),
            "hand_offset_mm": round(hand_offset * MM_PER_M, 4), "hand_turn_deg": round(float(hand_turn), 4),
            **_second_opinion(verdict),
        })]
        if self.setup.options.record_trajectories:
            self._extras = {"release": [round(float(v), 7) for v in release],
                            "trajectory": verdict.trajectory.to_json()}
        if verdict.fell:
            winners = [s for s in range(self.num_players) if s != player]
            self.outcome = {"kind": "fall", "winners": winners, "placer": player, "standing_height": standing}
            events.append(Event("tower_fell", {"player": player, "winners": winners}))
        elif not self.stacks[player]:
            self.outcome = {"kind": "last_tile", "winners": [player], "placer": player}
            events.append(Event("last_tile", {"player": player}))
        else:
            self._advance(player)
        return events

    def static_margin(self, slot: Slot, pose: np.ndarray) -> float:
        """Static margin (metres, statics.py) of a tile at ``pose`` in ``slot`` on the tower as it
        stands: the least of every tile group holding it. Negative: statics says it falls."""
        slots = [p.slot for p in self.placements]
        return placement_margin(slots, self.poses, slot, pose, self.setup.tile_spec.half_extents)

    def weakest_group(self, slot: Slot, pose: np.ndarray) -> tuple[str, float]:
        """The group that gives ``static_margin(slot, pose)``, by name (the tile's own slot, a tile below
        that roots a column of walls it tops, or a level), and that margin (metres)."""
        slots = [p.slot for p in self.placements]
        return placement_weakest(slots, self.poses, slot, pose, self.setup.tile_spec.half_extents)

    # --- rules-only replay of a record ------------------------------------------------------------
    def apply_recorded(self, move: Move, events: list[Event], extras: dict[str, Any] | None) -> list[Event]:
        """Apply ``move`` trusting the record's physics: whether the tower fell and the settled
        poses (the last frame of the move's trajectory, when recorded) come from the record, and
        its figures (displacement, rotation, steps, height) are copied into the placed event.
        The rules still decide turn order, legality, penalties and the end. Nothing is simulated."""
        placed = next((event for event in events if event.kind == "placed"), None)
        produced = self._apply(move, RecordedJudge(placed, extras))
        if placed is None:
            return produced
        trusted = {key: placed.data[key] for key in RECORDED_PHYSICS if key in placed.data}
        return [Event(e.kind, {**e.data, **trusted}) if e.kind == "placed" else e for e in produced]

    def preview(
        self, move: PlaceMove, hand: np.random.Generator | None = None, noise_scale: float = 1.0
    ) -> Verdict:
        """What releasing the current tile at ``move`` would do, without changing the game (the
        state is not touched, and verdicts are history-free). The hand noise is drawn from ``hand`` (a bot's
        own generator: it cannot know how the real hand will shake), its sigmas times
        ``noise_scale``; None: a steady hand."""
        player = self.current_player
        if player is None or self.rule_check(move) is not None:
            raise IllegalMoveError(f"cannot preview {move}: not a legal placement now")
        _, target = self.intended_pose(move.slot, self.face_of(player), move.rotation)
        release = self.judge.release(self.states, target, hand, noise_scale)
        return self.judge.settle(self.states, release, target, margin=lambda: self.static_margin(move.slot, release))

    # --- reporting ------------------------------------------------------------------------------------
    def take_record_extras(self) -> dict[str, Any] | None:
        extras, self._extras = self._extras, None
        return extras

    def standing_height(self) -> float:
        """The height a game reports (metres): the highest tile corner above the table; after a
        fall, of the tower as it stood before the placement that brought it down.

        The tiles' poses at a fall verdict are caught mid-fall, and each engine notices a fall
        at its own moment (PyBullet early, MuJoCo with the tower half down), so a height read
        then would depend on the engine; the tower the players built does not."""
        if self.outcome is not None and "standing_height" in self.outcome:
            return float(self.outcome["standing_height"])
        return self.height()

    def height(self) -> float:
        """Height of the highest tile corner above the table as the tiles lie now, metres."""
        if len(self.poses) == 0:
            return 0.0
        half = self.setup.tile_spec.half_extents
        return float(max(box_corners(pose, half)[:, 2].max() for pose in self.poses))

    def result(self) -> Result:
        self.check_over()
        winners = tuple(self.outcome["winners"])
        if self.outcome["kind"] == "draw":
            scores = tuple(0.5 for _ in range(self.num_players))
        else:
            scores = tuple(1.0 if s in winners else 0.0 for s in range(self.num_players))
        details = {
            "outcome": self.outcome["kind"],
            "placer": self.outcome["placer"],
            "height_mm": round(self.standing_height() * MM_PER_M, 3),
            "floors": self.structure.num_floors,
            "placements": len(self.placements),
            "tiles_left": [len(s) for s in self.stacks],
        }
        return Result(scores, winners, details)

    def public_view(self) -> View:
        from .views import public_view

        return public_view(self)

    def private_view(self, player: int) -> View:
        from .views import private_view

        return private_view(self, self.check_seat(player))

    def observation(self, player: int) -> np.ndarray:
        from .observation import observe

        return observe(self, self.check_seat(player))
