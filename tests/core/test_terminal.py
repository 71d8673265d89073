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
from pisa3d.core.presentation import presenter_of
from pisa3d.core.seating import build_agents
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
    help_text = presenter_of(game).phase_help(view)
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
    header = presenter_of(get_game(game_id)).prompt_header(view)
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
    header = presenter_of(get_game("cards")).prompt_header(view)
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
    assert "most tricks is best" in presenter_of(game).phase_help(tricks.view(tricks.current_player))


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
        header = presenter_of(game).prompt_header(state.view(seat))
        tile, face = state.top_tile(seat), state.face_of(seat)
        assert header.startswith(f"Tile in hand: {tile} showing {face.label}:")
        assert header.endswith("(edges top right bottom left, 1 = stroked)")
        for rotation in range(4):
            bits = "".join(map(str, state.bits_for_tile(tile, face, rotation)))
            assert f"r{rotation} {bits}" in header


# --- refusals: every wrong move gets its rule's reason (issue 22) --------------------------------

def _refused_at_the_terminal(game_id: str, state: State, wrong: list[str]) -> list[str]:
    """The lines the terminal answers ``wrong`` with, one each, before a legal move is taken."""
    seat = state.current_player
    view, legal = state.view(seat), state.legal_moves()
    agent, _, out = _agent(game_id, [*wrong, str(legal[0])], seat=seat)
    assert agent.choose(view, legal, RNG) == legal[0]
    lines = [line for line in out.getvalue().splitlines() if line.startswith("  ! ")]
    assert len(lines) == len(wrong), lines
    for line in lines:
        assert "not legal now" not in line and "is not allowed now; allowed:" not in line, line
    return lines


def test_cards_refusals_name_the_rule_and_what_is_allowed() -> None:
    state, _ = get_game("cards").new_game(4, 1, {"rounds": 1})
    hand = state.view(state.current_player)["hand"]
    missing = next(card for card in ("R5", "Y5", "G5", "B5") if card not in hand)
    lines = _refused_at_the_terminal("cards", state, [f"vote T1 {missing}", "done", f"vote most {hand[0]}"])
    assert lines[0] == (f"  ! vote T1 {missing} is not allowed: {missing} is not in your hand "
                        f"(your hand: {' '.join(hand)})")
    assert lines[1] == ("  ! done is not allowed: a vote needs at least one card first: "
                        "put a hand card by T1, T2, T3 or T4")
    assert lines[2] == f"  ! vote most {hand[0]} is not allowed: this is the trump vote: vote by T1, T2, T3 or T4"
    state.apply(get_game("cards").parse_move(f"vote T2 {hand[0]}"))
    lines = _refused_at_the_terminal("cards", state, [f"vote T1 {hand[1]}"])
    assert lines[0] == f"  ! vote T1 {hand[1]} is not allowed: this turn's cards go by T2: 'vote T2 CARD' or 'done'"


def test_gimignano_refusals_say_which_rule_the_tile_breaks_and_where_it_fits() -> None:
    state = _advance(get_game("gimignano").new_game(2, 3)[0], lambda s: s.phase == "tile")
    tile = state.hands[state.player][0]
    board = state.board
    clash = next(f"T{tile} @ {h[0]},{h[1]} r{turn}" for h in board.spots() for turn in range(6)
                 if "would touch" in (board.placement_problem(tile, h, turn) or ""))
    lines = _refused_at_the_terminal("gimignano", state, [f"T{tile} @ 1,1 r3", f"T{tile} @ 0,0 r0", clash])
    assert "a tile must share at least two edges with laid tiles; hex 1,1 shares 1" in lines[0]
    assert "hex 0,0 already holds a tile" in lines[1]
    assert "plots would touch across the edge to" in lines[2]
    first = next(m for m in state.legal_moves() if getattr(m, "tile", None) == tile)
    assert all(f"T{tile} fits at " in line and f"{first.hex[0]},{first.hex[1]} r{first.turn}" in line
               for line in lines)


def test_tower_refusals_name_the_rule_and_where_the_tile_fits() -> None:
    state, _ = get_game("tower").new_game(2, 3)
    lines = _refused_at_the_terminal("tower", state, ["W9N r0", "C1 r0", "pass"])
    assert "W9N r0 breaks the rules: the first 4 placements are walls on floor 0 (the base)" in lines[0]
    assert "C1 r0 breaks the rules: the first 4 placements are walls on floor 0 (the base)" in lines[1]
    assert "pass is not allowed: a pass is only for a tile that fits no slot, and your tile fits W0N" in lines[2]
    for _ in range(4):  # the base: rules-only checks from here on, whatever the physics did
        state.apply(state.legal_moves()[0])
    assert not state.is_over
    slot_wrong_turn = next(
        f"{slot} r{rotation}" for slot in state.structure.candidate_slots()
        if state.structure.slot_rules(slot, state.setup.rules).legal for rotation in range(4)
        if state.structure.mismatches(slot, state.bits_for(state.current_player, rotation)))
    lines = _refused_at_the_terminal("tower", state, ["W9N r0", "C1 r0", slot_wrong_turn])
    assert ("W9N r0 breaks the rules: floor 9 is not open; walls go on floor 0 "
            "(or floor 1 without a ceiling)") in lines[0]
    assert "C1 r0 breaks the rules: a ceiling goes only on the open top floor 0" in lines[1]
    assert f"{slot_wrong_turn} breaks the rules: edges do not match: its " in lines[2]
    assert all("your tile fits " in line for line in lines)


def test_a_forced_tower_pass_says_why_the_tile_fits_no_slot() -> None:
    state, _ = get_game("tower").new_game(2, 0)
    for move in ("W0W r1", "W0E r3"):  # seat 0's next tile (showing 1100) then fits neither free wall
        state.apply(get_game("tower").parse_move(move))
    assert [str(m) for m in state.legal_moves()] == ["pass"]
    seat = state.current_player
    for hot_seat in (None, HotSeat()):  # said at a shared screen too: a pass hides nothing
        agent, script, out = _agent("tower", [], seat=seat, hot_seat=hot_seat)
        assert str(agent.choose(state.view(seat), state.legal_moves(), RNG)) == "pass"
        assert script.prompts == []
        text = out.getvalue()
        tile = state.top_tile(seat)
        assert (f"(the only possible move, made without asking: tile {tile} (showing 1100) fits no slot: "
                "W0N, W0S: no turn of the tile matches the edges it would meet; "
                "C0, W1N, W1E, W1S, W1W: the first 4 placements are walls on floor 0 (the base))") in text


@pytest.mark.parametrize(("seed", "pattern", "listed"), [(0, "0101", 8), (22, "1111", 4), (14, "0000", 4)])
def test_the_tower_lists_identical_turns_of_a_symmetric_tile_once(seed: int, pattern: str, listed: int) -> None:
    state, _ = get_game("tower").new_game(2, seed)
    view, legal = state.view(0), state.legal_moves()
    assert view["tile_in_hand"]["visible_pattern"] == pattern
    assert len(legal) == 16 and get_game("tower").legal_action_mask(state).sum() == 16  # bots, ids, records: every turn
    agent, _, out = _agent("tower", ["W0N r2"], seat=0)  # a turn left out of the list may still be typed
    assert str(agent.choose(view, legal, RNG)) == "W0N r2"
    numbered = [line.split(". ", 1)[1] for line in out.getvalue().splitlines() if line[:6].strip().endswith(".")]
    assert len(numbered) == listed and "W0N r0" in numbered and "W0N r2" not in numbered
    assert sorted({entry.split()[0] for entry in numbered}) == ["W0E", "W0N", "W0S", "W0W"]
    assert f"Your move (1-{listed}," in out.getvalue()


def test_the_cards_examples_are_moves_the_player_could_make_now() -> None:
    game = get_game("cards")
    checked = set()
    for seed in (1, 2):
        state, _ = game.new_game(4, seed, {"rounds": 1})
        rng = np.random.default_rng(seed)
        while not state.is_over:
            seat = state.current_player
            view, legal = state.view(seat), state.legal_moves()
            shown = presenter_of(game).render_view(view).splitlines()[-1]
            example = shown.split("e.g. '", 1)[1].split("'", 1)[0]
            assert game.parse_move(example) in legal, (example, view["phase"], view["hand"])
            assert f"Type '{example}'" in presenter_of(game).phase_help(view)  # the help's example is the same one
            checked.add(view["phase"] + (" turn" if view["voting"]["turn"] else ""))
            state.apply(legal[int(rng.integers(len(legal)))])
    assert checked == {"vote", "vote turn", "discard", "play"}
