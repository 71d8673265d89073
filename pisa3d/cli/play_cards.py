"""``pisa3d play cards`` extras: compact narration (votes, tricks, the score table) or --verbose."""

from __future__ import annotations

import inspect

import typer
from rich.console import Console

from ..core.events import Event
from ..core.state import Move, State
from .common import OUTPUT_PANEL

HELP = """Play the Pisa card game to the end: three votes (trumps, tricks, order), a secret discard,
then the tricks; n rounds. Prints each round's votes, tricks and the score table.

Example: pisa3d play cards --players 4 --human 1 --set rounds=2 --record cards.json
"""

EXTRAS = [
    inspect.Parameter("verbose", inspect.Parameter.KEYWORD_ONLY, annotation=bool, default=typer.Option(
        False, "--verbose", "-v", rich_help_panel=OUTPUT_PANEL,
        help="Print every event (each vote card, each card played).")),
]

# Events worth a line in the default (compact) output, a won trick told compactly; --verbose
# prints every event in full.
_COMPACT_KINDS = {"deal", "vote_revealed", "contract", "voting_points", "trick_won", "play_points", "round_end",
                  "game_end"}
# With a person at the table they also need to see what the others do before their turn, in full.
_HUMAN_KINDS = _COMPACT_KINDS | {"vote_placed", "vote_done", "discard_done", "play_start", "card_played"}


def run(match, verbose: bool) -> None:  # type: ignore[no-untyped-def]
    from ..games.cards.narration import describe_event, score_table

    human = match.humans
    console = Console(highlight=False)
    kinds = None if verbose else (_HUMAN_KINDS if human else _COMPACT_KINDS)
    compact = not verbose and not human

    def show(player: int | None, move: Move | None, events: list[Event], state: State) -> None:
        if match.quiet and not human:  # a person at the table must still see the game
            return
        for event in events:
            if kinds is not None and event.kind not in kinds:
                continue
            if event.kind == "deal":
                typer.echo("")
            line = describe_event(event, compact=compact)
            if line is not None:
                typer.echo(line)

    outcome = match.play(on_events=show)
    typer.echo("")
    console.print(score_table(outcome.result.details["rounds"], list(outcome.result.scores), outcome.result.winners))
    winners = ", ".join(f"player {w + 1}" for w in outcome.result.winners)
    typer.echo(f"Winner(s) (*): {winners}")
