"""What the statics judge says of a person's options: the answer to ``hint`` at the terminal.

A sparring partner that explains itself: every legal slot with the margin the careful bot sees
(the new tile at its target pose, a steady hand), the worst margin of the placement after it, and
the chance that it falls with the match's hand (fall_odds.py: the same judge over sampled hands,
calibrated against the physics referee; a margin in mm is not a risk a player can weigh).
Built from the person's view alone (``sample_state``: the tower is in plain sight, so the judge
needs nothing hidden), without simulation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ....core.state import Move, View
from ..bots.planning import SlotScore, StaticsPlanner
from ..odds.fall_odds import fall_odds
from ..play.sampling import sample_state
from ..rules.moves import PlaceMove
from ..rules.units import MM_PER_M

if TYPE_CHECKING:
    from ..play.state import TowerState
    from ..rules.tiles import Face

RISKY_MM = 1.0  # under this margin the hand's noise topples some placements (docs/tower.md)


def _verdict(score: SlotScore) -> str:
    if score.margin <= 0:
        return "falls now"
    if score.future <= 0:
        return "stands, but a next placement would topple it"
    if min(score.margin, score.future) * MM_PER_M < RISKY_MM:
        return "thin: a shaky hand may topple it"
    return "safe"


def _mm(value: float) -> str:
    return "-" if not np.isfinite(value) else f"{value * MM_PER_M:+.2f} mm"


def percent(odds: float) -> str:
    """Fall odds as a player reads them: whole percent, one decimal under 10%."""
    value = 100.0 * odds
    return f"{value:.1f}%" if value < 10 else f"{value:.0f}%"


def statics_hints(view: View, legal_moves: Sequence[Move]) -> str:
    """Every legal slot, safest first by the careful bot's ranking, with its margins."""
    places = [m for m in legal_moves if isinstance(m, PlaceMove)]
    if not places:
        return "No placement is legal: the tile goes to the bottom of your stack."
    # The other stacks' order, which the view hides, is drawn; the judge never looks at it.
    state = sample_state(view, int(view["player"]), np.random.default_rng(0))
    ranked = StaticsPlanner().rank(state, places)
    odds = {move.slot: o.odds for move, o in fall_odds(state).items()}
    sigma = view["options"]["noise_position_mm"]
    lines = [f"Statics, as the careful bot sees it (no simulation; your hand shakes by {sigma:g} mm):",
             "   slot   margin now   worst next   falls   verdict"]
    lines += [f"  {s.slot!s:>5}   {_mm(s.margin):>10}   {_mm(s.future):>10}   {percent(odds[s.slot]):>5}   "
              f"{_verdict(s)}" for s in ranked]
    safest = min(ranked, key=lambda s: odds[s.slot]).slot
    lines.append(f"The careful bot would play {ranked[0].slot}, the safest bot {safest}. A margin is how far the "
                 "centre of mass lies inside its support (negative: outside); 2 mm is a wall standing on anything. "
                 "'falls': the chance this placement topples the tower with your hand (statics over sampled "
                 "hands, calibrated against the physics). The tile's turn changes which edges meet, not the "
                 "margins.")
    return "\n".join(lines)


def placement_details(view: View, legal_moves: Sequence[Move]) -> dict[str, dict[str, Any]]:
    """Per legal placement (by notation), what a page draws and says beside it: the pose the
    tile is aimed at (a ghost there), the careful bot's margins and verdict, and its rank
    (0: the careful bot's choice). From the view alone, as ``statics_hints``."""
    places, state, face = _placements_seen(view, legal_moves)
    if not places:
        return {}
    ranked = StaticsPlanner().rank(state, places)
    by_slot = {score.slot: (rank, score) for rank, score in enumerate(ranked)}
    odds = fall_odds(state)  # with the match's own hand
    details = {}
    for move in places:
        rank, score = by_slot[move.slot]
        _, target = state.intended_pose(move.slot, face, move.rotation)
        details[str(move)] = {
            "pose": [round(float(v), 6) for v in target], "rank": rank, "verdict": _verdict(score),
            "margin_mm": _finite_mm(score.margin), "worst_next_mm": _finite_mm(score.future),
            "fall_odds": round(odds[move].odds, 4) if move in odds else None,
        }
    return details


def placement_poses(view: View, legal_moves: Sequence[Move]) -> dict[str, dict[str, Any]]:
    """Per legal placement, only the pose the tile is aimed at (a ghost there): what a page
    draws when the match shows no safety figures (hints off, for competitive play)."""
    places, state, face = _placements_seen(view, legal_moves)
    if not places:
        return {}
    return {str(move): {"pose": [round(float(v), 6) for v in state.intended_pose(move.slot, face, move.rotation)[1]]}
            for move in places}


def _placements_seen(view: View, legal_moves: Sequence[Move]) -> tuple[list[PlaceMove], TowerState | None, Face | None]:
    """The legal placements, and the position and face the seat sees (rebuilt from its view with a
    fixed generator: the same view always gives the same figures); no rebuild without a placement."""
    places = [m for m in legal_moves if isinstance(m, PlaceMove)]
    if not places:
        return places, None, None
    player = int(view["player"])
    state = sample_state(view, player, np.random.default_rng(0))
    return places, state, state.face_of(player)


def _finite_mm(value: float) -> float | None:
    return round(float(value) * MM_PER_M, 3) if np.isfinite(value) else None
