"""Seed pairs: the dealer seeds a table deals with, committed ahead and revealed after.

A table has one current pair (dealing) and one next pair (committed, its commitment shown)
at every moment (a partial unique index keeps it so). :meth:`SeedPairs.rotate_seed` retires
and reveals the current pair between hands, makes the next one current and commits to a new
next pair; closing a table reveals its current pair (:func:`reveal_current`). Nonces are taken
by :meth:`engine_server.store.hands.Hands.start_hand`.

A client seed is checked by :func:`engine_server.game.fairness.validate_client_seed`, the one
definition of what a client seed may be; :func:`check_client_seed` only words its refusal as
the store's:

>>> check_client_seed("alice")
'alice'
>>> check_client_seed("not a seed!")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine_server.store.errors.StoreError: client_seed: client seed may only contain [A-Za-z0-9_-]; ...
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import NamedTuple

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.game.fairness import (
    FairnessError,
    commitment,
    new_dealer_seed,
    validate_client_seed,
)
from engine_server.ids import new_id
from engine_server.store.base import Transactions, for_update, running_hand, table_row
from engine_server.store.errors import (
    HandInProgress,
    StoreError,
    TableClosed,
    TableState,
)
from engine_server.store.models import SeedPairRow, SeedPairState, TableRow, TableStatus

__all__ = ["SeedPairs", "SeedRotation", "check_client_seed", "live_pair", "reveal_current"]


class SeedRotation(NamedTuple):
    """What :meth:`SeedPairs.rotate_seed` did: the revealed, new current and new next pairs."""

    revealed: SeedPairRow
    current: SeedPairRow
    next: SeedPairRow


def check_client_seed(value: str) -> str:
    """``value`` if it is a client seed, else ``StoreError`` naming ``client_seed``."""
    try:
        return validate_client_seed(value)
    except FairnessError as error:
        raise StoreError(f"client_seed: {error}") from None


async def live_pair(
    session: AsyncSession, table_id: str, state: SeedPairState, *, lock: bool = False
) -> SeedPairRow:
    """The table's current or next pair (``lock``: locked, after the table's row)."""
    query = select(SeedPairRow).where(
        SeedPairRow.table_id == table_id, SeedPairRow.state == state.value
    )
    if lock:
        query = for_update(query)
    return (await session.exec(query)).one()


async def reveal_current(session: AsyncSession, table: TableRow, now: datetime) -> SeedPairRow:
    """Reveal the table's dealing pair (kept as it is when revealed already)."""
    pair = await live_pair(session, table.id, SeedPairState.CURRENT, lock=True)
    if pair.revealed_at is None:
        pair.revealed_at = now
        session.add(pair)
    return pair


class SeedPairs:
    """The seed pairs' store. ``new_seed`` makes dealer seeds (docs/fairness.md §1: the OS's CSPRNG;
    replaceable in tests)."""

    def __init__(self, tx: Transactions, *, new_seed: Callable[[], str] = new_dealer_seed) -> None:
        self._tx = tx
        self._new_seed = new_seed

    def new_pair(
        self, *, table_id: str, ordinal: int, client_seed: str, now: datetime
    ) -> SeedPairRow:
        """A next pair with a fresh dealer seed (not added to any session)."""
        seed = self._new_seed()
        return SeedPairRow(
            id=new_id("sp"),
            table_id=table_id,
            ordinal=ordinal,
            state=SeedPairState.NEXT.value,
            dealer_seed=seed,
            commitment=commitment(seed),
            # A next pair's client seed is provisional: rotate_seed sets it when it takes over.
            client_seed=client_seed,
            next_nonce=0,
            created_at=now,
        )

    async def current_seed_pair(self, table_id: str) -> SeedPairRow:
        """The pair dealing the table's hands (its dealer seed is secret unless revealed)."""
        async with self._tx.read() as session:
            await table_row(session, table_id)
            return await live_pair(session, table_id, SeedPairState.CURRENT)

    async def next_seed_pair(self, table_id: str) -> SeedPairRow:
        """The pair the next rotation switches to (show only its commitment)."""
        async with self._tx.read() as session:
            await table_row(session, table_id)
            return await live_pair(session, table_id, SeedPairState.NEXT)

    async def seed_pairs(self, table_id: str) -> list[SeedPairRow]:
        """Every pair of the table, oldest first."""
        async with self._tx.read() as session:
            await table_row(session, table_id)
            query = (
                select(SeedPairRow)
                .where(SeedPairRow.table_id == table_id)
                .order_by(col(SeedPairRow.ordinal))
            )
            return list((await session.exec(query)).all())

    async def rotate_seed(self, table_id: str, client_seed: str | None = None) -> SeedRotation:
        """Between hands: retire and reveal the current pair, make the next one current (with
        ``client_seed``, or the old client seed when None) and commit to a new next pair.

        ``HandInProgress`` while a hand runs; ``TableClosed`` once closed.
        """
        if client_seed is not None:
            check_client_seed(client_seed)
        async with self._tx.write() as session:
            table = await table_row(session, table_id, lock=True)
            if table.status == TableStatus.CLOSED.value:
                raise TableClosed(f"table {table_id} is closed")
            if await running_hand(session, table_id) is not None:
                raise HandInProgress(f"table {table_id} has a hand running: rotate between hands")
            now = self._tx.clock()
            old = await live_pair(session, table_id, SeedPairState.CURRENT, lock=True)
            new = await live_pair(session, table_id, SeedPairState.NEXT, lock=True)
            # One statement at a time: the partial unique index allows one current and one
            # next pair per table at every moment.
            old.state = SeedPairState.RETIRED.value
            old.revealed_at = now
            session.add(old)
            await session.flush()
            new.state = SeedPairState.CURRENT.value
            new.client_seed = client_seed if client_seed is not None else old.client_seed
            session.add(new)
            await session.flush()
            upcoming = self.new_pair(
                table_id=table_id, ordinal=new.ordinal + 1, client_seed=new.client_seed, now=now
            )
            session.add(upcoming)
            table.current_seed_pair_id = new.id
            session.add(table)
            return SeedRotation(revealed=old, current=new, next=upcoming)

    async def reveal_on_close(self, table_id: str) -> SeedPairRow:
        """Reveal the dealing pair of a closing or closed table (idempotent).

        Refused (``TableState``) while the table may still deal with it: revealing the dealer
        seed makes every deck of the pair computable.
        """
        async with self._tx.write() as session:
            table = await table_row(session, table_id, lock=True)
            if table.status not in {TableStatus.CLOSING.value, TableStatus.CLOSED.value}:
                raise TableState(f"table {table_id} is {table.status}: it still deals")
            if await running_hand(session, table_id) is not None:
                raise HandInProgress(f"table {table_id} has a hand running")
            return await reveal_current(session, table, self._tx.clock())
