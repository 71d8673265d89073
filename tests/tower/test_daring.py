"""The daring bot plays the slot whose fall odds are nearest its risk: the way of playing the fall
odds' fit games seat beside random and safe players (odds/collect.py's daring+random table)."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.core.agent_specs import build_agent
from pisa3d.core.errors import OptionsError
from pisa3d.core.rng import make_rng
from pisa3d.games import get_game
from pisa3d.games.tower.odds.collect import TABLES
from pisa3d.games.tower.odds.fall_odds import fall_odds
from tests.core.test_decision_budget import position

GAME = get_game("tower")


def test_daring_plays_the_slot_whose_odds_are_nearest_its_risk() -> None:
    state = position("tower", 2, 3, 10, bot="random")  # 8 slots, odds from 0.2% to 99.8%
    odds = {move.slot: o.odds for move, o in fall_odds(state).items()}
    assert max(odds.values()) - min(odds.values()) > 0.2, "the position offers no spread of odds: pick another"
    seat = state.current_player
    chosen = {}
    for risk in (0.0, 0.15, 1.0):
        agent = build_agent(GAME, f"daring:risk={risk},tolerance=0", seat, GAME.options())
        move = agent.choose(state.view(seat), state.legal_moves(), make_rng(1))
        chosen[risk] = odds[move.slot]
        assert all(abs(chosen[risk] - risk) <= abs(o - risk) + 1e-12 for o in odds.values()), (risk, chosen, odds)
    assert chosen[0.0] == min(odds.values()) and chosen[1.0] == max(odds.values())
    safest = build_agent(GAME, "safest:tolerance=0", seat, GAME.options())
    assert odds[safest.choose(state.view(seat), state.legal_moves(), make_rng(1)).slot] == chosen[0.0]


def test_daring_s_risk_is_a_probability() -> None:
    with pytest.raises(OptionsError, match="risk"):
        build_agent(GAME, "daring:risk=1.5", 0, GAME.options())


def test_the_fit_games_seat_daring_players() -> None:
    kinds = [kind for table in TABLES.values() for kind in table]
    risks = sorted(float(kind.split("risk=")[1]) for kind in kinds if kind.startswith("daring"))
    assert risks and np.ptp(risks) >= 0.2  # aiming at low and at high odds
