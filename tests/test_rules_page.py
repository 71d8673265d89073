"""docs/rules.md teaches players what to type: every move it shows must read in its game, and
the voting cards must mean what the page says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pisa3d.games import get_game
from pisa3d.games.cards.terminal import option_meaning

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text(encoding="utf-8")
SECTIONS = dict(zip(("tower", "cards", "gimignano"), re.split(r"\n## ", PAGE)[1:], strict=True))
MOVES = {
    "tower": ["W0N r1", "C2 r3", "pass"],
    "cards": ["vote T2 R5", "done", "discard R5", "play R5"],
    "gimignano": ["S 1,-1/b", "T5 @ 0,1 r4", "t5@0,1r4", "B 1,-1/b", "done"],
}


@pytest.mark.parametrize("game_id", sorted(MOVES))
def test_every_move_the_page_shows_reads_in_its_game(game_id: str) -> None:
    section = SECTIONS[game_id]
    shown = set(re.findall(r"`([^`]+)`", section))
    game = get_game(game_id)
    for text in MOVES[game_id]:
        assert text in shown, f"{text!r} is not shown in the {game_id} section"
        game.parse_move(text)


def test_the_page_explains_each_trump_card_as_the_game_does() -> None:
    for k in range(1, 5):
        main, under = option_meaning(f"T{k}").removeprefix("main trump ").split(", undertrump ")
        assert re.search(rf"`T{k}` = {main}(?: main trump)?, {under}", SECTIONS["cards"]), (k, main, under)
