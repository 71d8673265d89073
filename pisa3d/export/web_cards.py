"""The card game's scene for the web page: for every point of the game, the table as a
spectator of the finished game sees it (every hand open), read from each seat's own view while
the record is re-played through the rules."""

from __future__ import annotations

from typing import Any

from ..core.game import Game
from ..core.record import GameRecord
from ..core.replay import start_from_record
from ..core.state import State
from ..games.cards.narration import score_rows, winners_line
from ..games.cards.phases import PLAY, VOTE
from ..games.cards.views import placed_with_own_cards


def _seat(view: dict[str, Any], seat: int, agent: str) -> dict[str, Any]:
    rows: list[list[Any]] = [["hand", view["hand"]]]
    placed = view.get("revealed") or []
    placed_now = view["voting"].get("placed", [])
    own_votes = view["my_vote_cards"] if placed_now else []
    if own_votes:
        rows.append(["voting now", own_votes])
    if seat < len(placed) and placed[seat]:
        rows.append(["placed in votes", placed[seat]])
    if view.get("my_discards"):
        rows.append(["discarded", view["my_discards"]])
    rows.append(["tricks won", view["tricks_won"][seat]])
    total = view["totals"][seat] if seat < len(view["totals"]) else 0
    return {"title": f"Player {seat + 1} ({agent}): {total} point{'' if total == 1 else 's'}", "rows": rows}


def _own_cards(views: list[dict[str, Any]]) -> list[str | None]:
    """Each placement's card of the open vote, as the seat that placed it knows it."""
    placed = views[0]["voting"]["placed"]
    return [placed_with_own_cards(views[seat])[i][2] for i, (seat, _, _) in enumerate(placed)]


def _sheet(view: dict[str, Any], num_players: int) -> list[list[Any]]:
    sheet: list[list[Any]] = [["round", *(f"P{p + 1}" for p in range(num_players))]]
    for entry in view["round_log"]:
        points = zip(entry["voting_points"], entry["play_points"], strict=True)
        sheet.append([entry["round"], *(f"{v}+{p}" for v, p in points)])
    sheet.append(["total", *view["totals"]])
    return sheet


def _headline(view: dict[str, Any]) -> str:
    contract = view.get("contract") or {}
    words = [f"Round {view['round']}/{view['rounds']}, dealer P{view['dealer'] + 1}, phase {view['phase']}"]
    if view["phase"] == VOTE and view["voting"].get("round"):
        words.append(f"voting on {view['voting']['round']} ({', '.join(view['voting']['options'])})")
    if contract:
        words.append(f"contract: main trump {contract['main']}, undertrump {contract['under']}, "
                     f"{contract['tricks']} tricks win, order {contract['order']}")
    return "; ".join(words)


def _table(state: State, agents: list[str]) -> dict[str, Any]:
    views = [state.view(p) for p in range(state.num_players)]
    v = views[0]
    center_title, center = "", []
    if v["phase"] == PLAY and v["trick"]:
        led = f", led by P{v['leader'] + 1}" if v["leader"] is not None else ""
        center_title = f"Trick {len(v['trick_history']) + 1}{led}"
        center = [[f"P{p + 1}", card] for p, card in v["trick"]]
    elif v["phase"] == VOTE and v["voting"].get("placed"):
        center_title = f"Votes on {v['voting']['round']} so far"
        # each seat's own view knows the values of its own cards: the replay shows them all
        cards = _own_cards(views)
        center = [[f"P{p + 1} on {option}", card]
                  for (p, option, _), card in zip(v["voting"]["placed"], cards, strict=True)]
    summary = (f"round {v['round']}/{v['rounds']}, {v['phase']}; tricks {'/'.join(map(str, v['tricks_won']))}; "
               f"points {'/'.join(map(str, v['totals']))}")
    return {
        "headline": _headline(v),
        "to_move": state.current_player,
        "seats": [_seat(views[p], p, agents[p]) for p in range(state.num_players)],
        "center_title": center_title,
        "center": center,
        "sheet": _sheet(v, state.num_players),
        "summary": summary,
    }


def cards_scene(game: Game, record: GameRecord) -> dict[str, Any]:
    agents = [p["agent"] for p in record.header["players"]]
    state, _ = start_from_record(game, record)
    states = [_table(state, agents)]
    for entry in record.moves:
        state.apply(game.parse_move(entry.move))
        states.append(_table(state, agents))
    scene: dict[str, Any] = {"kind": "cards", "states": states}
    if record.result is not None:  # the end: the score sheet as a table, not as box-drawing text
        header, rows = score_rows(record.result.details.get("rounds", []), list(record.result.scores),
                                  record.result.winners)
        scene["result_table"] = {"title": "Scores (voting + play points)", "header": header, "rows": rows,
                                 "winners": winners_line(record.result.winners), "wrap": [header.index("Contract")]}
    return scene
