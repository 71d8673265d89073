"""A stranger at the terminal, for all three games: help at any prompt, the hand and phase right
above every prompt, the vote in two steps, no question when there is no choice, and a hand-over
screen between people sharing the terminal. Driven by scripted answers through TerminalAgent."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable

import numpy as np
import pytest
from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.agents import build_agents
from pisa3d.core.state import State
from pisa3d.core.terminal import CLEAR_SCREEN, HotSeat, TerminalAgent
from pisa3d.games import get_game
from pisa3d.games.cards.moves import DONE, Discard, VoteCard
from pisa3d.games.cards.voting import OPTION_NAMES
from pisa3d.games.gimignano.render_text import board_map
from pisa3d.games.gimignano.terminal import tile_turns
from tests.gimignano.helpers import make_state

RNG = np.random.default_rng(0)


class Script:
    """Answers in order; every prompt is written to ``out`` too, so the order can be checked."""

    def __init__(self, answers: Iterable[str], out: io.StringIO) -> None:
        self.answers = list(answers)
        self.out = out
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        self.out.write(f"<PROMPT {prompt}>\n")
        if not self.answers:
            raise AssertionError(f"asked once more than scripted: {prompt!r}")
        return self.answers.pop(0)


def _agent(game_id: str, answers: Iterable[str], seat: int = 0, hot_seat: HotSeat | None = None,
           out: io.StringIO | None = None) -> tuple[TerminalAgent, Script, io.StringIO]:
    out = out if out is not None else io.StringIO()
    script = Script(answers, out)
    return TerminalAgent(get_game(game_id), read_line=script, out=out, seat=seat, hot_seat=hot_seat), script, out


def _advance(state: State, until: Callable[[State], bool], pick: Callable[[State], object] | None = None) -> State:
    """Play the first legal move (or ``pick``'s) until ``until`` holds."""
    for _ in range(2000):
        if until(state):
            return state
        state.apply(pick(state) if pick else state.legal_moves()[0])
    raise AssertionError("the position was never reached")


def _phases() -> list[tuple[str, State, list[str]]]:
    """(game, a state at a person's decision, words its help must contain) for every phase."""
    cards, _ = get_game("cards").new_game(3, 5, {"rounds": 1})
    gim, _ = get_game("gimignano").new_game(2, 3)
    tower, _ = get_game("tower").new_game(2, 3)
    out = [("cards", cards, ["Voting points", "SMALLER", "main trump", "Type 'vote T2 "])]
    # two cards a vote: six placed, so the discard is a real choice
    discard = _advance(get_game("cards").new_game(3, 6, {"rounds": 1})[0],
                       lambda s: s.view(0)["phase"] == "discard", _two_card_votes)
    out.append(("cards", discard, ["Discard", "Type 'discard "]))
    play = _advance(get_game("cards").new_game(3, 7, {"rounds": 1})[0], lambda s: s.view(0)["phase"] == "play")
    out.append(("cards", play, ["follow the led suit", "Play points", "Type 'play "]))
    out.append(("gimignano", gim, ["Goal", "quartet", "Stone phase", "S 1,-1/b"]))
    tile = _advance(get_game("gimignano").new_game(2, 3)[0], lambda s: s.view(0)["phase"] == "tile")
    out.append(("gimignano", tile, ["Goal", "Tile phase", "r0"]))
    out.append(("tower", tower, ["ceiling", "falls", "W0N r1"]))
    return out


def _two_card_votes(state: State) -> object:
    turn = state.view(state.current_player)["voting"]["turn"]
    return DONE if turn and turn["cards"] == 2 else state.legal_moves()[0]


def _one_card_votes(state: State) -> object:
    """Each vote: one card, then done (so every seat places exactly three cards)."""
    legal = state.legal_moves()
    return DONE if DONE in legal else legal[0]


PHASE_IDS = ["cards-vote", "cards-discard", "cards-play", "gimignano-stone", "gimignano-tile", "tower"]


@pytest.mark.parametrize(("game_id", "state", "words"), _phases(), ids=PHASE_IDS)
def test_help_at_any_prompt_explains_the_phase(game_id: str, state: State, words: list[str]) -> None:
    seat = state.current_player
    view = state.view(seat)
    legal = state.legal_moves()
    game = get_game(game_id)
    help_text = game.phase_help(view)
    assert 2 <= len(help_text.splitlines()) <= 4
    for word in words:
        assert word in help_text, (word, help_text)
    # '?' and 'help' both answer with it; then a listed move is still taken.
    agent, script, out = _agent(game_id, ["?", "help", str(legal[-1])], seat=seat)
    assert agent.choose(view, legal, RNG) == legal[-1]
    assert out.getvalue().count(help_text) == 2
    assert all("? = help" in p for p in script.prompts)


@pytest.mark.parametrize(("game_id", "state", "words"), _phases(), ids=PHASE_IDS)
def test_the_header_is_printed_right_above_every_prompt(game_id: str, state: State, words: list[str]) -> None:
    seat = state.current_player
    view = state.view(seat)
    legal = state.legal_moves()
    header = get_game(game_id).prompt_header(view)
    assert header, "every game says where the player stands"
    agent, script, out = _agent(game_id, ["nonsense", "?", str(legal[0])], seat=seat)
    agent.choose(view, legal, RNG)
    chunks = out.getvalue().split("<PROMPT ")
    assert len(chunks) == 4 and len(script.prompts) == 3
    for before in chunks[:-1]:  # what was printed just before each prompt ends with the header
        assert before.rstrip("\n").endswith(header), before[-400:]


def test_cards_header_shows_the_hand_and_the_placed_total() -> None:
    state, _ = get_game("cards").new_game(3, 5, {"rounds": 1})
    seat = state.current_player
    first = state.legal_moves()[0]
    state.apply(first)  # one card placed; the same player goes on
    view = state.view(seat)
    header = get_game("cards").prompt_header(view)
    assert f"Your hand: {' '.join(view['hand'])}" in header
    placed_value = int(str(first).split()[-1][1:])
    assert f"your placed total {placed_value}: the smaller, the more voting points" in header


def test_a_vote_is_chosen_in_two_steps_option_then_card() -> None:
    state, _ = get_game("cards").new_game(3, 5, {"rounds": 1})
    seat = state.current_player
    view, legal = state.view(seat), state.legal_moves()
    options = sorted({m.option for m in legal})
    assert len(legal) == len(options) * len(view["hand"])  # the flat list a person no longer reads
    # option 2, then back, then option 3 and the 5th card of the hand
    agent, script, out = _agent("cards", ["2", "b", "3", "5"], seat=seat)
    move = agent.choose(view, legal, RNG)
    assert move == VoteCard(options[2], legal[4].card)
    text = out.getvalue()
    for option in options:  # each voting card is explained at the first step
        assert f"{OPTION_NAMES[option]}: main trump" in text
    assert f"{len(options)}. T{len(options)}: main trump" in text
    assert f"  13. {view['hand'][12]}" in text  # the second step lists the hand's cards
    assert "b = back" in script.prompts[1] and "b = back" not in script.prompts[0]
    # the notation still works at the first step
    agent, _, _ = _agent("cards", [str(legal[7])], seat=seat)
    assert agent.choose(view, legal, RNG) == legal[7]


def test_trick_and_order_votes_explain_their_options() -> None:
    game = get_game("cards")
    state = _advance(game.new_game(3, 5, {"rounds": 1})[0], lambda s: s.view(0)["voting"]["round"] == "order",
                     _one_card_votes)
    seat = state.current_player
    agent, _, out = _agent("cards", ["1", "1"], seat=seat)
    agent.choose(state.view(seat), state.legal_moves(), RNG)
    assert "high: high order: 13 beats 0" in out.getvalue() and "low: low order: 0 beats 13" in out.getvalue()
    tricks = _advance(game.new_game(3, 5, {"rounds": 1})[0], lambda s: s.view(0)["voting"]["round"] == "tricks",
                      _one_card_votes)
    assert "most tricks is best" in game.phase_help(tricks.view(tricks.current_player))


def test_a_forced_discard_is_not_asked_but_a_real_choice_is() -> None:
    game = get_game("cards")
    for seed in range(4):  # one card per vote: exactly three placed, all three must go
        state = _advance(game.new_game(3, seed, {"rounds": 1})[0], lambda s: s.view(0)["phase"] == "discard",
                         _one_card_votes)
        for _ in range(3):
            seat = state.current_player
            agent, script, out = _agent("cards", [], seat=seat)  # any question would fail the test
            move = agent.choose(state.view(seat), state.legal_moves(), RNG)
            assert isinstance(move, Discard) and script.prompts == []
            assert "the only possible move" in out.getvalue()
            state.apply(move)
    # two cards per vote: six placed, three to choose; that is asked
    two_cards = _advance(game.new_game(3, 1, {"rounds": 1})[0], lambda s: s.view(0)["phase"] == "discard",
                         _two_card_votes)
    seat = two_cards.current_player
    agent, script, _ = _agent("cards", ["2"], seat=seat)
    assert agent.choose(two_cards.view(seat), two_cards.legal_moves(), RNG) == two_cards.legal_moves()[1]
    assert len(script.prompts) == 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_hot_seat_hides_the_last_hand_before_the_next_person_sees_theirs() -> None:
    game = get_game("cards")
    state, _ = game.new_game(3, 5, {"rounds": 1})
    screen = _Terminal()
    table = HotSeat()
    first, second = state.current_player, (state.current_player + 1) % 3
    hand_of_first = " ".join(state.view(first)["hand"])
    agents = {seat: _agent("cards", ["", "1", "1", "done"], seat=seat, hot_seat=table, out=screen)[0]
              for seat in (first, second)}
    while state.current_player == first:
        state.apply(agents[first].choose(state.view(first), state.legal_moves(), RNG))
    assert state.current_player == second
    before = len(screen.getvalue())
    agents[second].choose(state.view(second), state.legal_moves(), RNG)
    shown = screen.getvalue()[before:]
    banner = f"hand the terminal to player {second + 1}"
    assert shown.index(CLEAR_SCREEN) < shown.index(banner) < shown.index(f"Player {second + 1}: press Enter")
    after_enter = shown[shown.index("press Enter"):]
    assert f"you are player {second + 1}" in after_enter and hand_of_first not in after_enter
    assert screen.getvalue().count(banner) == 1
    # the same person deciding again is not interrupted
    state.apply(VoteCard(state.legal_moves()[0].option, state.legal_moves()[0].card))
    assert state.current_player == second
    before = len(screen.getvalue())
    assert agents[second].choose(state.view(second), state.legal_moves(), RNG) == DONE
    assert banner not in screen.getvalue()[before:] and CLEAR_SCREEN not in screen.getvalue()[before:]


def test_one_person_gets_no_hand_over_screen() -> None:
    game = get_game("cards")
    agents = build_agents(game, 3, ["random"], [2], game.options({"rounds": 1}))
    assert agents[1].hot_seat is None
    pair = build_agents(game, 3, ["random"], [1, 3], game.options({"rounds": 1}))
    assert pair[0].hot_seat is pair[2].hot_seat is not None


def test_hot_seat_from_the_command_line() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["play", "cards", "-n", "3", "--seed", "2", "--human", "1", "--human", "2",
                                 "--set", "rounds=1"], input="1\n" * 400)
    assert result.exit_code == 0, result.output[-2000:]
    out = result.output
    assert "hand the terminal to player 1" in out and "hand the terminal to player 2" in out
    assert "Winner(s)" in out


def test_gimignano_states_the_goal_and_shows_the_tile_turns_before_asking() -> None:
    game = get_game("gimignano")
    state = _advance(game.new_game(2, 3)[0], lambda s: s.view(0)["phase"] == "tile")
    seat = state.current_player
    view = state.view(seat)
    agent, _, out = _agent("gimignano", ["1"], seat=seat)
    agent.choose(view, state.legal_moves(), RNG)
    before_prompt = out.getvalue().split("<PROMPT ")[0]
    assert "Goal: towers, each on a quartet" in before_prompt
    for tile_id in view["hands"][seat]:
        for line in tile_turns(game.tileset, tile_id):
            assert line in before_prompt


def _map_plot_line(tile_id: int, turn: int, plot: int) -> tuple[str, str, str]:
    """Lay ``tile_id`` alone at 0,0 turned ``turn`` and read plot ``plot``'s line from the text map."""
    lines = board_map(make_state([(tile_id, (0, 0), turn)])).splitlines()
    letter, corner, guild, *_ = lines[1 + plot].split()
    return letter, corner, guild


def test_gimignano_tile_turns_agree_with_the_map() -> None:
    tileset = get_game("gimignano").tileset
    for tile in tileset.tiles:
        text = " ".join(tile_turns(tileset, tile.id))
        for turn in range(6):
            plots = ", ".join(" ".join(_map_plot_line(tile.id, turn, k)) for k in range(3))
            assert f"r{turn} [{plots}]" in text


def test_tower_hand_tile_is_printed_with_its_edge_key_in_every_turn() -> None:
    game = get_game("tower")
    for seed in range(5):
        state, _ = game.new_game(3, seed)
        seat = state.current_player
        header = game.prompt_header(state.view(seat))
        tile, face = state.top_tile(seat), state.face_of(seat)
        assert header.startswith(f"Tile in hand: {tile} showing {face.label}:")
        assert header.endswith("(edges top right bottom left, 1 = stroked)")
        for rotation in range(4):
            bits = "".join(map(str, state.bits_for_tile(tile, face, rotation)))
            assert f"r{rotation} {bits}" in header
