"""The one framing box of the viewer, the video and the web page leaves out tiles that fell off
the table: a tile that ends metres below the table top never stretches the box, which then
spans what stood on the table, as the page's box does."""

from __future__ import annotations

import numpy as np

from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.presentation.framing import release_bounds
from pisa3d.games.tower.presentation.replay import load_tower_replay
from pisa3d.viewer.camera import move_bounds, play_bounds, tower_bounds
from pisa3d.web.messages import record_positions

GAME = get_game("tower")


def test_a_tile_below_the_table_never_enters_the_framing_box():
    for seed in range(6):
        options = GAME.options({"hand": "casual"})
        agents = [GAME.agents["careful"](seat, options) for seat in range(4)]
        record = play_match(GAME, agents, seed=seed, options=options).record
        replay = load_tower_replay(record)
        frames = [np.asarray(f, dtype=float) for f in replay.settled_frames() if len(f)]
        standing = tower_bounds(frames, replay.side)
        dropped = frames[-1].copy()
        dropped[-1, :3] = (0.4, -0.3, -10.0)  # the last tile fell off the table, 10 m down
        low, high = tower_bounds([*frames, dropped], replay.side)
        assert np.allclose(low, standing[0]) and np.allclose(high, standing[1])
        assert low[2] >= -replay.side / 2 - 1e-9 and high[2] >= replay.side - 1e-9  # the table's room kept
        boxes = [position.state["frame_box"] for position in record_positions(GAME, record)]
        assert len(boxes) == replay.num_moves + 1  # the set-up, then each move
        for index, (page_low, page_high) in enumerate(boxes):  # the page frames the viewer's box
            low, high = move_bounds(replay, index - 1)
            assert np.allclose(page_low, low) and np.allclose(page_high, high)


def test_a_tile_thrown_off_the_table_is_left_out_of_its_whole_flight():
    """Past the table's edge a falling tile is above the top for a while; the move's box leaves it
    out of every frame, as it leaves it out once it is below (seed 4 of tests/viewer/framing.py
    shrank the tower to a quarter of the picture's height before this rule)."""
    side = 0.06
    before = np.array([[0.0, 0.0, 0.03, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.09, 0.0, 0.0, 0.0, 1.0]])
    flight = []
    for x, z in ((0.0, 0.15), (-0.25, 0.10), (-0.40, 0.02), (-0.45, -0.50)):  # the new tile flies off
        frame = np.vstack([before, [x, 0.0, z, 0.0, 0.0, 0.0, 1.0]])
        flight.append(frame)
    low, high = release_bounds(before, flight, side)
    assert np.allclose(low, tower_bounds([before], side)[0]) and np.allclose(high, tower_bounds([before], side)[1])
    landed = [*flight[:-1], np.vstack([before, [-0.25, 0.0, 0.002, 0.0, 0.0, 0.0, 1.0]])]  # stays on the table
    assert release_bounds(before, landed, side)[0][0] == -0.40 - side / 2  # then its whole flight is framed


def test_the_live_page_s_box_widens_the_move_s_box_to_every_ghost_and_no_further():
    side = 0.06
    move_box = (np.array([-0.03, -0.03, 0.0]), np.array([0.03, 0.03, 0.12]))
    low, high = play_bounds(move_box, [], side)
    assert np.array_equal(low, move_box[0]) and np.array_equal(high, move_box[1])  # a spectator: the move's box
    ghosts = [[0.0, 0.0, 0.15, 0, 0, 0, 1], [0.05, 0.0, 0.03, 0, 0, 0, 1]]  # above the tower, out to the east
    low, high = play_bounds(move_box, ghosts, side)
    assert np.allclose(high, [0.08, 0.03, 0.18]) and np.allclose(low, move_box[0])  # each centre + half a side
    low, high = play_bounds(move_box, [[0.0, 0.0, -5.0, 0, 0, 0, 1]], side)  # none below the table counts
    assert np.allclose(low, move_box[0]) and np.allclose(high, move_box[1])
