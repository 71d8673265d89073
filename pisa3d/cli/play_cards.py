"""``pisa3d play cards`` extras: compact narration (votes, tricks, the score table) or --verbose."""

from __future__ import annotations

import inspect

import typer
from rich.console import Console

from ..core.events import Event
from ..core.state import Move, State

HELP = """Play the Pisa card game to the end: three votes (trumps, tricks, order), a secret discard,
then the tricks; n rounds. Prints each round's votes, tricks and the score table."""

EXTRAS = [
    inspect.Parameter("verbose", inspect.Parameter.KEYWORD_ONLY, annotation=bool, default=typer.Option(
        False, "--verbose", "-v", help="Print every event (each vote card, each card played).")),
]

# Events worth a line in the default (compact) output; --verbose prints every event.
_COMPACT_KINDS = {"deal", "vote_revealed", "contract", "voting_points", "play_points", "round_end", "game_end"}
# With a person at the table they also need to see what the others do before their turn.
_HUMAN_KINDS = _COMPACT_KINDS | {"vote_placed", "vote_done", "discard_done", "play_start", "card_played", "trick_won"}


def _trick_line(event: Event) -> str:
    d = event.data
    cards = " ".join(f"{c:>3}" for c in d["cards"])
    return f"  trick {d['trick']:2d}: {cards}  (P{d['leader'] + 1} led) -> P{d['player'] + 1}"


def run(match, verbose: bool) -> None:  # type: ignore[no-untyped-def]
    game, human = match.game, match.humans
    console = Console(highlight=False)
    kinds = None if verbose else (_HUMAN_KINDS if human else _COMPACT_KINDS)

    def show(player: int | None, move: Move | None, events: list[Event], state: State) -> None:
        if match.quiet and not human:  # a person at the table must still see the game
            return
        for event in events:
            if event.kind == "trick_won" and not verbose and not human:
                typer.echo(_trick_line(event))
                continue
            if kinds is not None and event.kind not in kinds:
                continue
            if event.kind == "deal":
                typer.echo("")
            line = game.describe_event(event)
            if line is not None:
                typer.echo(line)

    outcome = match.play(on_events=show)
    typer.echo("")
    from ..games.cards.narration import score_table

    console.print(score_table(outcome.result.details["rounds"], list(outcome.result.scores), outcome.result.winners))
    winners = ", ".join(f"player {w + 1}" for w in outcome.result.winners)
    typer.echo(f"Winner(s) (*): {winners}")
