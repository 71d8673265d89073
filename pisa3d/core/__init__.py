"""The turn framework: knows no game and no physics."""

from .agents import Agent, RandomAgent
from .errors import (
    HiddenInformationError,
    IllegalMoveError,
    NotationError,
    OptionsError,
    PisaError,
    RecordedOutcomeError,
    RecordError,
    SeatError,
    UnknownAgentError,
    ViewError,
)
from .events import Event
from .game import Game
from .match import MatchOutcome, play_match
from .options import GameOptions
from .presentation import Presenter, presenter_of
from .record import GameRecord, load_record, save_record
from .replay import VerifyReport, narrate_record, verify_record
from .rng import make_rng
from .state import Move, Result, State, View
from .terminal import TerminalAgent

__all__ = [
    "Agent",
    "Event",
    "Game",
    "GameOptions",
    "GameRecord",
    "HiddenInformationError",
    "IllegalMoveError",
    "MatchOutcome",
    "Move",
    "NotationError",
    "OptionsError",
    "PisaError",
    "Presenter",
    "RandomAgent",
    "RecordError",
    "RecordedOutcomeError",
    "Result",
    "SeatError",
    "State",
    "TerminalAgent",
    "UnknownAgentError",
    "VerifyReport",
    "View",
    "ViewError",
    "load_record",
    "make_rng",
    "narrate_record",
    "play_match",
    "presenter_of",
    "save_record",
    "verify_record",
]
