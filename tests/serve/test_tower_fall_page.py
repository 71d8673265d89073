"""A fall seen in the browser: two scripted players build the riskiest tower they can with a
shaky hand while a spectator's page watches; the falling release plays as an animation (its
pictures change over time) and the tiles end on the table."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx2 as httpx
import numpy as np
import pytest
import websockets
from PIL import Image

from tests.playwright_chromium import chromium_page
from tests.serve.helpers import RealServer, token_of


async def _build_until_it_falls(ws_url: str, tokens: list[str], max_moves: int = 40) -> int:
    """Both seats place their riskiest legal tile until the tower falls; the moves made."""
    sockets = [await websockets.connect(f"{ws_url}?token={t}", max_size=2**24) for t in tokens]
    try:
        latest = [await _state(ws) for ws in sockets]
        for _ in range(max_moves):
            if latest[0]["over"]:
                return int(latest[0]["moves"])
            mover = next(i for i, m in enumerate(latest) if m["legal"])
            details = latest[mover]["details"] or {}
            legal = latest[mover]["legal"]
            move = max(legal, key=lambda m: details[m]["rank"] if m in details else -1)
            await sockets[mover].send(json.dumps({"type": "move", "move": move}))
            await asyncio.sleep(1.0)  # time for the spectator's page to play the release
            latest = [await _state(ws, latest[i]["moves"]) for i, ws in enumerate(sockets)]
        return int(latest[0]["moves"])
    finally:
        for ws in sockets:
            await ws.close()


async def _state(ws: Any, after: int = -1) -> dict[str, Any]:
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "state" and message["moves"] > after:
            return message  # type: ignore[no-any-return]


@pytest.mark.display
@pytest.mark.slow
def test_a_fall_is_animated_and_ends_on_the_table(tmp_path: Path) -> None:
    with RealServer(tmp_path) as server, chromium_page(1280, 720) as page:
        match = httpx.post(server.url + "/api/matches", json={
            "game": "tower", "players": 2, "seats": ["human", "human"], "seed": 2, "options": {"hand": "shaky"}}).json()
        page.goto(server.url + match["watch_url"])
        page.wait_for_selector(".twr-stage canvas")
        shots: list[np.ndarray] = []

        async def play() -> int:
            ws_url = server.url.replace("http", "ws") + f"/ws/{match['match_id']}"
            return await _build_until_it_falls(ws_url, [token_of(match, 0), token_of(match, 1)])

        def shoot_if_animating() -> bool:
            animating = page.get_attribute(".twr", "data-animating") == "1"
            if animating:
                shots.append(np.asarray(Image.open(BytesIO(page.locator(".twr-stage").screenshot())).convert("L"),
                                        dtype=np.int16))
            return animating

        made: list[int] = []
        player = threading.Thread(target=lambda: made.append(asyncio.run(play())))
        player.start()
        while player.is_alive():  # the spectator's picture while the game goes on
            shoot_if_animating()
            page.wait_for_timeout(60)
        player.join()
        status = httpx.get(f"{server.url}/api/matches/{match['match_id']}").json()
        # The falling release plays after the last move is made: keep taking its pictures (on a loaded
        # machine the screenshots are slow and the moves' own releases gave only two). The page's
        # policy allows no evaluated strings, so poll from here.
        seen = False
        for tick in range(500):
            if shoot_if_animating():
                seen = True
            elif seen or tick > 30:  # it played, or two seconds passed and it had played already
                break
            page.wait_for_timeout(60)
    assert status["status"] == "over" and status["result"]["details"]["outcome"] == "fall", status["result"]
    assert len(shots) >= 3, "no release was seen playing"
    # (the end screen's band shrinks the view on a wide screen: compare pictures of one size)
    changes = [np.abs(a - b).mean() for a, b in itertools.pairwise(shots) if a.shape == b.shape]
    assert max(changes) > 0.5, "the pictures of the releases never changed: nothing was animated"
    poses = np.asarray(status["view"]["poses"])
    assert poses[:, 2].min() > -0.01, "a tile ended below the table top"
