"""The tower game ("GEMJI Pisa", RULES.md section 1): set-up, notation, agents, narration."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...core.contract import GameContract, as_action_id
from ...core.errors import OptionsError
from ...core.events import Event
from ...core.game import AgentFactory, Game
from ...core.observation import ObservationLayout
from ...core.options import GameOptions
from ...core.rng import make_rng
from ...core.state import Move, Result, State, View
from . import moves as notation
from .agents import AGENT_FACTORIES
from .observation import DISPLACEMENT_CLIP
from .observation import layout as observation_layout
from .options import TowerOptions
from .setup import build_setup
from .state import DEAL_STREAM, TowerState


class TowerGame(Game):
    id: ClassVar[str] = "tower"
    title: ClassVar[str] = "GEMJI Pisa tower"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    default_players: ClassVar[int] = 4
    options_model: ClassVar[type[GameOptions]] = TowerOptions
    # Deal and hand shakes come from streams of the seed; stacks lie face down; a placement that
    # breaks the rules is the rules' penalty (RULES.md section 1), not a refusal.
    contract: ClassVar[GameContract] = GameContract(chance="sampled", information="imperfect",
                                                    default_agent="random", illegal_attempts="penalised")

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        assert isinstance(options, TowerOptions)
        setup = build_setup(options)
        total = len(setup.tile_set)
        per_player = total // num_players
        if per_player < 1:
            raise OptionsError(f"tile set {setup.tile_set.name!r} has {total} tiles: too few for {num_players} players")
        order = [int(t) for t in make_rng(seed, DEAL_STREAM).permutation(total)]
        stacks = [order[seat * per_player:(seat + 1) * per_player] for seat in range(num_players)]
        state = TowerState(setup, num_players, seed, stacks)
        event = Event("deal", {"players": num_players, "tiles_each": per_player,
                               "left_out": total - per_player * num_players, "tile_set": setup.tile_set.name})
        return state, [event]

    # --- notation --------------------------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        return notation.parse_move(text)

    def _floors(self, num_players: int, options: GameOptions) -> int:
        assert isinstance(options, TowerOptions)
        total = len(build_setup(options).tile_set)
        return notation.max_floors(num_players * (total // num_players))

    def num_actions(self, num_players: int, options: GameOptions) -> int:
        return notation.num_actions(self._floors(num_players, options))

    def action_id(self, move: Move, num_players: int, options: GameOptions) -> int:
        return notation.action_id(move, self._floors(num_players, options))  # type: ignore[arg-type]

    def move_from_action(self, action: int, num_players: int, options: GameOptions) -> Move:
        floors = self._floors(num_players, options)
        return notation.move_from_action(as_action_id(action, notation.num_actions(floors)), floors)

    # --- declared facts ----------------------------------------------------------------------------
    def _tiles_in_play(self, num_players: int, options: GameOptions) -> int:
        assert isinstance(options, TowerOptions)
        return num_players * (len(build_setup(options).tile_set) // num_players)

    def utility_bounds(self, num_players: int, options: GameOptions) -> tuple[float, float]:
        return 0.0, 1.0  # a loss, a win; a draw gives everyone 0.5

    def max_decisions(self, num_players: int, options: GameOptions) -> int:
        # Each tile is placed at most once, and between two placements fewer turns pass without one
        # than tiles are left (then the game is a draw).
        tiles = self._tiles_in_play(num_players, options)
        return tiles + (tiles + 1) * tiles

    def observation_layout(self, num_players: int, options: GameOptions) -> ObservationLayout:
        return observation_layout(num_players, self._tiles_in_play(num_players, options))

    def observation_bounds(self, num_players: int, options: GameOptions) -> tuple[float, float]:
        return -DISPLACEMENT_CLIP, DISPLACEMENT_CLIP

    def observation_shape(self, num_players: int, options: GameOptions) -> tuple[int, ...]:
        return self.observation_layout(num_players, options).shape

    # --- agents and presentation -----------------------------------------------------------------
    @property
    def agents(self) -> Mapping[str, AgentFactory]:
        return AGENT_FACTORIES

    def sample_state(self, view: View, player: int, rng: np.random.Generator) -> State:
        """Everything is on the table except the order of the other stacks: see tower/views.py."""
        from .views import sample_state

        return sample_state(view, player, rng)

    def describe_event(self, event: Event) -> str | None:
        d = event.data
        if event.kind == "deal":
            return f"Dealt {d['tiles_each']} tiles to each of {d['players']} players ({d['left_out']} left out)"
        if event.kind == "placed":
            verdict = "FELL" if d["fell"] else "stands"
            return (f"player {d['player'] + 1} puts tile {d['tile']} ({d['face']}) at {d['move']}: {verdict}, "
                    f"largest move {d['max_displacement_mm']:.2f} mm / {d['max_rotation_deg']:.2f} deg, "
                    f"height {d['height_mm']:.1f} mm")
        if event.kind == "passed":
            return f"player {d['player'] + 1} cannot place tile {d['tile']}: it goes to the bottom of the stack"
        if event.kind == "penalty":
            return (f"player {d['player'] + 1} tried {d['move']} with tile {d['tile']}, against the rules "
                    f"({d['reason']}): taken back, tile to the bottom, next turn skipped")
        if event.kind == "tower_fell":
            return f"the tower fell: everyone but player {d['player'] + 1} wins"
        if event.kind == "last_tile":
            return f"player {d['player'] + 1} placed their last tile and wins"
        if event.kind == "draw":
            return f"no placement in {d['turns_without_placement']} turns ({d['tiles_left']} tiles left): a draw"
        return f"{event.kind}: {d}"

    def render_view(self, view: View) -> str:
        lines = [f"Tower: {view['floors']} floor(s), {len(view['placements'])} tiles, "
                 f"height {view['height_mm']:.1f} mm; open floor {view['open_floor']}"]
        for p in view["placements"]:
            lines.append(f"  {p['slot']:>5} r{p['rotation']} tile {p['tile']:2d} {p['face']:5} edges {p['bits']} "
                         f"(top right bottom left, 1 = stroked) by player {p['player'] + 1}")
        hand = view["tile_in_hand"]
        if hand is not None:
            lines.append(f"Tile in hand: {hand['tile']} showing {hand['face']} edges {hand['visible_pattern']} at r0")
        lines.append("Stacks: " + ", ".join(f"player {i + 1}: {n}" for i, n in enumerate(view["stack_sizes"])))
        return "\n".join(lines)

    def summarize(self, result: Result, num_players: int) -> str:
        d: dict[str, Any] = result.details
        how = {"fall": f"the tower fell (placed by player {(d.get('placer') or 0) + 1})",
               "last_tile": f"player {(d.get('placer') or 0) + 1} placed their last tile",
               "draw": "no more placements: a draw"}.get(d.get("outcome", ""), d.get("outcome", "?"))
        winners = ", ".join(f"player {w + 1}" for w in result.winners) or "nobody (draw)"
        return (f"End: {how}\nWinners: {winners}\n"
                f"Tower: {d.get('height_mm', 0):.1f} mm high, {d.get('floors', 0)} floor(s), "
                f"{d.get('placements', 0)} tiles placed")
