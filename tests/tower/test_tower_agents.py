"""Tower bots: look-ahead picks, the spoiler's switch, and agents that break the rules."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.bots.agents import CarefulAgent, CautiousAgent, SpoilerAgent, TriedPlacement
from pisa3d.games.tower.rules.moves import PASS, PlaceMove
from tests.tower.outcomes import told_outcome
from tests.tower.tile_sets import uniform_tile_set

GAME = get_game("tower")


def trial(text: str, falls: int, disturbance: float) -> TriedPlacement:
    move = GAME.parse_move(text)
    assert isinstance(move, PlaceMove)
    return TriedPlacement(move, falls, disturbance)


TRIALS = [trial("W1N r0", 0, 0.4), trial("W1E r0", 2, 3.0), trial("W1S r0", 0, 0.1), trial("W1W r0", 1, 5.0)]


def test_cautious_picks_the_least_disturbing_placement():
    state, _ = GAME.new_game(4, 1)
    assert CautiousAgent(0).pick(state, TRIALS).move == GAME.parse_move("W1S r0")


def test_spoiler_switches_only_when_another_player_is_about_to_win():
    state, _ = GAME.new_game(4, 1)
    spoiler = SpoilerAgent(0)
    assert not spoiler.spoiling(state.view(0))
    state.stacks[2] = state.stacks[2][:2]  # player 3 holds 2 tiles: close to winning alone
    assert spoiler.spoiling(state.view(0))
    state.stacks[0] = state.stacks[0][:1]  # but the spoiler itself is closer still
    assert not spoiler.spoiling(state.view(0))


def test_look_ahead_bots_play_legal_moves_and_leave_the_game_alone(tmp_path):
    state, _ = GAME.new_game(2, 3, {"tile_set": uniform_tile_set(tmp_path, 12, "1111", "1111")})
    for text in ("W0N", "W0E", "W0S", "W0W"):
        state.apply(GAME.parse_move(text))
    before = state.poses.copy()
    for agent in (CautiousAgent(0, max_candidates=2, hand_samples=2, trust_mm=50.0),
                  SpoilerAgent(0, max_candidates=2, trust_mm=50.0), CarefulAgent(0)):
        move = agent.choose(state.view(0), state.legal_moves(), np.random.default_rng(0))
        assert move in state.legal_moves()
    assert np.array_equal(state.poses, before) and len(state.placements) == 4


def test_look_ahead_bot_passes_when_it_must(tmp_path):
    state, _ = GAME.new_game(2, 4, {"tile_set": uniform_tile_set(tmp_path, 8, "0000", "1111")})
    state.apply(GAME.parse_move("W0N"))
    state.apply(GAME.parse_move("W0S"))
    assert CautiousAgent(0).choose(state.view(0), state.legal_moves(), np.random.default_rng(0)) == PASS


class ClumsyAgent:
    """Tries a rule-breaking placement first (as a person in the viewer might), then plays legally."""

    name = "clumsy"

    def __init__(self, bad: str) -> None:
        self.bad = GAME.parse_move(bad)
        self.tried = False

    def choose(self, view, legal_moves, rng):
        if not self.tried:
            self.tried = True
            return self.bad
        return legal_moves[0]


def test_a_rule_breaking_agent_is_penalised_not_an_exception(tmp_path):
    options = {"tile_set": uniform_tile_set(tmp_path, 8, "1111", "1111")}
    agents = [GAME.agents["builder"](0, GAME.options(options)), ClumsyAgent("C0 r0")]
    outcome = play_match(GAME, agents, seed=1, options=options)
    kinds = [(m.player, m.events[0].kind) for m in outcome.record.moves]
    assert kinds[1] == (1, "penalty")
    assert "base" in outcome.record.moves[1].events[0].data["reason"]
    assert kinds[2][0] == 0 and kinds[3][0] == 0  # player 2 skipped a turn
    assert (outcome.result.details["outcome"], outcome.result.winners) == told_outcome(outcome.record)


@pytest.mark.slow
def test_cautious_outlasts_random_over_seeded_games():
    """Same seeds (same deal, same hands): four cautious bots place more tiles before the end than
    four random ones, and topple the tower less often per placement."""
    options = GAME.options()
    placed: dict[str, int] = {}
    falls: dict[str, int] = {}
    for kind in ("random", "cautious"):
        results = [play_match(GAME, [GAME.agents[kind](s, options) for s in range(4)], seed=seed).result
                   for seed in range(6)]
        placed[kind] = sum(r.details["placements"] for r in results)
        falls[kind] = sum(r.details["outcome"] == "fall" for r in results)
    assert placed["cautious"] > 1.3 * placed["random"], placed
    assert falls["cautious"] / placed["cautious"] < falls["random"] / placed["random"]


@pytest.mark.parametrize("kind", ["careful", "safest", "cautious", "spoiler", "builder"])
def test_bots_play_on_their_seats_view_and_refuse_the_state(kind):
    state, _ = GAME.new_game(2, 1)
    agent = GAME.agents[kind](0, GAME.options())
    assert not getattr(agent, "wants_state", False)
    with pytest.raises(TypeError, match=f"{kind} plays on its seat's tower view .*got TowerState"):
        agent.choose(state.clone(), state.legal_moves(), np.random.default_rng(0))
    assert agent.choose(state.view(0), state.legal_moves(), np.random.default_rng(0)) in state.legal_moves()
