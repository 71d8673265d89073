"""Perft for the tower's rules (as python-chess keeps perft tables): at a few recorded positions,
how many legal moves the rules offer (depth 1) and how many lines of two and three moves follow.

Which placements are legal is rules only (the structure's slots and the tiles' edge strokes), so
a position is rebuilt from its move list with a judge that lets every tile stand where it was
aimed: nothing is simulated. The positions were reached once by real seeded games (bots and
physics); a fall is physics, not rules, so in the tree below them every placement stands.

The table is tests/tower/perft.json. Regenerate it only when the rules change on purpose (the
games are played with physics, a minute or so):

    .venv/bin/python -m tests.tower.perft --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pisa3d.core.errors import OptionsError
from pisa3d.core.events import Event
from pisa3d.core.match import play_match
from pisa3d.core.record import GameRecord
from pisa3d.games import get_game
from pisa3d.games.tower.play.state import TowerState
from pisa3d.games.tower.referee.judges import RecordedJudge

GAME = get_game("tower")
TABLE = Path(__file__).with_name("perft.json")
DEPTH = 3
STANDS = RecordedJudge(Event("placed", {"fell": False}), None)
"""Every tile comes to rest on its target and the tower stands: the rules' tree, no physics."""

# (name, players, seed, bot, moves played, options): the positions of the table. The house rule
# (min_touched_tiles 1, a ceiling on one wall) changes which slots are open.
POSITIONS: list[tuple[str, int, int, str, int, dict[str, Any]]] = [
    ("start, 4 players", 4, 1, "builder", 0, {}),
    ("base done, 2 players", 2, 3, "builder", 4, {}),
    ("a forced pass, 3 players", 3, 5, "builder", 5, {}),
    ("floor 1 open, 3 players", 3, 5, "builder", 7, {}),
    ("second floor, 4 players", 4, 7, "careful", 12, {}),
    ("tall, 2 players", 2, 9, "builder", 18, {}),
    ("house rule: ceiling on one wall", 3, 11, "builder", 6, {"min_walls_for_ceiling": 1, "min_touched_tiles": 1}),
]


def position(players: int, seed: int, moves: list[str], options: dict[str, Any]) -> TowerState:
    """The state after ``moves`` with every tile standing where it was aimed (no physics)."""
    state, _ = GAME.new_game(players, seed, {**options, "record_trajectories": False})
    assert isinstance(state, TowerState)
    state.judge = STANDS
    for text in moves:
        move = GAME.parse_move(text)
        assert move in state.legal_moves(), f"{text} is not legal after {state.history}"
        state.apply(move)
    return state


def perft(state: TowerState, depth: int) -> int:
    """Lines of ``depth`` legal moves from ``state`` (a line cut short by the game's end counts 0)."""
    if depth == 0:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = state.clone()
        child.apply(move)
        total += perft(child, depth - 1)
    return total


def counts(entry: dict[str, Any], depth: int = DEPTH) -> list[int]:
    """perft at depths 1 .. ``depth`` of a table entry's position."""
    state = position(entry["players"], entry["seed"], entry["moves"], entry["options"])
    return [perft(state, d) for d in range(1, depth + 1)]


def recorded_moves(players: int, seed: int, bot: str, moves: int, options: dict[str, Any]) -> list[str]:
    """The first ``moves`` moves of a real seeded game of ``bot``s (physics); the tower must stand."""
    opts = GAME.options({**options, "record_trajectories": False})
    agents = [GAME.agents[bot](seat, opts) for seat in range(players)]
    records: list[GameRecord] = []
    try:
        play_match(GAME, agents, seed, opts, max_moves=moves, on_start=records.append)
    except OptionsError:  # stopped after ``moves`` moves with the game still on: the position wanted
        return [entry.move for entry in records[0].moves]
    raise SystemExit(f"{bot} seed {seed}: the game ended after {len(records[0].moves)} moves, within {moves}")


def write_table() -> None:
    entries = []
    for name, players, seed, bot, moves, options in POSITIONS:
        entry: dict[str, Any] = {"name": name, "players": players, "seed": seed, "bot": bot, "options": options,
                                 "moves": recorded_moves(players, seed, bot, moves, options)}
        entry["perft"] = counts(entry)
        entries.append(entry)
        print(f"{name}: perft {entry['perft']}")
    comment = json.dumps(" ".join(__doc__.split("\n\n")[0].split()))
    rows = ",\n  ".join(json.dumps(entry) for entry in entries)  # one position a line: diffs stay readable
    TABLE.write_text(f'{{"_comment": {comment},\n "positions": [\n  {rows}\n ]\n}}\n', encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.tower.perft --write  (plays the games and rewrites perft.json)")
    write_table()
