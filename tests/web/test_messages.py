"""The messages a page is drawn from (pisa3d/web/messages.py) are the live server's and the
replay page's alike: a record's positions are what a spectator of the live match was sent, a
fall's last picture included, whatever way the record is read."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

from pisa3d.core.match import play_match
from pisa3d.core.record import GameRecord, move_from_json
from pisa3d.games import get_game
from pisa3d.serve.matches import LiveMatch, start
from pisa3d.serve.store import MatchMeta
from pisa3d.serve.work import apply_move
from pisa3d.web.messages import record_positions

TOWER = get_game("tower")


def test_a_live_fall_ends_where_its_replay_does() -> None:
    options = TOWER.options({"hand": "casual"})
    outcome = play_match(TOWER, [TOWER.agents["random"](seat, options) for seat in range(2)], seed=1,
                         options=options)
    assert outcome.result.details["outcome"] == "fall", "seed 1's casual random game no longer falls: pick another"
    live = np.asarray(outcome.final_state.public_view()["poses"])
    replayed = np.asarray(record_positions(TOWER, outcome.record)[-1].state["view"]["poses"])
    assert live.shape == replayed.shape
    # where the fall's aftermath left the tiles, not where they were when the fall was called
    # (the record keeps frames to 10 micrometres)
    assert np.allclose(live, replayed, atol=1e-5)


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two JSON values differ; numbers within 0.1 mm (the record keeps the tower's poses,
    and the figures of its verdicts, rounded: the page shows them as recorded)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(a.keys() ^ b.keys())}"]
        return [d for key in a for d in _differences(a[key], b[key], f"{path}.{key}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items against {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}[{i}]")]
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    velocity = re.fullmatch(r"\.view\.states\[\d+\]\[(\d+)\]", path)
    if numbers and velocity and int(velocity.group(1)) >= 7:  # the record keeps no velocities: a replay's tiles rest
        return [] if a == 0 and abs(b) < 0.01 else [f"{path}: {a!r} against {b!r}"]
    tolerance = 0.1 if path.endswith("_mm") else 1e-4  # 0.1 mm, in the field's unit (metres unless named _mm)
    same = abs(a - b) <= tolerance if numbers else a == b
    return [] if same else [f"{path}: {a!r} against {b!r}"]


SETTINGS = {"tower": (2, {"hand": "casual"}), "cards": (3, {"rounds": 1}), "gimignano": (2, {})}


@pytest.mark.parametrize("game_id", sorted(SETTINGS))
def test_the_server_s_spectator_message_is_the_replay_s_last_position(game_id: str) -> None:
    """A match played through the server's own move function (work.apply_move, which simulates
    the tower's releases); the last message its spectator gets, and the exported page's last
    position of the match's record, agree in every field the game fills in."""
    game = get_game(game_id)
    players, options = SETTINGS[game_id]
    meta = MatchMeta(match_id="m", game=game_id, players=players, seats=["random"] * players, seed=7,
                     options=options)
    state, record = start(game, meta)
    match = LiveMatch(meta, state, record)
    entries, pick = [], np.random.default_rng(7)
    while not match.state.is_over:
        legal = match.state.legal_moves()
        made = apply_move(match.state.clone(), str(legal[pick.integers(len(legal))]), len(entries))
        match.commit(made)
        entries.append(move_from_json(json.loads(made.journal_line)))
    live = match.state_message(None, made.events, [0] * players)
    whole = GameRecord(record.header, record.setup_events, entries, match.record.result)
    replayed = record_positions(game, whole)[-1].state
    live, replayed = (json.loads(json.dumps({key: m[key] for key in replayed})) for m in (live, replayed))
    assert _differences(replayed, live) == []
    assert live["over"] and live["events"] and live["result"]["winners"] == list(whole.result.winners)
