"""Every registered pisa3d game as an OpenSpiel python game (needs the ``[rl]`` extra).

    import pyspiel
    import pisa3d.adapters.openspiel  # registers python_pisa_cards, python_pisa_tower, ...
    game = pyspiel.load_game("python_pisa_cards", {"players": 4})

Chance as OpenSpiel expects it: a pisa3d game draws all its chance (every deal, every shake of a
tower player's hand) from its seed, so a game starts with one explicit chance node whose outcome is
that seed, uniform over ``num_seeds`` seeds (a game parameter, 1024 by default; outcome s plays
exactly the library's game with seed s). Nobody observes the seed: a player knows only what its
view shows. Observations honour OpenSpiel's IIG observation types (``make_py_observer``, see
:class:`PisaObserver`): public information is ``state.public_view()``, a player's private
information ``state.private_view(player)`` (none in a perfect-information game), and perfect
recall is the player's trace (:mod:`pisa3d.adapters.spiel_trace`): the view at each of their
decisions with the action they took, then the view now. The observation tensor is ``state.observation``;
actions are the game's dense action ids; returns come at the end from ``state.returns()``.
Serialisation is OpenSpiel's own for python games (the pickled state; a tower state is plain
data and holds no physics client).

Game parameters: ``players`` (default: the game's), ``num_seeds`` and ``options`` (the game's
options as ``key:value`` pairs joined by ``;``, e.g. ``"rounds:1"``: OpenSpiel's game strings
split on ``,`` and ``=``). ``resample(state, player, rng)`` draws a state
consistent with ``player``'s view (``Game.sample_state``) for OpenSpiel's IS-MCTS
(``ISMCTSBot.set_resampler``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("pisa3d.adapters.openspiel needs the rl extra: pip install 'pisa3d[rl]'") from exc

from ..core.game import Game
from ..core.options import parse_option_assignments
from ..core.registry import game_ids, get_game
from ..core.state import State
from .spiel_trace import Seen, Trace, ViewKind, seen_in, view_of

DEFAULT_SEEDS = 1024
PREFIX = "python_pisa_"


def parse_options(text: str) -> dict[str, Any]:
    """The ``options`` parameter: ``key:value`` pairs joined by ``;`` (values read as JSON), since
    OpenSpiel's game strings split on ``,`` and ``=``: ``"rounds:1"``, ``"noise_position_mm:0;noise_yaw_deg:0"``."""
    pairs = [pair.replace(":", "=", 1) for pair in text.split(";") if pair.strip()]
    return parse_option_assignments(pairs)


class _Held:
    """Holds the pisa3d state so OpenSpiel's deepcopy-based clone uses the game's own clone."""

    def __init__(self, state: State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict) -> _Held:
        return _Held(self.state.clone())


def _game_type(game: Game) -> pyspiel.GameType:
    info = game.contract.information
    return pyspiel.GameType(
        short_name=PREFIX + game.id,
        long_name=f"pisa3d {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=(pyspiel.GameType.Information.PERFECT_INFORMATION if info == "perfect"
                     else pyspiel.GameType.Information.IMPERFECT_INFORMATION),
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": game.default_players, "num_seeds": DEFAULT_SEEDS, "options": ""},
    )


class PisaSpielGame(pyspiel.Game):
    """One pisa3d game for OpenSpiel; subclassed per registered game by ``register_all``."""

    pisa_id = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.pisa = get_game(self.pisa_id)
        merged = {"players": self.pisa.default_players, "num_seeds": DEFAULT_SEEDS, "options": "",
                  **(params or {})}
        self.num_pisa_players = int(merged["players"])
        self.num_seeds = int(merged["num_seeds"])
        self.pisa_options = self.pisa.options(parse_options(str(merged["options"])))
        info = self.pisa.info(self.num_pisa_players, self.pisa_options)
        self.pisa_info = info
        game_info = pyspiel.GameInfo(
            num_distinct_actions=info.num_actions,
            max_chance_outcomes=self.num_seeds,
            num_players=self.num_pisa_players,
            min_utility=info.min_utility,
            max_utility=info.max_utility,
            max_game_length=info.max_decisions,
        )
        super().__init__(_game_type(self.pisa), game_info, merged)

    def new_initial_state(self) -> PisaSpielState:
        return PisaSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> PisaObserver | None:
        """An observer of the requested kind (None: OpenSpiel's default observation), or None for a
        kind no game here provides (perfect recall of every player's private information)."""
        if params:
            raise ValueError(f"observer parameters are not supported, got {params}")
        if iig_obs_type is None:  # OpenSpiel's default observation: public + own private, no recall
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        private = {pyspiel.PrivateInfoType.NONE: "none", pyspiel.PrivateInfoType.SINGLE_PLAYER: "single",
                   pyspiel.PrivateInfoType.ALL_PLAYERS: "all"}[iig_obs_type.private_info]
        kind = ViewKind(public=bool(iig_obs_type.public_info), private=private,
                        recall=bool(iig_obs_type.perfect_recall))
        perfect = self.pisa.contract.information == "perfect"  # nothing private to show at all
        kind = kind if not perfect else ViewKind(kind.public, "none", kind.recall)
        if kind.recall and not Trace(0, perfect).offers(kind):
            return None
        return PisaObserver(self, kind)


class PisaSpielState(pyspiel.State):
    """A seed chance node, then the pisa3d game played by action ids."""

    def __init__(self, game: PisaSpielGame) -> None:
        super().__init__(game)
        self._held: _Held | None = None
        self.seed: int | None = None
        # what each player saw, move by move (perfect recall)
        self.trace = Trace(game.num_pisa_players, game.pisa.contract.information == "perfect")

    @property
    def _game(self) -> PisaSpielGame:
        game = self.get_game()  # never kept in __dict__: OpenSpiel pickles that to serialise
        assert isinstance(game, PisaSpielGame)
        return game

    @property
    def pisa_state(self) -> State | None:
        return None if self._held is None else self._held.state

    def current_player(self) -> int:
        state = self.pisa_state
        if state is None:
            return int(pyspiel.PlayerId.CHANCE)
        if state.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        assert state.current_player is not None
        return state.current_player

    def _legal_actions(self, player: int) -> list[int]:
        state = self.pisa_state
        assert state is not None and player == state.current_player
        return np.flatnonzero(self._game.pisa.legal_action_mask(state)).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self._game.num_seeds
        return [(seed, p) for seed in range(self._game.num_seeds)]

    def _apply_action(self, action: int) -> None:
        game = self._game
        if self._held is None:
            self.seed = int(action)
            state, _ = game.pisa.new_game(game.num_pisa_players, self.seed, game.pisa_options)
            self._held = _Held(state)
            return
        state, mover = self._held.state, self._held.state.current_player
        assert mover is not None
        seen = self.trace.before_move(state, mover)
        state.apply(game.pisa.move_from_action(action, game.num_pisa_players, game.pisa_options))
        self.trace.record(mover, int(action), seen)  # only a move the rules accepted

    def replayed_views(self, actions: Sequence[int]) -> dict[int, Seen]:
        """Re-play ``actions`` from this game's seed; what each mover saw before each of them."""
        game = self._game
        assert self.seed is not None
        state, _ = game.pisa.new_game(game.num_pisa_players, self.seed, game.pisa_options)
        seen = {}
        for index, action in enumerate(actions):
            mover = state.current_player
            assert mover is not None
            seen[index] = seen_in(state, mover)
            state.apply(game.pisa.move_from_action(action, game.num_pisa_players, game.pisa_options))
        return seen

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        game = self._game
        return str(game.pisa.move_from_action(action, game.num_pisa_players, game.pisa_options))

    def is_terminal(self) -> bool:
        state = self.pisa_state
        return state is not None and state.is_over

    def returns(self) -> list[float]:
        state = self.pisa_state
        if state is None or not state.is_over:
            return [0.0] * self._game.num_pisa_players
        return [float(r) for r in state.returns()]

    def __str__(self) -> str:
        state = self.pisa_state
        if state is None:
            return "before the deal (seed not drawn)"
        return json.dumps({"seed": self.seed, "public": state.public_view()}, sort_keys=True)


class PisaObserver:
    """One IIG observation type of a pisa3d game (OpenSpiel's ``make_observation``).

    Strings (canonical JSON): the public view if ``kind.public``; the player's private view
    (``single``) or every player's (``all``), empty in a perfect-information game; with
    ``kind.recall``, the player's trace of those parts instead of their present value (its
    string is the information state). An observation with nothing in it is the empty string.
    The tensor is ``state.observation(player)`` for OpenSpiel's default observation (public plus
    the player's private information, no recall); no tensor is offered for the other kinds.
    """

    def __init__(self, game: PisaSpielGame, kind: ViewKind) -> None:
        self.game = game
        self.kind = kind
        default = not kind.recall and kind.public and kind.private in ("single", "none") and (
            kind.private == "single" or game.pisa.contract.information == "perfect")
        self.tensor: np.ndarray | None = (
            np.zeros(game.pisa_info.observation_shape, np.float32).reshape(-1) if default else None)
        self.dict = {"observation": self.tensor} if self.tensor is not None else {}

    def set_from(self, state: PisaSpielState, player: int) -> None:
        if self.tensor is None:
            return
        pisa = state.pisa_state
        if pisa is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = pisa.observation(player).reshape(-1)

    def string_from(self, state: PisaSpielState, player: int) -> str:
        pisa = state.pisa_state
        if self.kind.recall:
            return state.trace.string(pisa, player, self.kind, state.replayed_views)
        if pisa is None:
            return ""  # before the deal nothing is known (the seed is nobody's)
        view = view_of(pisa, player, self.kind)
        return json.dumps(view, sort_keys=True, separators=(",", ":")) if view else ""


def resample(state: PisaSpielState, player: int, rng: np.random.Generator | None = None) -> PisaSpielState:
    """A state consistent with what ``player`` knows in ``state`` (for IS-MCTS's resampler)."""
    pisa = state.pisa_state
    assert pisa is not None, "nothing to resample before the deal"
    rng = rng if rng is not None else np.random.default_rng()
    game = state.get_game()
    assert isinstance(game, PisaSpielGame)
    sampled = game.pisa.sample_state(pisa.view(player), player, rng)
    out = state.clone()
    out._held = _Held(sampled)  # type: ignore[attr-defined]
    # The player's trace is theirs whatever the sample; the others' past is unknown in the sampled
    # world, so each of them starts from what they see in it.
    out.trace = state.trace.resampled(player, state.replayed_views)  # type: ignore[attr-defined]
    return out  # type: ignore[return-value]


def register_all() -> list[str]:
    """Register every pisa3d game with OpenSpiel (idempotent); returns the short names."""
    names = []
    registered = set(pyspiel.registered_names())
    for game_id in game_ids():
        name = PREFIX + game_id
        names.append(name)
        if name in registered:
            continue
        cls = type(f"PisaSpielGame_{game_id}", (PisaSpielGame,), {"pisa_id": game_id})
        globals()[cls.__name__] = cls  # found by name, as pickle expects
        pyspiel.register_game(_game_type(get_game(game_id)), cls)
    return names


register_all()
