"""``hint`` at the terminal: the statics judge's view of a person's options, from their view alone."""

from __future__ import annotations

import io

import numpy as np
import pytest

from pisa3d.core.presentation import presenter_of
from pisa3d.core.terminal import TerminalAgent
from pisa3d.games import get_game
from pisa3d.games.tower.bots.planning import StaticsPlanner
from pisa3d.games.tower.odds.fall_odds import fall_odds
from pisa3d.games.tower.presentation.hints import percent, statics_hints
from tests.tower.tile_sets import uniform_tile_set

GAME = get_game("tower")
BASE = ["W0N", "W0E", "W0S", "W0W"]


def tower(tmp_path, moves: list[str]):
    options = {"tile_set": uniform_tile_set(tmp_path, 16), "noise_position_mm": 0.0, "noise_yaw_deg": 0.0,
               "noise_tilt_deg": 0.0}
    state, _ = GAME.new_game(2, 1, options)
    for text in moves:
        assert not state.apply(GAME.parse_move(text))[0].data["fell"]
    return state


def rows(text: str) -> dict[str, str]:
    """Slot -> its line, from a hint's table."""
    return {line.split()[0]: line for line in text.splitlines() if line.startswith("  ") and "mm" in line}


def test_the_hint_names_the_ceiling_trap_and_ranks_like_the_careful_bot(tmp_path):
    state = tower(tmp_path, [*BASE, "W1N", "W1E"])
    legal = state.legal_moves()
    text = statics_hints(state.view(state.current_player), legal)
    table = rows(text)
    assert set(table) == {"W1S", "W1W", "C1"}
    assert "+1.3" in table["C1"] and "a next placement would topple it" in table["C1"]
    assert all(table[w].rstrip().endswith("safe") for w in ("W1S", "W1W"))
    best = StaticsPlanner().rank(state, legal)[0].slot
    assert list(table) == [str(s.slot) for s in StaticsPlanner().rank(state, legal)]
    assert f"The careful bot would play {best}, the safest bot " in text


def test_the_hint_gives_each_slot_its_fall_odds_in_percent(tmp_path):
    state = tower(tmp_path, [*BASE, "W1N", "W1E", "C1"])
    legal = state.legal_moves()
    table = rows(statics_hints(state.view(state.current_player), legal))
    odds = {o.slot: o.odds for o in fall_odds(state).values()}
    for slot, chance in odds.items():
        assert f"   {percent(chance):>5}   " in table[str(slot)]
    shown = {slot: float(next(t for t in line.split() if t.endswith("%"))[:-1]) for slot, line in table.items()}
    assert shown["W2S"] > 90 and shown["W2N"] < 1  # no hand noise: the far walls fall, the others stand
    assert percent(0.0123) == "1.2%" and percent(0.5) == "50%"


def test_the_hint_says_when_a_placement_falls_now_and_when_none_is_legal(tmp_path):
    state = tower(tmp_path, [*BASE, "W1N", "W1E", "C1"])
    table = rows(statics_hints(state.view(state.current_player), state.legal_moves()))
    assert {"W2S", "W2W"} <= set(table)  # the walls on the far side of a ceiling on two neighbouring walls
    assert all(table[s].rstrip().endswith("falls now") for s in ("W2S", "W2W"))
    assert not any(table[s].rstrip().endswith("falls now") for s in ("W2N", "W2E"))
    assert statics_hints(state.view(state.current_player), [GAME.parse_move("pass")]).startswith("No placement")


class Script:
    def __init__(self, answers: list[str]) -> None:
        self.answers, self.prompts = answers, []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0)


def test_a_person_types_hint_then_plays_and_other_games_offer_none(tmp_path):
    state = tower(tmp_path, [*BASE, "W1N", "W1E"])
    out, script = io.StringIO(), Script(["hint", "W1S r0"])
    move = TerminalAgent(GAME, read_line=script, out=out).choose(state.view(state.current_player),
                                                                 state.legal_moves(), np.random.default_rng(0))
    assert str(move) == "W1S r0"
    assert "hint" in script.prompts[0] and "margin now" in out.getvalue() and "W1W" in out.getvalue()

    cards = get_game("cards")
    cards_state, _ = cards.new_game(3, 1)
    view = cards_state.view(cards_state.current_player)
    legal = cards_state.legal_moves()
    assert presenter_of(cards).move_hints(view, legal) is None
    script, out = Script(["hint"] + ["1"] * 5), io.StringIO()
    TerminalAgent(cards, read_line=script, out=out).choose(view, legal, np.random.default_rng(0))
    assert not any("hint" in p for p in script.prompts) and "! " in out.getvalue()  # "hint" is no move there


def standing_after_random_moves(seed: int, moves: int = 6, tries: int = 8):
    """The first of ``tries`` random games from ``seed`` (game seeds seed, seed + 10, ...) whose
    tower still stands after ``moves`` placements: a bounded search that must find one."""
    options = GAME.options({"record_trajectories": False})
    for game_seed in range(seed, seed + 10 * tries, 10):
        state, _ = GAME.new_game(3, game_seed, options)
        rng = np.random.default_rng(game_seed)
        for _ in range(moves):
            if not state.is_over:
                state.apply(state.legal_moves()[int(rng.integers(len(state.legal_moves())))])
        if not state.is_over:
            return state
    raise AssertionError(f"every tower of game seeds {seed}, {seed + 10}, ... ({tries} games) fell in {moves} moves")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_hint_reads_only_the_view(seed):
    # Two states that differ only in what the view hides (the order of the other stacks) get the same hint.
    state = standing_after_random_moves(seed)
    player = state.current_player
    other = GAME.sample_state(state.view(player), player, np.random.default_rng(99))
    assert statics_hints(state.view(player), state.legal_moves()) == statics_hints(other.view(player),
                                                                                  other.legal_moves())
