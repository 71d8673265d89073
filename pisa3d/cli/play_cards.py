"""``pisa3d play cards``: the Pisa card game with bots and people in the terminal."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from ..core.events import Event
from ..core.state import Move, State
from ..games import get_game
from .common import HUMAN_HELP, RECORD_HELP, SEED_HELP, SET_HELP, run_match
from .outputs import FORCE_HELP
from .play import play_app

# Events worth a line in the default (compact) output; --verbose prints every event.
_COMPACT_KINDS = {"deal", "vote_revealed", "contract", "voting_points", "play_points", "round_end", "game_end"}
# With a person at the table they also need to see what the others do before their turn.
_HUMAN_KINDS = _COMPACT_KINDS | {"vote_placed", "vote_done", "discard_done", "play_start", "card_played", "trick_won"}


def _trick_line(event: Event) -> str:
    d = event.data
    cards = " ".join(f"{c:>3}" for c in d["cards"])
    return f"  trick {d['trick']:2d}: {cards}  (P{d['leader'] + 1} led) -> P{d['player'] + 1}"


@play_app.command("cards")
def play_cards(
    players: int = typer.Option(4, "--players", "-n", help="Number of players, 3 to 5."),
    seed: int = typer.Option(0, "--seed", "-s", help=SEED_HELP),
    agent: list[str] = typer.Option(
        [],
        "--agent",
        "-a",
        help="Bot for the seats without a person: random, heuristic or mcts. Repeat to cycle over the seats "
        "(--agent heuristic --agent random gives seats 1, 3 heuristic and 2, 4 random). Default: heuristic.",
    ),
    human: list[int] = typer.Option([], "--human", help=HUMAN_HELP),
    record: Path | None = typer.Option(None, "--record", "-r", help=RECORD_HELP),
    option: list[str] = typer.Option(
        [], "--set",
        help=SET_HELP + " Card options: rounds (1 to 20, default one per player), first_dealer (seat, default 1)."
    ),
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="Print every event (each vote card, each card played)."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the score table and the winners."),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
) -> None:
    """Play the Pisa card game to the end: three votes (trumps, tricks, order), a secret discard,
    then the tricks; n rounds. Prints each round's votes, tricks and the score table."""
    game = get_game("cards")
    console = Console(highlight=False)
    kinds = None if verbose else (_HUMAN_KINDS if human else _COMPACT_KINDS)

    def show(player: int | None, move: Move | None, events: list[Event], state: State) -> None:
        if quiet and not human:  # a person at the table must still see the game
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

    outcome = run_match(game, players, seed, agent or ["heuristic"], human, option, record, on_events=show,
                        force=force)
    typer.echo("")
    from ..games.cards.narration import score_table

    console.print(score_table(outcome.result.details["rounds"], list(outcome.result.scores), outcome.result.winners))
    winners = ", ".join(f"player {w + 1}" for w in outcome.result.winners)
    typer.echo(f"Winner(s) (*): {winners}")
