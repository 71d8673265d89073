"""Text for people: one line per event, a player's view, and the final score table.

Seats are 0-based in events and views and shown 1-based here.
"""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from rich.table import Table

from ...core.events import Event
from ...core.state import Result, View
from .cards import SPEC
from .phases import DISCARD, PLAY, VOTE
from .views import placed_with_own_cards


def _p(seat: int) -> str:
    return f"player {seat + 1}"


def _per_seat(values: list[Any], sign: str = "") -> str:
    """``P1 3, P2 5, ...``: one number per seat, seats shown 1-based."""
    return ", ".join(f"P{seat + 1} {sign}{value}" for seat, value in enumerate(values))


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def contract_text(contract: dict[str, Any]) -> str:
    if not contract:
        return "not voted yet"
    return (
        f"{contract['trump']}: main trump {contract['main']}, undertrump {contract['under']}; "
        f"{contract['tricks']} tricks win; "
        f"{'13 beats 0' if contract['order'] == 'high' else '0 beats 13'} ({contract['order']})"
    )


def _placed_text(placed: list[list[Any]]) -> str:
    by_option: dict[str, list[str]] = {}
    for seat, option, card in placed:
        by_option.setdefault(option, []).append(f"P{seat + 1}:{card}")
    return "; ".join(f"{option} [{' '.join(cards)}]" for option, cards in by_option.items())


def describe_trick(d: dict[str, Any], compact: bool = False) -> str:
    """A won trick. ``compact`` (the default play output, one line a trick, no card_played lines):
    indented, the cards in aligned columns, seats as P1, P2; else in words, as replays tell it."""
    if compact:
        cards = " ".join(f"{card:>3}" for card in d["cards"])
        return f"  trick {d['trick']:2d}: {cards}  (P{d['leader'] + 1} led) -> P{d['player'] + 1}"
    return f"trick {d['trick']} to {_p(d['player'])}: {' '.join(d['cards'])} (led by {_p(d['leader'])})"


def describe_event(event: Event, compact: bool = False) -> str | None:
    """One line for ``event``; ``compact`` only changes the won trick (see describe_trick)."""
    d = event.data
    kind = event.kind
    if kind == "card_played":
        return f"{_p(d['player'])} plays {d['card']}"
    if kind == "trick_won":
        return describe_trick(d, compact)
    if kind == "vote_placed":
        who = _p(d["player"])
        return f"{who} puts a {_ordinal(d['cards'])} card face down by {d['option']} ({d['voting_round']} vote)"
    if kind == "vote_done":
        return f"{_p(d['player'])} has voted: {d['cards']} card(s) by {d['option']}"
    if kind == "vote_revealed":
        totals = ", ".join(f"{o} {t}" for o, t in d["totals"].items())
        return (
            f"{d['voting_round']} vote revealed: {_placed_text(d['placed'])}; totals {totals} -> "
            f"{d['winner']} wins: {d['reason']}"
        )
    if kind == "contract":
        return "contract: " + contract_text(d)
    if kind == "voting_points":
        return (
            "voting points (placed totals "
            + "/".join(map(str, d["placed_totals"]))
            + "): "
            + _per_seat(d["points"], "+")
        )
    if kind == "discard_done":
        return f"{_p(d['player'])} discarded {d['cards']} placed cards face down"
    if kind == "play_start":
        return f"play begins with {d['hand_size']} cards each; {_p(d['leader'])} leads"
    if kind == "play_points":
        goal = "most" if d["most_wins"] else "fewest"
        return (
            f"play points ({goal} tricks win; tricks "
            + "/".join(map(str, d["tricks"]))
            + "): "
            + _per_seat(d["points"], "+")
        )
    if kind == "round_end":
        return f"round {d['round']} over; totals " + _per_seat(d["totals"])
    if kind == "deal":
        return (
            f"round {d['round']}/{d['rounds']}: {_p(d['dealer'])} deals {d['hand_size']} cards each "
            f"({d['set_aside']} set aside); {_p(d['opener'])} opens the voting"
        )
    if kind == "game_end":
        winners = ", ".join(_p(w) for w in d["winners"])
        return f"game over; totals {_per_seat(d['totals'])}; winner(s): {winners}"
    return f"{kind}: {d}"


def render_view(view: View) -> str:
    """A player's view as a few readable lines: hand, votes, trick, scores."""
    me = view["seat"]
    lines = [
        f"--- Round {view['round']}/{view['rounds']} ({view['phase']}) - you are player {me + 1}; "
        f"dealer player {view['dealer'] + 1} ---",
        "Your hand: " + (" ".join(view["hand"]) or "(empty)"),
        "Cards in hands: " + _per_seat(view["hand_sizes"]),
    ]
    voting = view["voting"]
    for res in voting["results"]:
        lines.append(f"{res['voting_round']} vote: {res['winner']} won ({_placed_text(res['placed'])})")
    if voting["round"] is not None:
        shown = [[seat, opt, card or "??"] for seat, opt, card in placed_with_own_cards(view)]
        lines.append(
            f"Now voting on {voting['round']} (options {', '.join(voting['options'])}): "
            + (_placed_text(shown) or "no cards yet")
        )
        if voting["turn"]:
            lines.append(
                f"Your vote so far: {voting['turn']['cards']} card(s) by {voting['turn']['option']}; "
                f"add more ({SPEC.vote_cards_max} at most) or 'done'"
            )
    if view["contract"]:
        lines.append("Contract: " + contract_text(view["contract"]))
    if view["voting_points"]:
        lines.append("Voting points this round: " + _per_seat(view["voting_points"]))
    if view["phase"] == DISCARD:
        lines.append(
            "Your placed cards: " + " ".join(view["my_placed"])
            + f"  (discard {SPEC.discard_count - len(view['my_discards'])} more)"
        )
    if view["phase"] == PLAY:
        trick = " ".join(f"P{seat + 1}:{card}" for seat, card in view["trick"]) or "(you lead)"
        lines.append(f"Trick {len(view['trick_history']) + 1}: {trick}")
        lines.append("Tricks won: " + _per_seat(view["tricks_won"]))
    lines.append("Scores: " + _per_seat(view["totals"]))
    if view["current_player"] == me and view["phase"] in _HINTS:
        lines.append(_HINTS[view["phase"]].format(example=example_move(view)))
    return "\n".join(lines)


_HINTS = {
    VOTE: f"Type a number, or e.g. '{{example}}' (one card a time, up to {SPEC.vote_cards_max}; 'done' ends your "
          "vote); ? explains.",
    DISCARD: f"Type a number, or e.g. '{{example}}': {SPEC.discard_count} of your placed cards leave the game; "
             "? explains.",
    PLAY: "Type a number, or e.g. '{example}'; follow the led suit if you can; ? explains.",
}


def example_move(view: View) -> str:
    """A move this seat could make now, for the examples in the prompt and the help: a card of
    their hand by the voting card of this vote (or of this turn), one of their placed cards, a
    card that follows the led suit. Generic when the view leaves nothing to pick from."""
    phase, hand = view["phase"], view["hand"]
    if phase == VOTE:
        voting = view["voting"]
        options = voting["options"] or ["T2"]
        option = voting["turn"]["option"] if voting["turn"] else options[min(1, len(options) - 1)]
        return f"vote {option} {hand[len(hand) // 2] if hand else 'R5'}"
    if phase == DISCARD:
        return f"discard {view['my_placed'][0] if view['my_placed'] else 'R5'}"
    led = view["trick"][0][1][0] if view["trick"] else None
    follow = [card for card in hand if card[0] == led]
    return f"play {(follow or hand or ['R5'])[0]}"


def score_rows(
    round_log: list[dict[str, Any]], totals: list[float], winners: list[int] | tuple[int, ...]
) -> tuple[list[str], list[list[str]]]:
    """The score sheet as plain text cells: rounds down (voting + play points), players across,
    then the totals with ``*`` by the winners. One source for the terminal and the web page."""
    header = ["Round", "Contract", *(f"P{seat + 1}" for seat in range(len(totals)))]
    rows = []
    for entry in round_log:
        c = entry["contract"]
        rows.append([
            str(entry["round"]),
            f"{c['trump']} {c['tricks']} {c['order']}",
            *(f"{v}+{p}" for v, p in zip(entry["voting_points"], entry["play_points"], strict=True)),
        ])
    rows.append(["Total", "", *(f"{t:g}" + (" *" if seat in winners else "") for seat, t in enumerate(totals))])
    return header, rows


def score_table(round_log: list[dict[str, Any]], totals: list[float], winners: list[int] | tuple[int, ...]) -> Table:
    """Rounds down, players across: voting + play points per round, then totals."""
    header, rows = score_rows(round_log, totals, winners)
    table = Table(title="Scores (voting + play points)")
    for k, name in enumerate(header):
        table.add_column(name, justify="right" if k >= 2 else "left")
    for row in rows[:-1]:
        table.add_row(*row)
    table.add_row(*rows[-1][:2], *(f"[bold]{cell}[/bold]" for cell in rows[-1][2:]))
    return table


def winners_line(winners: list[int] | tuple[int, ...]) -> str:
    return "Winner(s) (*): " + ", ".join(_p(w) for w in winners)


def render_table(table: Table, width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(table)
    return console.file.getvalue().rstrip()  # type: ignore[attr-defined]


def summarize(result: Result, num_players: int) -> str:
    table = score_table(result.details.get("rounds", []), list(result.scores), result.winners)
    return render_table(table) + "\n" + winners_line(result.winners)
