"""The live tower page frames by the server's box, worked out by the one framing rule of the
replay page, the viewer and the video (pisa3d.games.tower.presentation.framing.move_bounds, reached by the
server through the tower's declared ``live_framing`` part), widened to the ghost slots for the
person choosing a placement; a restarted server frames as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pisa3d.games.tower.presentation.framing import move_bounds, play_bounds
from pisa3d.games.tower.presentation.replay import load_tower_replay
from pisa3d.serve.store import MatchStore
from tests.serve.helpers import create, next_state, served, token_of

MOVES = 6
TOLERANCE = 1e-4  # metres: the server's poses before a move are not rounded as the record's are


def close(box: Any, expected: Any) -> bool:
    return bool(np.allclose(np.asarray(box, dtype=float), np.asarray(expected, dtype=float), atol=TOLERANCE))


@pytest.mark.slow
def test_every_state_and_release_carries_the_box_of_the_shared_rule(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "tower", ["human", "human"], hand="steady")
        mid = match["match_id"]
        releases, watched, offered = [], [], []
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as seat0,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as seat1,
              client.websocket_connect(f"/ws/{mid}") as watcher):
            seats = [next_state(seat0), next_state(seat1)]
            first_watch = next_state(watcher)
            for _ in range(MOVES):
                mover = seats[0]["to_move"]
                assert seats[mover]["details"]  # the person to move is offered ghosts
                offered.append(seats[mover])
                [seat0, seat1][mover].send_json({"type": "move", "move": seats[mover]["listed"][-1]})
                release = watcher.receive_json()
                assert release["type"] == "trajectory"
                releases.append(release)
                watched.append(next_state(watcher))
                seats = [next_state(seat0), next_state(seat1)]
        _, record, _ = MatchStore(tmp_path).load(mid)
    replay = load_tower_replay(record)
    assert replay.num_moves == MOVES
    # The empty table: one tile's room, as the replay page frames the set-up.
    assert close(first_watch["frame_box"], move_bounds(replay, -1))
    for index in range(MOVES):
        expected = move_bounds(replay, index)
        assert close(releases[index]["frame_box"], expected), index  # the fall framed as the replay frames it
        assert close(watched[index]["frame_box"], expected), index  # a spectator: the replay's box, unchanged
        # The person to move: the last move's box and every ghost slot, by play_bounds.
        state = offered[index]
        before = move_bounds(replay, index - 1)
        ghosts = [d["pose"] for d in state["details"].values()]
        assert close(state["frame_box"], play_bounds(before, ghosts, replay.side)), index
        low, high = (np.asarray(c) for c in state["frame_box"])
        centres = np.asarray(ghosts)[:, :3]
        assert np.all(centres >= low) and np.all(centres <= high)
    # The ghosts sit on top: their box reaches above the tower's own at least once.
    assert any(s["frame_box"][1][2] > move_bounds(replay, i - 1)[1][2] + 1e-3 for i, s in enumerate(offered))

    with served(tmp_path) as client, client.websocket_connect(f"/ws/{mid}") as watcher:
        assert close(next_state(watcher)["frame_box"], move_bounds(replay, MOVES - 1))  # rebuilt from the journal


def test_other_games_send_no_box(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "human", "human"])
        with client.websocket_connect(f"/ws/{match['match_id']}") as watcher:
            assert next_state(watcher)["frame_box"] is None
