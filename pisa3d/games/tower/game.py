"""The tower game ("GEMJI Pisa", RULES.md section 1): set-up, notation, declared facts, agents."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...core.contract import GameContract, GameParts, as_action_id
from ...core.errors import OptionsError
from ...core.events import Event
from ...core.game import AgentFactory, Game
from ...core.observation import ObservationLayout
from ...core.options import GameOptions
from ...core.rng import Stream, make_rng
from ...core.state import Move, State, View
from .bots.agents import AGENTS
from .play.observation import DISPLACEMENT_CLIP
from .play.observation import layout as observation_layout
from .play.state import TowerState
from .referee.judges import EngineJudge
from .rules import moves as notation
from .rules.options import TowerOptions
from .rules.setup import build_setup

PORTABLE_SINCE = "0.2.0"
"""The first pisa3d whose tower games do not depend on the CPU (no BLAS in the game's maths,
pisa3d/physics/poses.py); records of earlier versions re-play otherwise."""

MUJOCO_REVISED_IN = "0.3.0"
"""The first pisa3d whose MuJoCo lifts a touching tile straight up and gives tiles a soft skin over a
stiff core (docs/tower-physics.md); MuJoCo records of earlier versions re-play otherwise."""

LETTING_GO_SINCE = "0.4.0"
"""The first pisa3d whose hand lets go of a new tile over ``release_time`` (docs/tower-physics.md,
"The hand lets go"); earlier records let go at once, so they re-play with ``release_time`` 0."""

SECOND_OPINION_SINCE = "0.8.0"
"""The first pisa3d whose referee asks a second engine about a fall that statics disputes
(``second_opinion_mm``); earlier records let the engine alone decide, so they re-play without it."""


def _older_than(version: str, than: str) -> bool:
    """Is release ``version`` (major.minor.patch) older than ``than``? Unreadable: not known older."""
    try:
        return tuple(int(part) for part in version.split(".")[:3]) < tuple(int(part) for part in than.split("."))
    except ValueError:
        return False


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
    parts: ClassVar[GameParts] = GameParts(presenter="pisa3d.games.tower.presentation.presenter:TowerPresenter",
                                           replay_notice="pisa3d.games.tower.presentation.replay:replay_notice",
                                           cli_extras="pisa3d.cli.play_tower",
                                           detail_rows="pisa3d.experiments.tower:placement_rows",
                                           row_figures="pisa3d.experiments.tower:row_figures",
                                           report="pisa3d.experiments.tower",
                                           live_framing="pisa3d.games.tower.presentation.framing")

    def record_options(self, header: Mapping[str, Any]) -> dict[str, Any]:
        options = super().record_options(header)
        made_by = str(header.get("pisa3d_version", ""))
        params = options.get("physics_params")
        if _older_than(made_by, LETTING_GO_SINCE) and isinstance(params, Mapping) and "release_time" not in params:
            options["physics_params"] = {**params, "release_time": 0.0}
        if _older_than(made_by, SECOND_OPINION_SINCE) and "second_opinion_mm" not in options:
            options["second_opinion_mm"] = None  # the engine alone decided
        return options

    def divergence_note(self, header: Mapping[str, Any]) -> str | None:
        made_by = str(header.get("pisa3d_version", ""))
        if _older_than(made_by, PORTABLE_SINCE):
            return (f"this record was made by pisa3d {made_by}, whose tower physics depended in the last bits on "
                    f"the CPU's BLAS kernel; pisa3d {PORTABLE_SINCE} and later play a game alike on every machine "
                    f"but not as earlier versions did, so it verifies only with pisa3d {made_by} on the kind of "
                    "machine that made it; its stored events still narrate, export and play (docs/records.md)")
        options = header.get("options")
        engine = options.get("physics") if isinstance(options, Mapping) else None
        if engine == "mujoco" and _older_than(made_by, MUJOCO_REVISED_IN):
            return (f"this MuJoCo record was made by pisa3d {made_by}; pisa3d {MUJOCO_REVISED_IN} changed how MuJoCo "
                    "releases a tile that touches another and gave its tiles a soft skin (docs/tower-physics.md), "
                    f"so it verifies only with pisa3d {made_by}; its stored events still narrate, export and play "
                    "(docs/records.md)")
        return None

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        assert isinstance(options, TowerOptions)
        setup = build_setup(options)
        total = len(setup.tile_set)
        per_player = total // num_players
        if per_player < 1:
            raise OptionsError(f"tile set {setup.tile_set.name!r} has {total} tiles: too few for {num_players} players")
        order = [int(t) for t in make_rng(seed, Stream.TOWER_DEAL).permutation(total)]
        stacks = [order[seat * per_player:(seat + 1) * per_player] for seat in range(num_players)]
        judge = EngineJudge(setup)  # the state is given its physics
        state = TowerState(setup, num_players, seed, stacks, judge)
        engine = judge.engine.describe()  # the record names the engine's version (options hold its parameters)
        event = Event("deal", {"players": num_players, "tiles_each": per_player,
                               "left_out": total - per_player * num_players, "tile_set": setup.tile_set.name,
                               "physics": f"{engine['name']} {engine['version']}"})
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

    # --- agents and search ----------------------------------------------------------------------
    @property
    def agents(self) -> Mapping[str, AgentFactory]:
        return AGENTS

    def sample_state(self, view: View, player: int, rng: np.random.Generator) -> State:
        """Everything is on the table except the order of the other stacks: see play/views.py."""
        from .play.sampling import sample_state

        return sample_state(view, player, rng)
