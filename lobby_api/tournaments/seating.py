"""Where tournament players sit: the draw at the start, balancing, and breaking tables.

Decisions are pure functions of the tournament's state and a key (the tournament's secret
draw key), so a director step that dies half-way and runs again decides the same moves.
Choices that a card room makes at random (the draw, who moves, the free seat he takes) are
drawn with HMAC-SHA256 over that key: fair, and unpredictable without it.

The rules (this module is where they are written down):

- The draw: ``ceil(players / table_size)`` tables, filled as evenly as possible, players and
  seats in a random order.
- Breaking: as soon as the players fit at fewer tables, the shortest table that is between
  hands is broken (the last opened of equal ones); its players go one by one to the shortest
  remaining table, each to a random free seat.
- Balancing: while one table has two players more than another, a random player of the
  fullest table that is between hands moves to the shortest table (the first opened of equal
  ones). A table in the middle of a hand is left alone until it ends.

>>> draw = initial_draw(["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"], 7, key=b"k")
>>> sorted(len(seats) for seats in draw)
[4, 4]
>>> tables = [Table("t1", 0, {1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}), Table("t2", 1, {1: "f", 2: "g", 3: "h"})]
>>> [m.to_table for m in plan_moves(tables, table_size=7, movable={"t1"}, key=b"k")]
['t2']
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Move", "Table", "initial_draw", "plan_moves", "tables_needed"]


@dataclass(frozen=True, slots=True)
class Table:
    """A tournament table as the director sees it between hands: seat -> player."""

    table_id: str
    #: The order tables were opened in (0 first): ties go to the first opened.
    order: int
    seats: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Move:
    """Take ``player_id`` off ``from_table`` (at its hand's end) and seat him at ``to_table``
    in ``to_seat`` with the same chips."""

    player_id: str
    from_table: str
    to_table: str
    to_seat: int
    #: True when his table is broken (the last players of it leave), False when balancing.
    breaking: bool


def _draw(key: bytes, *parts: object) -> bytes:
    return hmac.new(key, "\x1f".join(str(p) for p in parts).encode(), hashlib.sha256).digest()


def _shuffled(items: Sequence[str], key: bytes, *context: object) -> list[str]:
    return sorted(items, key=lambda item: _draw(key, *context, item))


def tables_needed(players: int, table_size: int) -> int:
    """How many tables ``players`` need at ``table_size`` a table (at least one)."""
    return max(1, math.ceil(players / table_size))


def initial_draw(players: Sequence[str], table_size: int, key: bytes) -> list[dict[int, str]]:
    """The start: each table's seats (seat number from 1 -> player), the tables filled as
    evenly as possible (their sizes differ by at most one)."""
    if table_size < 2:
        raise ValueError(f"a table seats at least 2 players, not {table_size}")
    count = tables_needed(len(players), table_size)
    order = _shuffled(list(players), key, "draw")
    tables: list[dict[int, str]] = []
    for index in range(count):
        members = order[index::count]
        seat_order = _shuffled([str(s) for s in range(1, table_size + 1)], key, "seats", index)
        tables.append(
            {int(seat): player for seat, player in zip(seat_order, members, strict=False)}
        )
    return tables


def _free_seat(
    table: str, seats: Mapping[int, str], table_size: int, key: bytes, mover: str
) -> int:
    free = [str(s) for s in range(1, table_size + 1) if s not in seats]
    if not free:
        raise ValueError(f"table {table} has no free seat")
    return int(_shuffled(free, key, "seat", table, mover)[0])


def plan_moves(
    tables: Sequence[Table], table_size: int, movable: Collection[str], key: bytes
) -> list[Move]:
    """The moves to make now, breaking tables first, then balancing.

    Only players of tables in ``movable`` (between hands) are moved; a table in ``movable``
    may also receive players, and so may one in the middle of a hand (they are dealt in from
    its next hand). The result leaves every table within ``table_size``.
    """
    seats = {t.table_id: dict(t.seats) for t in tables}
    order = {t.table_id: t.order for t in tables}
    players = sum(len(s) for s in seats.values())
    moves: list[Move] = []

    def shortest(exclude: Collection[str]) -> str:
        return min((t for t in seats if t not in exclude), key=lambda t: (len(seats[t]), order[t]))

    def move(player: str, source: str, target: str, breaking: bool) -> None:
        seat = next(s for s, p in seats[source].items() if p == player)
        to_seat = _free_seat(target, seats[target], table_size, key, player)
        del seats[source][seat]
        seats[target][to_seat] = player
        moves.append(Move(player, source, target, to_seat, breaking))

    # Breaking: the shortest movable tables, so that the players fit at the tables left.
    excess = len(seats) - tables_needed(players, table_size)
    candidates = sorted(
        (t for t in seats if t in movable), key=lambda t: (len(seats[t]), -order[t])
    )
    broken = candidates[: max(0, excess)]
    for table in broken:
        for player in _shuffled(list(seats[table].values()), key, "break", table):
            move(player, table, shortest(exclude=broken), breaking=True)
    for table in broken:
        del seats[table]

    # Balancing: one player at a time from the fullest movable table to the shortest one;
    # nobody moves twice in one plan.
    moved = {m.player_id for m in moves}
    while len(seats) > 1:
        target = shortest(exclude=())
        floor = len(seats[target])
        givers = [t for t in seats if t in movable and len(seats[t]) > floor + 1]
        if not givers:
            break
        source = max(givers, key=lambda t: (len(seats[t]), -order[t]))
        stayers = [p for p in seats[source].values() if p not in moved]
        if not stayers:
            break
        player = _shuffled(stayers, key, "balance", source, len(moves))[0]
        move(player, source, target, breaking=False)
        moved.add(player)
    return moves
