"""``pisa3d play GAME``: one command per registered game, built from the game's declarations.

The options every game shares (players, seed, agents, people, record, ``--set key=value``) are
declared once here; their help comes from the game (player range, agent kinds with their
parameters, the options model with its defaults). A game may name a module in its declaration
(``parts.cli_extras``) with ``EXTRAS`` (more typer options, e.g. tower --gui, gimignano --svg),
``HELP`` (the command's text) and ``run(match, **extras)`` (its own way of showing the game);
without one the game is narrated from its events. A fourth game gets a command by registering.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import typer

from ..core.agent_specs import agent_registry
from ..core.events import Event
from ..core.game import Game
from ..core.match import EventCallback, MatchOutcome
from ..core.presentation import presenter_of
from ..core.registry import game_ids, get_game
from ..core.state import Move, State
from .common import (
    GAME_PANEL,
    HUMAN_HELP,
    OUTPUT_PANEL,
    PLAYERS_PANEL,
    RECORD_HELP,
    SEED_HELP,
    SET_HELP,
    check_lineup,
    run_match,
)
from .once import OnceCommand
from .outputs import FORCE_HELP, output_file
from .usage import CommandGroup


class _LazyGames(CommandGroup):
    """Builds a game's command only when asked for it: `pisa3d play cards` never imports the tower
    (and PyBullet); `pisa3d play --help` builds them all to list them. An unknown game is refused
    naming the games."""

    noun = "game"

    def list_commands(self, ctx: Any) -> list[str]:
        return game_ids()

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in game_ids():
            return None
        single = typer.Typer(add_completion=False)  # completion is the root command's business
        single.command(cmd_name, cls=OnceCommand)(make_play_command(cmd_name))
        return typer.main.get_command(single)


play_app = typer.Typer(cls=_LazyGames, help="Play a game with bots (and people) in the terminal.",
                       no_args_is_help=True)


@dataclass
class PlayMatch:
    """What the shared options asked for; ``play`` runs it (extras may add options and a display)."""

    game: Game
    players: int
    seed: int
    agents: list[str]
    humans: list[int]
    option_pairs: list[str]
    record: Path | None
    force: bool = False  # replace existing output files
    quiet: bool = False  # print only the end (a person at the table still sees the game)

    def play(self, on_events: EventCallback | None = None, extra_options: dict[str, Any] | None = None
             ) -> MatchOutcome:
        return run_match(self.game, self.players, self.seed, self.agents, self.humans, self.option_pairs,
                         self.record, on_events=on_events, extra_options=extra_options, force=self.force)


def narrate(match: PlayMatch) -> None:
    """The default display: every event's narration line, then the game's summary."""
    presenter = presenter_of(match.game)

    def show(player: int | None, move: Move | None, events: list[Event], state: State) -> None:
        if match.quiet and not match.humans:
            return
        for line in presenter.describe_events(events):
            typer.echo(line)

    outcome = match.play(on_events=show)
    typer.echo(presenter.summarize(outcome.result, match.players))


def _extras_module(game: Game) -> ModuleType | None:
    """The module of the game's extra ``play`` options, as its declaration names it."""
    name = game.parts.cli_extras
    return importlib.import_module(name) if name is not None else None


def _bots_help(game: Game) -> str:
    """Each bot in a few words with its parameters' names; their types and defaults would fill a
    screen, and a wrong parameter name lists them (``-a mcts:x=1``)."""
    def one(spec: Any) -> str:
        names = f" ({', '.join(p.name for p in spec.params)})" if spec.params else ""  # [] is rich markup
        return f"{spec.name}{names}: {spec.help}"

    return "; ".join(one(spec) for spec in agent_registry(game.agents).values())


def _shared_parameters(game: Game) -> list[inspect.Parameter]:
    option = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter("players", option, annotation=int, default=typer.Option(
            game.default_players, "--players", "-n", min=game.min_players, max=game.max_players, metavar="N",
            rich_help_panel=PLAYERS_PANEL,
            help=f"Number of players, {game.min_players} to {game.max_players}.")),
        inspect.Parameter("agent", option, annotation=list[str], default=typer.Option(
            [], "--agent", "-a", metavar="NAME[:K=V,..]", rich_help_panel=PLAYERS_PANEL,
            help=f"Bot for the seats without a person: NAME or NAME:param=value,... Repeat to cycle over the "
                 f"seats (-a A -a B: seats 1, 3 A and 2, 4 B). Default: {game.contract.default_agent}. "
                 f"Bots (parameters): {_bots_help(game)}. A wrong parameter name lists the parameters' types "
                 f"and defaults.")),
        inspect.Parameter("human", option, annotation=list[int], default=typer.Option(
            [], "--human", metavar="SEAT", rich_help_panel=PLAYERS_PANEL, help=HUMAN_HELP)),
        inspect.Parameter("seed", option, annotation=int, default=typer.Option(
            0, "--seed", "-s", min=0, metavar="SEED", rich_help_panel=GAME_PANEL, help=SEED_HELP)),
        inspect.Parameter("option", option, annotation=list[str], default=typer.Option(
            [], "--set", metavar="KEY=VALUE", rich_help_panel=GAME_PANEL,
            help=f"{SET_HELP} {game.id} options: {', '.join(game.options_model.model_fields)} "
                 f"(a wrong one lists them).")),
        inspect.Parameter("record", option, annotation=Path | None, default=typer.Option(
            None, "--record", "-r", metavar="FILE", parser=output_file("--record"), rich_help_panel=OUTPUT_PANEL,
            help=RECORD_HELP)),
        inspect.Parameter("force", option, annotation=bool, default=typer.Option(
            False, "--force", "-f", rich_help_panel=OUTPUT_PANEL, help=FORCE_HELP)),
        inspect.Parameter("quiet", option, annotation=bool, default=typer.Option(
            False, "--quiet", "-q", rich_help_panel=OUTPUT_PANEL,
            help="Print only the end (a person at the table still sees the game).")),
    ]


def _panel_rank(param: inspect.Parameter) -> int:
    panel = getattr(param.default, "rich_help_panel", None)
    return {PLAYERS_PANEL: 0, GAME_PANEL: 1, OUTPUT_PANEL: 3}.get(panel or "", 2)


def make_play_command(game_id: str) -> Callable[..., None]:
    """The ``play GAME`` command: shared options plus the game's extras, as one typer signature."""
    game = get_game(game_id)
    extras = _extras_module(game)
    extra_params: list[inspect.Parameter] = list(getattr(extras, "EXTRAS", []))
    run: Callable[..., None] = getattr(extras, "run", None) or (lambda match: narrate(match))
    shared = {p.name for p in _shared_parameters(game)}

    def command(**kwargs: Any) -> None:
        check_lineup(game, kwargs["players"], kwargs["agent"])
        match = PlayMatch(game, kwargs["players"], kwargs["seed"], list(kwargs["agent"]), list(kwargs["human"]),
                          list(kwargs["option"]), kwargs["record"], kwargs["force"], kwargs["quiet"])
        run(match, **{k: v for k, v in kwargs.items() if k not in shared})

    # the help's groups in a fixed order: players, the game, a game's own groups, then the output
    params = sorted(_shared_parameters(game) + extra_params, key=_panel_rank)  # stable: order within a group
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__doc__ = getattr(extras, "HELP", None) or f"Play {game.title} to the end and narrate it."
    command.__name__ = f"play_{game_id}"
    return command

