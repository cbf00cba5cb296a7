"""Reading a wallet: its balance and its statement, newest first, one page at a time.

The wallet is the bottom of the lobby's money: it knows accounts and entries only. Money
still owed to a player (a closed seat session not yet settled) is collected before his
wallet is read, through the :class:`Owed` the layers above hand it (settlement); the wallet
asks whether anything is owed in the same statement that reads it.

Each entry names the table it is about, where it has one (``table_id``), in the same
statement: an entry whose reference is ``tables/{table_id}`` names it itself; for the other
references that point at something played at a table (a seat session, a ticket), the layer
that writes them hands the wallet a :class:`TableReference` to look the table up by. The
reference itself is left as it was posted: its format is part of the API.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import col

from lobby_api.db import Database
from lobby_api.problems import DomainError
from lobby_api.wallet.ledger import wallet_account
from lobby_api.wallet.models import LedgerAccountRow, LedgerEntryRow
from lobby_api.wallet.schemas import EntryView, WalletView

__all__ = [
    "NOTHING_OWED",
    "TABLE_REFERENCE",
    "Owed",
    "PlayerWallet",
    "TableReference",
    "WalletReader",
    "decode_page_token",
    "encode_page_token",
]


def encode_page_token(entry_id: int) -> str:
    """>>> decode_page_token(encode_page_token(42))
    42
    """
    return base64.urlsafe_b64encode(f"e:{entry_id}".encode()).decode().rstrip("=")


def decode_page_token(token: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raw = ""
    prefix, _, number = raw.partition(":")
    if prefix != "e" or not number.isdigit():
        raise DomainError(
            400, "invalid_page_token", "page_token does not come from this listing", "page_token"
        )
    return int(number)


@dataclass(frozen=True, slots=True)
class Owed:
    """Money owed to players, collected before a wallet is read.

    ``waiting`` is an SQL condition on the bound parameter ``player_id``: true when
    something waits to be credited to him; ``collect(player_id)`` credits it (and whatever
    its owner does after). Settlement supplies it; the wallet knows neither.
    """

    waiting: Any
    collect: Callable[[str], Awaitable[object]]


async def _nothing(player_id: str) -> None:
    return None


#: Nothing is ever owed (a wallet on its own).
NOTHING_OWED = Owed(sa.false(), _nothing)


#: The reference of an entry about a table itself (a buy-in, a top-up): ``tables/{table_id}``.
TABLE_REFERENCE = "tables/"


@dataclass(frozen=True, slots=True)
class TableReference:
    """How to find the table of the entries whose reference is ``{prefix}{key}``: the
    ``table_id`` column of the row whose ``key`` column holds the key (a primary key, so that
    each entry's look-up is one index probe). A NULL there means no table (yet, or any more).
    """

    prefix: str
    key: Any
    table_id: Any


def _after(reference: Any, prefix: str) -> Any:
    """The part of ``reference`` after ``prefix`` (SQL: substr is 1-based)."""
    return sa.func.substr(reference, len(prefix) + 1)


def _table_of_entry(tables: Sequence[TableReference]) -> Any:
    """SQL: the id of the table an entry is about, from its reference; NULL where none."""
    reference = col(LedgerEntryRow.reference)

    def starts(prefix: str) -> Any:
        # Not LIKE: "_" in a prefix (seat_sessions/) is one of its wildcards.
        return sa.func.substr(reference, 1, len(prefix)) == prefix

    found = [(starts(TABLE_REFERENCE), _after(reference, TABLE_REFERENCE))]
    found += [
        (
            starts(table.prefix),
            sa.select(table.table_id)
            .where(table.key == _after(reference, table.prefix))
            .scalar_subquery(),
        )
        for table in tables
    ]
    return sa.case(*found, else_=sa.null()).label("table_id")


def _build_statement(waiting: Any, tables: Sequence[TableReference], *, after_cursor: bool) -> Any:
    """The wallet's one statement (first page, or the page after a cursor), with bound
    parameters ``account_id``, ``player_id``, ``limit`` and ``before``: built once, so each
    read only binds values (and SQLAlchemy's compiled cache finds it)."""
    joined = col(LedgerEntryRow.account_id) == col(LedgerAccountRow.id)
    if after_cursor:
        joined = sa.and_(joined, col(LedgerEntryRow.id) < sa.bindparam("before", type_=sa.Integer))
    # Whether money waits to be credited to him (then collect it, and read again).
    unsettled = waiting.label("unsettled")
    return (
        sa.select(
            col(LedgerAccountRow.balance),
            col(LedgerEntryRow.id),
            col(LedgerEntryRow.transaction_id),
            col(LedgerEntryRow.amount),
            col(LedgerEntryRow.balance_after),
            col(LedgerEntryRow.kind),
            col(LedgerEntryRow.reference),
            col(LedgerEntryRow.created_at),
            # One index probe per entry of the page, at most: the page is at most 100.
            _table_of_entry(tables),
            unsettled,
        )
        .select_from(LedgerAccountRow)
        .outerjoin(LedgerEntryRow, joined)
        .where(col(LedgerAccountRow.id) == sa.bindparam("account_id", type_=sa.String))
        .order_by(col(LedgerEntryRow.id).desc())
        .limit(sa.bindparam("limit", type_=sa.Integer))
    )


class WalletReader:
    """Reads wallets, collecting what is owed first: one per app (its two statements are
    built once). ``tables``: how the references of the layers above lead to a table."""

    def __init__(
        self,
        db: Database,
        owed: Owed = NOTHING_OWED,
        tables: Sequence[TableReference] = (),
    ) -> None:
        self.db = db
        self.owed = owed
        self._first_page = _build_statement(owed.waiting, tables, after_cursor=False)
        self._after_cursor = _build_statement(owed.waiting, tables, after_cursor=True)

    def _statement(
        self, player_id: str, page_size: int, before: int | None
    ) -> tuple[Any, dict[str, Any]]:
        """The statement for this page and its parameter values (one row more than the page
        tells whether another page follows)."""
        parameters: dict[str, Any] = {
            "account_id": wallet_account(player_id),
            "player_id": player_id,
            "limit": page_size + 1,
        }
        if before is None:
            return self._first_page, parameters
        parameters["before"] = before
        return self._after_cursor, parameters

    async def read(self, player_id: str, page_size: int, page_token: str | None) -> WalletView:
        """The wallet, read in one statement; what is owed is collected first (rare)."""
        before = decode_page_token(page_token) if page_token else None
        statement, parameters = self._statement(player_id, page_size, before)
        rows = await self.db.fetch(statement, parameters)
        if not rows or rows[0].unsettled:
            # Touching the wallet settles whatever the player left behind at tables.
            await self.owed.collect(player_id)
            rows = await self.db.fetch(statement, parameters)
        return _view(player_id, rows, page_size)


def _view(player_id: str, rows: list[Any], page_size: int) -> WalletView:
    balance = rows[0].balance if rows else 0
    entries = [
        EntryView(
            id=row.id,
            transaction_id=row.transaction_id,
            amount=row.amount,
            balance_after=row.balance_after,
            kind=row.kind,
            reference=row.reference,
            created_at=_utc(row.created_at),
            table_id=row.table_id,
        )
        for row in rows[:page_size]
        if row.id is not None
    ]
    token = encode_page_token(entries[-1].id) if len(rows) > page_size else None
    return WalletView(
        account=wallet_account(player_id),
        balance=balance,
        entries=entries,
        next_page_token=token,
    )


@dataclass(frozen=True, slots=True)
class PlayerWallet:
    """The signed-in player's wallet: what ``GET /wallet`` reads (one per request)."""

    reader: WalletReader
    player_id: str

    async def read(self, page_size: int, page_token: str | None) -> WalletView:
        return await self.reader.read(self.player_id, page_size, page_token)


def _utc(moment: datetime) -> datetime:
    # Core rows bypass the column type on some drivers: keep timestamps aware UTC.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
