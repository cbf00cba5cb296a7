"""What the store's tests share: a table with the house stakes, seating, starting and
finishing hands, counting rows."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from engine_server.store.database import create_engine_for
from engine_server.store.hands import HandSeat
from engine_server.store.models import HandRow, SeatSessionRow, TableRow
from engine_server.store.repository import EngineStore

STAKES: dict[str, Any] = {
    "profile": "house",
    "ante": 1,
    "bring_in": 2,
    "small_bet": 5,
    "big_bet": 10,
    "min_buy_in": 100,
    "max_buy_in": 500,
}


async def new_table(store: EngineStore, request_id: str = "req-1", **changes: Any) -> TableRow:
    arguments: dict[str, Any] = {**STAKES, "request_id": request_id, "client_seed": "alice"}
    arguments.update(changes)
    return await store.tables.create_table(**arguments)


async def seat(
    store: EngineStore, table_id: str, n: int, buy_in: int = 200, player: str | None = None
) -> SeatSessionRow:
    """Seat player ``p{n}`` at seat ``n`` with session ``{table_id}-s{n}``."""
    return await store.sessions.seat_player(
        table_id,
        f"{table_id}-s{n}",
        player_id=player or f"p{n}",
        display_name=f"Player {n}",
        seat=n,
        buy_in=buy_in,
    )


async def start(
    store: EngineStore, table: TableRow, hand_number: int, seats: list[SeatSessionRow]
) -> HandRow:
    pair = await store.seeds.current_seed_pair(table.id)
    return await store.hands.start_hand(
        table.id,
        hand_number=hand_number,
        seed_pair_id=pair.id,
        button_seat=seats[0].seat,
        players=[HandSeat(s.seat, s.id, s.player_id, s.stack) for s in seats],
        profile="house",
        settings={"stakes": {"ante": 1}},
    )


def finish_kwargs(final_stacks: dict[str, int], rake: int = 0, **changes: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "cards": [{"seat": 1, "card": "Ah", "deck_index": 0, "up": False, "street": "third"}],
        "actions": [{"seat": 1, "action": "fold"}],
        "pots": [{"amount": 10, "winners": [2]}],
        "rake": rake,
        "result": {"won_by_fold": True},
        "phh": "variant = 'F7S'\n",
        "final_stacks": final_stacks,
    }
    arguments.update(changes)
    return arguments


async def count(store: EngineStore, sql: str) -> int:
    async with store.engine.connect() as connection:
        return int((await connection.execute(sa.text(sql))).scalar_one())


async def sqlite_with_table_t(path: Path, **options: Any) -> AsyncEngine:
    """An engine of a SQLite file at ``path`` (:func:`create_engine_for` with ``options``)
    holding one table ``t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)``."""
    made = create_engine_for(f"sqlite:///{path}", **options)
    async with made.begin() as connection:
        await connection.execute(
            sa.text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)")
        )
    return made


async def write_three_rows(connection: AsyncConnection, made: Callable[[], None]) -> None:
    """Insert ``a``, then ``b`` and ``c`` at once, and mark the last two with a ``!`` through
    an UPDATE … RETURNING in ``t`` (:func:`sqlite_with_table_t`), checking each answer;
    ``made()`` after the first INSERT (to look at the trips it made)."""
    inserted = await connection.execute(sa.text("INSERT INTO t (v) VALUES ('a')"))
    made()
    assert inserted.rowcount == 1 and inserted.lastrowid == 1
    many = await connection.execute(
        sa.text("INSERT INTO t (v) VALUES (:v)"), [{"v": "b"}, {"v": "c"}]
    )
    assert many.rowcount == 2
    returned = await connection.execute(
        sa.text("UPDATE t SET v = v || '!' WHERE id > 1 RETURNING id, v")
    )
    assert sorted(returned.all()) == [(2, "b!"), (3, "c!")]
