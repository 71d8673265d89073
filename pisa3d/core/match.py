"""The match runner: plays one game with agents and returns the result and its record."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .agents import Agent, check_sight, seen_by
from .errors import IllegalMoveError, OptionsError
from .events import Event
from .game import Game
from .options import GameOptions
from .record import GameRecord, MoveEntry, PlayerEntry, new_header
from .rng import Stream, make_rng
from .state import Move, Result, State

EventCallback = Callable[[int | None, Move | None, list[Event], State], None]
"""Called with (player, move, events, state after): move and player are None for set-up."""


@dataclass
class MatchOutcome:
    result: Result
    record: GameRecord
    final_state: State


def agent_rngs(seed: int, num_players: int) -> list[Any]:
    return [make_rng(seed, Stream.AGENTS, seat) for seat in range(num_players)]


def play_match(
    game: Game,
    agents: Sequence[Agent],
    seed: int,
    options: Mapping[str, Any] | GameOptions | None = None,
    on_events: EventCallback | None = None,
    max_moves: int = 1_000_000,
    on_move: Callable[[MoveEntry], None] | None = None,
    on_start: Callable[[GameRecord], None] | None = None,
) -> MatchOutcome:
    """Play ``game`` to the end with one agent per seat.

    An agent with ``wants_state = True`` (a referee-level search bot) gets a clone of the state
    instead of a view; only a game of perfect information allows one (HiddenInformationError). One
    with ``reads_view = False`` (a random bot) gets an empty view, so no view is built for it.
    ``on_move`` gets each move's record entry as it is written, extras (the tower's trajectory)
    included: a live viewer animates from it. ``on_start`` gets the record as soon as it exists; it grows move by move,
    so a caller stopped mid-game (Ctrl-C, end of input) still holds every finished move.
    """
    num_players = len(agents)
    for seat, agent in enumerate(agents):
        check_sight(game, agent, seat)
    opts = game.options(options)
    state, setup_events = game.new_game(num_players, seed, opts)
    rngs = agent_rngs(seed, num_players)
    players = [PlayerEntry(seat, getattr(agent, "name", "agent")) for seat, agent in enumerate(agents)]
    header = new_header(game, opts, seed, players)
    record = GameRecord(header=header, setup_events=setup_events, moves=[], result=None)
    if on_start:
        on_start(record)
    if on_events:
        on_events(None, None, setup_events, state)
    while not state.is_over:
        if len(record.moves) >= max_moves:
            raise OptionsError(f"game did not end within {max_moves} moves")
        player = state.current_player
        assert player is not None
        legal = state.legal_moves()
        agent = agents[player]
        move = agent.choose(seen_by(agent, state, player), legal, rngs[player])
        try:
            events = state.apply(move)
        except IllegalMoveError as exc:
            raise IllegalMoveError(
                f"agent {agent.name!r} at seat {player + 1} made move {len(record.moves) + 1} "
                f"{str(move)!r}: {exc}"
            ) from exc
        record.moves.append(MoveEntry(player, str(move), events, state.take_record_extras()))
        if on_events:
            on_events(player, move, events, state)
        if on_move:
            on_move(record.moves[-1])
    record.result = state.result()
    return MatchOutcome(record.result, record, state)
