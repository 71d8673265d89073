"""How the tower is shown to people: narration, the view and the end summary (narration.py), the
placements as a person tells them apart, why a pass was forced, and the statics hints and move
details (hints.py), gathered for the core's Presenter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ....core.events import Event
from ....core.presentation import Presenter
from ....core.state import Move, Result, View
from . import narration


class TowerPresenter(Presenter):
    def describe_event(self, event: Event) -> str | None:
        return narration.describe_event(event)

    def render_view(self, view: View) -> str:
        return narration.render_view(view)

    def summarize(self, result: Result, num_players: int) -> str:
        return narration.summarize(result, num_players)

    def phase_help(self, view: View) -> str:
        return narration.phase_help(view)

    def prompt_header(self, view: View) -> str:
        return narration.prompt_header(view)

    def listed_moves(self, view: View, legal_moves: Sequence[Move]) -> Sequence[Move]:
        """Each placement once: turns of a symmetric tile showing the same edges in a slot are
        one choice to a person (docs/tower.md, "Identical turns")."""
        from ..play.refusals import distinct_turns
        from ..rules.geometry import visible_bits

        hand = view.get("tile_in_hand")
        if hand is None:
            return legal_moves
        pattern = tuple(int(bit) for bit in hand["visible_pattern"])
        return distinct_turns(legal_moves, {r: visible_bits(pattern, r) for r in range(4)})  # type: ignore[arg-type]

    def forced_note(self, view: View, move: Move) -> str | None:
        """A forced pass says why the tile fits no slot."""
        from ..play.refusals import why_no_fit
        from ..play.sampling import sample_state
        from ..rules.moves import PassMove

        if not isinstance(move, PassMove) or view.get("current_player") is None:
            return None
        return why_no_fit(sample_state(view, int(view["player"]), np.random.default_rng(0)))

    # The statics planner behind hints and details loads only when a person or a page asks.
    def move_hints(self, view: View, legal_moves: Sequence[Move]) -> str | None:
        from .hints import statics_hints

        return statics_hints(view, legal_moves)

    def move_details(self, view: View, legal_moves: Sequence[Move],
                     figures: bool = True) -> dict[str, dict[str, Any]] | None:
        from .hints import placement_details, placement_poses

        return placement_details(view, legal_moves) if figures else placement_poses(view, legal_moves)
