"""A position of San Gimignano and the rules that advance it.

A turn is three phases of the same player, each one decision: ``stone`` (must place when able),
``tile`` (must lay when able) and ``tower`` (build on a quartet, or ``done``). A phase with no
legal move is skipped with a ``skip`` event, so the runner never needs a special case.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.errors import IllegalMoveError
from ...core.events import Event
from ...core.state import Result, State, View
from .board import Board, PlotRef
from .hexgrid import PLOT_LETTERS, PLOTS_PER_TILE
from .moves import NOTATION_HELP, ActionSpace, BuildTower, GimignanoMove, LayTile, NoTower, PlaceStone, lay_tile_move
from .options import GimignanoOptions
from .quartets import Quartet, find_quartets, first_completable, group_of, quartets_through
from .tiles import TileSet, setup_table

STONES_PER_PLOT = 2
NO_TOWER = -1


class GimignanoState(State):
    game_id = "gimignano"

    def __init__(self, num_players: int, options: GimignanoOptions, tileset: TileSet) -> None:
        self.num_players = num_players
        self.options = options
        self.tileset = tileset
        self.board = Board(tileset)
        self.stones: list[list[int]] = []  # per plot: owners, in the order placed
        self.towers: list[int] = []  # per plot: owner of the tower there, or NO_TOWER
        self.hands: list[list[int]] = [[] for _ in range(num_players)]
        self.supply = [options.stones_per_player] * num_players
        self.built = [0] * num_players
        self.player = 0
        self._phase = "stone"
        # per player: plots of the group where a forced build is due on their next turn
        self.obligation: list[list[int] | None] = [None] * num_players
        self.quiet_turns = 0  # consecutive turns in which nothing was played
        self.turn_acted = False
        self.turn = 1
        self.end_reason: str | None = None
        self._board_final = False  # no tile in any hand can ever be laid again
        self._board_checked_at: tuple[int, int] | None = None  # (tiles laid, tiles in hands) then
        # Derived, kept up to date move by move because the quartet search is the hot path:
        # each player's stone plots, and their quartets (None: not computed yet).
        self.own: list[set[int]] = [set() for _ in range(num_players)]
        self._quartets: list[list[Quartet] | None] = [None] * num_players
        # Plots with room for a stone (no tower, fewer than two stones), in plot order; None: not
        # worked out yet (set-up and ``from_view`` fill the lists first).
        self._open: list[int] | None = None
        self._legal: list[GimignanoMove] | None = None
        self._legal_set: frozenset[GimignanoMove] | None = None
        # ``could_still_build`` per player: the quartet found last time (tried first next time),
        # or, when none was found, (plots then, supply then).
        self._completable: list[Quartet | None] = [None] * num_players
        self._hopeless: list[tuple[int, int] | None] = [None] * num_players

    # --- copying -------------------------------------------------------------------------------
    def clone(self) -> GimignanoState:
        other = GimignanoState.__new__(GimignanoState)
        other.__dict__.update(self.__dict__)
        other.board = self.board.copy()
        other.stones = [list(s) for s in self.stones]
        other.towers = list(self.towers)
        other.hands = [list(h) for h in self.hands]
        other.supply = list(self.supply)
        other.built = list(self.built)
        other.obligation = list(self.obligation)
        other.own = [set(o) for o in self.own]
        other._quartets = [None if q is None else list(q) for q in self._quartets]
        other._open = None if self._open is None else list(self._open)
        other._completable = list(self._completable)
        other._hopeless = list(self._hopeless)
        return other

    # --- the protocol --------------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.is_over else self.player

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase == "over"

    def legal_moves(self) -> Sequence[GimignanoMove]:
        if self._legal is None:
            self._legal = self._moves_for_phase()
        return self._legal

    def apply(self, move: GimignanoMove) -> list[Event]:  # type: ignore[override]
        if self.is_over:
            raise IllegalMoveError(f"the game is over ({self.end_reason}); no more moves")
        legal = self.legal_moves()
        # Moves usually come from ``legal_moves`` itself: an identity scan finds them without
        # hashing every legal move (dataclass hashes are Python calls); others are looked up.
        for m in legal:
            if m is move:
                break
        else:
            if self._legal_set is None:
                self._legal_set = frozenset(legal)
            if move not in self._legal_set:
                raise IllegalMoveError(self.refusal(move) or self._why_illegal(move))
        events: list[Event] = []
        if isinstance(move, PlaceStone):
            self._place_stone(move, events)
            self._phase = "tile"
        elif isinstance(move, LayTile):
            self._lay_tile(move, events)
            self._phase = "tower"
        elif isinstance(move, BuildTower):
            self._build(move, events)
            if not self.is_over:
                self._end_turn(events)
        else:
            self.obligation[self.player] = None
            self._end_turn(events)
        self._advance(events)
        return events

    def result(self) -> Result:
        self.check_over()
        on_board = self.stones_on_board()
        best = max(self.built)
        leaders = [p for p in range(self.num_players) if self.built[p] == best]
        most = max(on_board[p] for p in leaders)
        winners = tuple(p for p in leaders if on_board[p] == most)
        details = {
            "towers": list(self.built),
            "stones_on_board": on_board,
            "end": self.end_reason,
        }
        return Result(tuple(float(t) for t in self.built), winners, details)

    def returns(self) -> np.ndarray:
        """Towers built, plus stones on the board as a fraction below one tower: more towers always
        rank higher, and among equal towers more stones do, exactly as the winners are chosen."""
        self.check_over()
        on_board = self.stones_on_board()
        scale = self.num_players * self.options.stones_per_player + 1
        return np.array([self.built[p] + on_board[p] / scale for p in range(self.num_players)])

    def observation(self, player: int) -> np.ndarray:
        from .observation import observe

        n = self.num_players
        space = ActionSpace.for_table(n, setup_table().by_players[n].hand, self.tileset.max_id)
        return observe(self, self.check_seat(player), space.radius)

    def private_view(self, player: int) -> View:
        """Nothing is private (hands are open): only who is looking."""
        return {"viewer": self.check_seat(player)}

    def public_view(self) -> View:
        """Everything: the game has no hidden information (hands are open)."""
        seating = setup_table()
        return {
            "game": "gimignano",
            "num_players": self.num_players,
            "options": self.options.model_dump(mode="json"),
            "tiles": [[tile_id, q, r, turn] for (q, r), (tile_id, turn) in self.board.tiles.items()],
            "stones": [list(s) for s in self.stones],
            "towers": list(self.towers),
            "hands": [list(h) for h in self.hands],
            "supply": list(self.supply),
            "towers_built": list(self.built),
            "player": self.player,
            "phase": self._phase,
            "obligation": [None if o is None else list(o) for o in self.obligation],
            "quiet_turns": self.quiet_turns,
            "turn_acted": self.turn_acted,
            "turn": self.turn,
            "end_reason": self.end_reason,
            # What a view needs to draw the board with no other file: the guilds of every tile id
            # (moves and ``tiles`` name tiles by id only) and the guilds' names and colours.
            "guilds": [{"key": g.key, "name": g.name, "color": g.color} for g in self.tileset.guilds],
            "tile_guilds": {str(t.id): [self.tileset.guild_key(g) for g in t.guilds] for t in self.tileset.tiles},
            "player_colors": [{"color": c, "name": name} for c, name in
                              zip(seating.player_colors, seating.player_color_names, strict=True)][: self.num_players],
        }

    @classmethod
    def from_view(cls, view: View, tileset: TileSet) -> GimignanoState:
        """The exact state a view shows (the inverse of ``view``)."""
        state = cls(int(view["num_players"]), GimignanoOptions.model_validate(view["options"]), tileset)
        for tile_id, q, r, turn in view["tiles"]:
            state.board.lay(tile_id, (q, r), turn)
        state.stones = [list(s) for s in view["stones"]]
        state.towers = list(view["towers"])
        state.hands = [list(h) for h in view["hands"]]
        state.supply = list(view["supply"])
        state.built = list(view["towers_built"])
        state.player = view["player"]
        state._phase = view["phase"]
        state.obligation = [None if o is None else list(o) for o in view["obligation"]]
        state.quiet_turns = view["quiet_turns"]
        state.turn_acted = view["turn_acted"]
        state.turn = view["turn"]
        state.end_reason = view["end_reason"]
        state.own = [state._stone_plots(p) for p in range(state.num_players)]
        return state

    def begin(self) -> list[Event]:
        """Start play after set-up: skip to the first decision (there always is one)."""
        events: list[Event] = []
        self._advance(events)
        return events

    # --- queries used by rules, agents and renderers -------------------------------------------
    def plot_name(self, plot_id: int) -> str:
        return str(self.board.plot_ref(plot_id))

    def stones_on_board(self) -> list[int]:
        counts = [0] * self.num_players
        for owners in self.stones:
            for owner in owners:
                counts[owner] += 1
        return counts

    def own_plots(self, player: int) -> set[int]:
        """Plots holding at least one of ``player``'s stones (such plots never hold a tower)."""
        return set(self.own[player])

    def _stone_plots(self, player: int) -> set[int]:
        return {pid for pid, owners in enumerate(self.stones) if player in owners}

    def quartets(self, player: int) -> list[Quartet]:
        """The player's quartets (sorted plot ids each), in no particular order."""
        cached = self._quartets[player]
        if cached is None:
            cached = find_quartets(self.own[player], self.board.adjacency, self.board.plot_guild)
            self._quartets[player] = cached
        return list(cached)

    def could_still_build(self, player: int) -> bool:
        """Is there a quartet ``player`` could complete with the stones in their supply?"""
        if self.quartets(player):  # complete already (and usually cached)
            return True
        witness = self._completable[player]
        if witness is not None and self._completes(player, witness):
            return True  # the quartet found last time still fits: no need to search again
        supply = self.supply[player]
        if supply <= 0:
            return False  # with no stone to place, only complete quartets count, and there are none
        hopeless = self._hopeless[player]
        if hopeless is not None and hopeless[0] == len(self.towers) and supply <= hopeless[1]:
            # Nothing found last time, on these plots, with at least this supply, and no stone of
            # theirs came back since (``_build`` forgets the answer then). Plots only filled up or
            # got towers, and a stone placed costs one of the supply for at most one stone less
            # needed: no quartet can have come within reach.
            return False
        found = first_completable(self.completion_costs(player), supply, self.board.adjacency, self.board.plot_guild)
        self._completable[player] = found
        self._hopeless[player] = None if found is not None else (len(self.towers), supply)
        return found is not None

    def completion_costs(self, player: int) -> dict[int, int]:
        """Stones ``player`` still needs on each plot open to them: 0 with their stone on it, 1 with
        room for one (plots with a tower or two other stones are left out)."""
        return {
            pid: 0 if player in owners else 1
            for pid, (owners, tower) in enumerate(zip(self.stones, self.towers, strict=True))
            if tower == NO_TOWER and (player in owners or len(owners) < STONES_PER_PLOT)
        }

    def _completes(self, player: int, quartet: Quartet) -> bool:
        """Could ``player`` still fill ``quartet`` (no tower on it, room or their stone on each plot,
        enough stones for the plots without theirs)?"""
        needed = 0
        for pid in quartet:
            owners = self.stones[pid]
            if self.towers[pid] != NO_TOWER:
                return False
            if player not in owners:
                if len(owners) >= STONES_PER_PLOT:
                    return False
                needed += 1
        return needed <= self.supply[player]

    def board_is_final(self) -> bool:
        """No tile left in any hand can be laid now; laying tiles is the only way the board (and so
        the set of legal spots) changes, so then no tile can ever be laid again."""
        if not self._board_final:
            # The answer changes only when a tile is laid (from a hand onto the board).
            checked_at = (len(self.board.tiles), sum(map(len, self.hands)))
            if checked_at == self._board_checked_at:
                return False
            self._board_checked_at = checked_at
            self._board_final = not any(
                next(self.board.placements(tile_id), None) is not None
                for hand in self.hands
                for tile_id in dict.fromkeys(hand)
            )
        return self._board_final

    # --- legal moves ---------------------------------------------------------------------------
    def _moves_for_phase(self) -> list[GimignanoMove]:
        if self._phase == "stone":
            return self._stone_moves()
        if self._phase == "tile":
            return self._tile_moves()
        if self._phase == "tower":
            return self._tower_moves()
        return []

    def _stone_moves(self) -> list[GimignanoMove]:
        if self.supply[self.player] <= 0:
            return []
        return list(map(self.board.stone_moves.__getitem__, self._open_plots()))

    def _open_plots(self) -> list[int]:
        """Plots with room for a stone, in plot order (kept up to date by the moves)."""
        if self._open is None:
            self._open = [
                pid for pid, (owners, tower) in enumerate(zip(self.stones, self.towers, strict=True))
                if tower == NO_TOWER and len(owners) < STONES_PER_PLOT
            ]
        return self._open

    def _tile_moves(self) -> list[GimignanoMove]:
        hand = self.hands[self.player]
        if not hand:
            return []
        return [
            lay_tile_move(tile_id, h, turn)
            for tile_id in sorted(set(hand))
            for h, turn in self.board.placements(tile_id)
        ]

    def buildable_plots(self) -> tuple[list[int], bool]:
        """Plots the current player may build on, and whether building is forced."""
        quartets = self.quartets(self.player)
        if not quartets:
            return [], False
        group = self.obligation[self.player]
        if group is not None:
            members = set(group)
            forced = [q for q in quartets if members.issuperset(q)]
            if forced:
                return sorted({p for q in forced for p in q}), True
        return sorted({p for q in quartets for p in q}), False

    def _tower_moves(self) -> list[GimignanoMove]:
        plots, forced = self.buildable_plots()
        if not plots:
            return []
        moves: list[GimignanoMove] = [self.board.build_moves[pid] for pid in plots]
        if not forced:
            moves.append(NoTower())
        return moves

    # --- applying moves ------------------------------------------------------------------------
    def _place_stone(self, move: PlaceStone, events: list[Event]) -> None:
        pid = self.board.plot_at(move.hex, move.plot)
        assert pid is not None
        owners = self.stones[pid]
        owners.append(self.player)
        if len(owners) >= STONES_PER_PLOT and self._open is not None:
            self._open.remove(pid)
        self.supply[self.player] -= 1
        mine = self.own[self.player]
        if pid not in mine:  # a new plot for this player: new quartets, if any, pass through it
            mine.add(pid)
            cached = self._quartets[self.player]
            if cached is not None:
                cached.extend(quartets_through(pid, mine, self.board.adjacency, self.board.plot_guild))
        self.turn_acted = True
        events.append(Event("stone", {"player": self.player, "plot": str(move)[2:]}))

    def _lay_tile(self, move: LayTile, events: list[Event]) -> None:
        self.hands[self.player].remove(move.tile)
        new_plots = self.board.lay(move.tile, move.hex, move.turn)
        self.stones.extend([] for _ in range(PLOTS_PER_TILE))
        self.towers.extend([NO_TOWER] * PLOTS_PER_TILE)
        if self._open is not None:
            self._open.extend(new_plots)
        self.turn_acted = True
        events.append(
            Event("tile", {"player": self.player, "tile": move.tile, "hex": list(move.hex), "turn": move.turn})
        )

    def _build(self, move: BuildTower, events: list[Event]) -> None:
        player = self.player
        pid = self.board.plot_at(move.hex, move.plot)
        assert pid is not None
        mine_before = self.own_plots(player)
        group = group_of(pid, mine_before, self.board.adjacency)
        returned = self.stones[pid]
        for owner in returned:
            self.supply[owner] += 1
        for owner in set(returned):  # their quartets through this plot are gone
            self.own[owner].discard(pid)
            self._hopeless[owner] = None  # a stone back in the supply may bring a quartet within reach
            cached = self._quartets[owner]
            if cached is not None:
                self._quartets[owner] = [q for q in cached if pid not in q]
        if self._open is not None and pid in self._open:
            self._open.remove(pid)
        self.stones[pid] = []
        self.towers[pid] = player
        self.built[player] += 1
        self.turn_acted = True
        events.append(Event("tower", {"player": player, "plot": str(move)[2:], "returned": list(returned)}))
        if self.built[player] >= self.options.towers_per_player:
            self._finish(f"player {player + 1} built their last tower", events)
            return
        # The forced build: the group that held the quartet, less the new tower.
        rest = group - {pid}
        if find_quartets(rest, self.board.adjacency, self.board.plot_guild):
            self.obligation[player] = sorted(rest)
            events.append(Event("must_build", {"player": player, "group": [self.plot_name(p) for p in sorted(rest)]}))
        else:
            self.obligation[player] = None

    def _end_turn(self, events: list[Event]) -> None:
        self.quiet_turns = 0 if self.turn_acted else self.quiet_turns + 1
        self.turn_acted = False
        if self.quiet_turns >= self.num_players:
            self._finish("a whole round passed in which nobody could or would play anything", events)
            return
        if self.board_is_final() and not any(self.could_still_build(p) for p in range(self.num_players)):
            self._finish("all tiles are laid and nobody can complete a quartet any more", events)
            return
        self.player = (self.player + 1) % self.num_players
        self.turn += 1
        self._phase = "stone"

    def _finish(self, reason: str, events: list[Event]) -> None:
        self._phase = "over"
        self.end_reason = reason
        events.append(Event("end", {"reason": reason}))

    def _advance(self, events: list[Event]) -> None:
        """Move past phases with no legal move, saying so, until someone must decide."""
        self._legal = None
        self._legal_set = None
        while not self.is_over:
            moves = self._moves_for_phase()
            if moves:
                self._legal = moves
                return
            events.append(Event("skip", {"player": self.player, "phase": self._phase, "reason": self._skip_reason()}))
            if self._phase == "stone":
                self._phase = "tile"
            elif self._phase == "tile":
                self._phase = "tower"
            else:
                self.obligation[self.player] = None
                self._end_turn(events)

    def _skip_reason(self) -> str:
        if self._phase == "stone":
            if self.supply[self.player] <= 0:
                return "no stones left"
            return "no plot has room for a stone"
        if self._phase == "tile":
            return "no tiles left" if not self.hands[self.player] else "no tile fits anywhere"
        return "no quartet"

    # --- explaining refusals -------------------------------------------------------------------
    def refusal(self, move: GimignanoMove) -> str | None:  # type: ignore[override]
        if self.is_over:
            return f"{move} is not allowed: the game is over ({self.end_reason})"
        if not isinstance(move, PlaceStone | LayTile | BuildTower | NoTower):
            return f"{move!r} is not a San Gimignano move; {NOTATION_HELP}"
        if self._legal_set is None:
            self._legal_set = frozenset(self.legal_moves())
        return None if move in self._legal_set else self._why_illegal(move)

    def _why_illegal(self, move: GimignanoMove) -> str:
        who = f"player {self.player + 1}"
        expected = {
            "stone": "place a stone: 'S q,r/x'",
            "tile": "lay a tile: 'T<id> @ q,r r<turn>'",
            "tower": "build a tower 'B q,r/x'" + ("" if self._forced_now() else " or say 'done'"),
        }[self._phase]
        wanted = {"stone": PlaceStone, "tile": LayTile, "tower": (BuildTower, NoTower)}[self._phase]
        if not isinstance(move, wanted):
            return f"{move}: it is {who}'s {self._phase} phase; {expected}"
        if isinstance(move, NoTower):
            return (
                f"{move}: {who} must build this turn: the group of their last tower still holds a quartet; "
                f"build on one of {self._listing()}"
            )
        if isinstance(move, PlaceStone | BuildTower):
            if not 0 <= move.plot < PLOTS_PER_TILE:
                return f"{move}: plot letters are {', '.join(PLOT_LETTERS)}"
            pid = self.board.plot_id(PlotRef(move.hex, move.plot))
            if pid is None:
                return f"{move}: no tile lies on hex {move.hex[0]},{move.hex[1]}"
            if self.towers[pid] != NO_TOWER:
                return f"{move}: plot {self.plot_name(pid)} holds a tower and is out of play"
            if isinstance(move, PlaceStone):
                return f"{move}: plot {self.plot_name(pid)} already holds {STONES_PER_PLOT} stones"
            if self._forced_now():
                return f"{move}: {who} must build in the group of their last tower: one of {self._listing()}"
            return (
                f"{move}: plot {self.plot_name(pid)} is not part of a quartet of {who}; "
                f"build on one of {self._listing() or '(none)'}"
            )
        assert isinstance(move, LayTile)
        if move.tile not in self.hands[self.player]:
            hand = ", ".join(f"T{t}" for t in sorted(self.hands[self.player]))
            return f"{move}: tile T{move.tile} is not in {who}'s hand ({hand})"
        problem = self.board.placement_problem(move.tile, move.hex, move.turn)
        return f"{move}: {problem}; {self._where_it_fits(move.tile)}"

    def _where_it_fits(self, tile_id: int) -> str:
        """``T2 fits at 1,-1 r0 r3; 0,2 r1``: every spot and turn the rules allow the tile."""
        by_hex: dict[tuple[int, int], list[int]] = {}
        for h, turn in self.board.placements(tile_id):
            by_hex.setdefault(h, []).append(turn)
        if not by_hex:
            return f"T{tile_id} fits nowhere now"
        spots = "; ".join(f"{q},{r} " + " ".join(f"r{t}" for t in turns) for (q, r), turns in by_hex.items())
        return f"T{tile_id} fits at {spots}"

    def _forced_now(self) -> bool:
        return self._phase == "tower" and self.buildable_plots()[1]

    def _listing(self) -> str:
        return ", ".join(str(m) for m in self.legal_moves() if isinstance(m, BuildTower))

