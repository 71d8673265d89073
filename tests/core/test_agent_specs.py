"""Agent parameters: declared per agent kind, set from code and from `--agent NAME:param=value`."""

from __future__ import annotations

import subprocess

import pytest

from pisa3d.core.agent_specs import build_agent, describe_agents, parse_agent_spec
from pisa3d.core.errors import OptionsError
from pisa3d.core.mcts import MCTSAgent
from pisa3d.games import get_game


def test_spec_text_is_split_into_name_and_parameters() -> None:
    assert parse_agent_spec("mcts") == ("mcts", {})
    assert parse_agent_spec(" mcts:iterations=200, exploration=1.5 ") == (
        "mcts", {"iterations": "200", "exploration": "1.5"})
    for bad, why in ((":x=1", "NAME:param=value"), ("mcts:iterations", "name=value"), ("mcts:=3", "name=value")):
        with pytest.raises(OptionsError, match=why):
            parse_agent_spec(bad)


def test_parameters_from_the_command_line_text_and_from_code_build_the_same_agent() -> None:
    game = get_game("cards")
    from_text = build_agent(game, "mcts:iterations=17,exploration=1,reward=win", 2, game.options())
    from_code = game.agents["mcts"](2, game.options(), iterations=17, exploration=1.0, reward="win")
    for agent in (from_text, from_code):
        assert isinstance(agent, MCTSAgent)
        assert (agent.seat, agent.iterations, agent.exploration, agent.reward) == (2, 17, 1.0, "win")
    default = game.agents["mcts"](0, game.options())
    assert isinstance(default, MCTSAgent) and default.iterations == 200


def test_tower_bots_take_their_own_keyword_parameters() -> None:
    game = get_game("tower")
    agent = build_agent(game, "cautious:max_candidates=3,hand_samples=2,shake=0.5", 1, game.options())
    assert (agent.max_candidates, agent.hand_samples, agent.shake) == (3, 2, 0.5)  # type: ignore[attr-defined]
    spoiler = build_agent(game, "spoiler:tiles_left=4", 0, game.options())
    assert spoiler.tiles_left == 4  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mcts:depth=3",
         "agent 'mcts' has no parameter 'depth'; parameters: iterations \\(int from 1 to 20000, default 200\\)"),
        ("mcts:iterations=many", "parameter 'iterations' must be int, got 'many'"),
        ("mcts:iterations=0", "parameter 'iterations' must be from 1 to 20000, got 0"),
        ("heuristic:x=1", "agent 'heuristic' has no parameter 'x'; it takes no parameters"),
        ("smart", "unknown agent 'smart' for cards; choose from random, heuristic, mcts"),
    ],
)
def test_bad_agent_specs_are_refused_listing_what_is_allowed(text: str, message: str) -> None:
    game = get_game("cards")
    with pytest.raises(OptionsError, match=message):
        build_agent(game, text, 0, game.options())


def test_wrong_types_from_code_are_refused() -> None:
    game = get_game("cards")
    with pytest.raises(OptionsError, match=r"parameter .iterations. must be int, got 2\.5"):
        game.agents["mcts"](0, game.options(), iterations=2.5)


def test_every_agent_kind_is_described_with_its_parameters() -> None:
    for game_id in ("cards", "gimignano", "tower"):
        lines = describe_agents(get_game(game_id))
        assert any(line.startswith("random: ") for line in lines)
        assert any(line.startswith("mcts: ") and "iterations (int" in line for line in lines)


def test_cli_agent_parameters_play_and_mistakes_exit_2_in_one_line() -> None:
    ok = subprocess.run(["pisa3d", "play", "cards", "--seed", "3", "--set", "rounds=1", "--agent",
                         "mcts:iterations=3", "--agent", "heuristic"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "Winner" in ok.stdout
    bad = subprocess.run(["pisa3d", "play", "cards", "--agent", "mcts:iterations=x"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and "parameter 'iterations' must be int" in bad.stderr
