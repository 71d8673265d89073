"""Every registered pisa3d game as a PettingZoo AEC environment (needs the ``[rl]`` extra).

    from pisa3d.adapters.pettingzoo import env
    e = env("cards", players=4)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0 .. player_{n-1}`` (seats). Observations are ``{"observation": Box,
"action_mask": int8}`` from ``state.observation(seat)`` and ``game.legal_action_mask(state)`` (all
zeros for an agent whose turn it is not); actions are the game's dense action ids. Rewards come
once, at the end: each seat's ``state.returns()`` entry (cards: points; tower: 1 win, 0 loss, 0.5
draw; gimignano: towers, ties broken by stones). ``reset(seed=s)`` starts the game with seed s, so
the same seed and actions give the same game as the library and its records; without a seed the
next seed comes from the generator the environment was made with. An action the game refuses
raises IllegalMoveError saying why (a learning loop samples from the mask and never sees one).
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np

try:
    import gymnasium
    from pettingzoo import AECEnv
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("pisa3d.adapters.pettingzoo needs the rl extra: pip install 'pisa3d[rl]'") from exc

from ..core.game import Game
from ..core.presentation import presenter_of
from ..core.registry import get_game
from ..core.state import State


def env(game_id: str, players: int | None = None, options: dict[str, Any] | None = None, seed: int | None = None,
        max_decisions: int | None = None) -> PisaAECEnv:
    """The AEC environment of ``game_id`` for ``players`` (default: the game's default) and options."""
    return PisaAECEnv(get_game(game_id), players, options, seed, max_decisions)


class PisaAECEnv(AECEnv):
    """One pisa3d game as an agent-environment-cycle environment."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game: Game, players: int | None = None, options: dict[str, Any] | None = None,
                 seed: int | None = None, max_decisions: int | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        self.game = game
        self.num_players = players if players is not None else game.default_players
        self.game_options = game.options(options)
        self.game_info = game.info(self.num_players, self.game_options)
        self.max_decisions = max_decisions
        """Truncate after this many decisions (None: play every game to its end)."""
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"pisa3d_{game.id}_v0"}
        self.possible_agents = [f"player_{seat}" for seat in range(self.num_players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        info = self.game_info
        box = gymnasium.spaces.Box(info.observation_low, info.observation_high, info.observation_shape, np.float32)
        mask = gymnasium.spaces.Box(0, 1, (info.num_actions,), np.int8)
        self.observation_spaces = {a: gymnasium.spaces.Dict({"observation": box, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(info.num_actions) for a in self.possible_agents}
        self._seeds = np.random.default_rng(seed)
        self.game_state: State | None = None
        self.game_seed: int | None = None
        """The seed of the game being played (the library's seed: same seed, same game)."""

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    @functools.cached_property
    def _no_moves(self) -> np.ndarray:
        return np.zeros(self.game_info.num_actions, dtype=np.int8)

    # --- the AEC protocol -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.game_seed = int(seed) if seed is not None else int(self._seeds.integers(2**31))
        self.game_state, _ = self.game.new_game(self.num_players, self.game_seed, self.game_options)
        self.decisions = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game_state.current_player or 0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game_state is not None, "call reset() first"
        seat = self._seat[agent]
        state = self.game_state
        mask = self.game.legal_action_mask(state).view(np.int8) if state.current_player == seat else self._no_moves
        return {"observation": state.observation(seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        assert state is not None
        state.apply(self.game.move_from_action(action, self.num_players, self.game_options))
        self.decisions += 1
        self._cumulative_rewards[agent] = 0.0
        if state.is_over:
            returns = state.returns()
            self.rewards = {a: float(returns[self._seat[a]]) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = {a: {"result": state.result().to_json()} for a in self.agents}
        elif self.max_decisions is not None and self.decisions >= self.max_decisions:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self._clear_rewards()
        self._accumulate_rewards()
        if state.current_player is not None:
            self.agent_selection = self.possible_agents[state.current_player]
        else:  # over: the dead agents are stepped out in seat order
            self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        if self.game_state is None or self.render_mode is None:
            return None
        seat = self.game_state.current_player or 0
        return presenter_of(self.game).render_view(self.game_state.view(seat))

    def close(self) -> None:
        close = getattr(self.game_state, "close", None)  # a state that holds resources frees them
        if close is not None:
            close()
