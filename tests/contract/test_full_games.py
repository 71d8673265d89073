"""The contract checks that play whole games: returns against the winners, bounds, the longest
game, and records. Games with a move budget (the tower: physics at every placement) run these
only with the slow tests (`make test-slow`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pisa3d.core import load_record, play_match, save_record, verify_record
from pisa3d.core.errors import GameNotOverError
from tests.contract.helpers import Case, case_ids, cases

FULL_GAMES = [pytest.param(case, id=name, marks=[pytest.mark.slow] if case.budget else [])
              for case, name in zip(cases(), case_ids(), strict=True)]


@pytest.mark.parametrize("case", FULL_GAMES)
def test_returns_order_players_as_the_winners_and_stay_in_bounds(case: Case) -> None:
    info = case.game.info(case.players, case.options)
    state = case.start(14)
    with pytest.raises(GameNotOverError):
        state.result()
    with pytest.raises(GameNotOverError):
        state.returns()
    for seed in range(14, 17):
        decisions = 0
        state = case.start(seed)
        rng = np.random.default_rng(seed)
        while not state.is_over:
            moves = state.legal_moves()
            state.apply(moves[int(rng.integers(len(moves)))])
            decisions += 1
        returns = state.returns()
        assert returns.shape == (case.players,)
        assert decisions <= info.max_decisions
        assert (info.min_utility <= returns).all() and (returns <= info.max_utility).all()
        winners = state.result().winners
        if winners:
            assert set(winners) == set(np.flatnonzero(returns == returns.max()).tolist())


@pytest.mark.parametrize("case", FULL_GAMES)
def test_a_match_record_saves_loads_and_verifies(case: Case, tmp_path: Path) -> None:
    """Every game's record round-trips through both file forms (plain and gzipped JSON) exactly,
    result included, and replays to the same game (the tower re-simulates each placement)."""
    agents = [case.game.agents["random"](seat, case.options) for seat in range(case.players)]
    outcome = play_match(case.game, agents, seed=15, options=case.options)
    written = json.loads(json.dumps(outcome.record.to_json()))  # tuples read back as lists
    loaded = {name: load_record(save_record(outcome.record, tmp_path / name)) for name in ("game.json", "game.json.gz")}
    for name, record in loaded.items():
        assert record.to_json() == written, f"{name} did not load as it was saved"
        assert record.result == outcome.result
    assert (tmp_path / "game.json.gz").read_bytes()[:2] == b"\x1f\x8b", "a .gz record is not gzipped"
    assert json.loads((tmp_path / "game.json").read_text(encoding="utf-8"))["moves"] == written["moves"]
    report = verify_record(case.game, loaded["game.json.gz"])
    assert report.ok, report.divergences
    assert report.moves_checked == len(outcome.record.moves) > 0
