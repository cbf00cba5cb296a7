"""The double-entry ledger: accounts, transactions and their entries.

Every movement of money is one :class:`LedgerTransactionRow` (unique
``idempotency_key``) with two or more :class:`LedgerEntryRow` whose amounts
sum to zero. An account's ``balance`` is the sum of its entries, kept on the
account row so that reading a wallet is one row; it is only ever changed by
:func:`lobby_api.wallet.ledger.post`, in the same transaction as the entries,
with the account locked. Only the issuer account (``house:play-money``) may go
below zero (a CHECK constraint enforces it for every other account).

Account ids say what they are:

- ``wallet:{player_id}``: a player's money;
- ``escrow:tables/{table_id}``: the chips at one table (buy-ins and top-ups in,
  settlements and rake out);
- ``hold:tickets/{ticket_id}``: a waiting matchmaking ticket's buy-in;
- ``house:rake``: the house's rake;
- ``house:play-money``: the issuer of play money (the only account allowed below zero).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from engine_server.store import metadata as _metadata  # noqa: F401  (naming convention first)
from engine_server.store.types import UTCDateTime

__all__ = [
    "ACCOUNT_ID_LENGTH",
    "AccountKind",
    "LedgerAccountRow",
    "LedgerEntryRow",
    "LedgerTransactionRow",
]

ACCOUNT_ID_LENGTH = 96


class AccountKind(StrEnum):
    WALLET = "wallet"
    ESCROW = "escrow"
    HOLD = "hold"
    HOUSE = "house"
    #: Issues play money: the only kind whose balance may go below zero.
    ISSUER = "issuer"


def _one_of(column: str, enum: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(m.value) for m in enum)})"


class LedgerAccountRow(SQLModel, table=True):
    """An account of the ledger and its balance (the sum of its entries)."""

    __tablename__ = "ledger_accounts"
    __table_args__ = (
        sa.CheckConstraint(_one_of("kind", AccountKind), name="kind"),
        sa.CheckConstraint("balance >= 0 OR kind = 'issuer'", name="balance"),
    )

    id: str = Field(primary_key=True, max_length=ACCOUNT_ID_LENGTH)
    kind: str = Field(max_length=16)
    #: The player a wallet belongs to (None for the other kinds).
    player_id: str | None = Field(default=None, max_length=64, index=True)
    balance: int = Field(default=0, sa_type=sa.BigInteger)
    created_at: datetime = Field(sa_type=UTCDateTime)


class LedgerTransactionRow(SQLModel, table=True):
    """One movement of money: its entries sum to zero; its key makes it happen once."""

    __tablename__ = "ledger_transactions"

    id: str = Field(primary_key=True, max_length=64)
    #: e.g. ``buyin:{seat_session_id}``, ``settle:{seat_session_id}``, ``rake:{hand_id}``.
    idempotency_key: str = Field(max_length=128, unique=True)
    kind: str = Field(max_length=32)
    created_at: datetime = Field(sa_type=UTCDateTime)


class LedgerEntryRow(SQLModel, table=True):
    """One side of a transaction: ``amount`` (signed) on one account."""

    __tablename__ = "ledger_entries"
    __table_args__ = (
        sa.CheckConstraint("amount <> 0", name="amount"),
        # A wallet's history, newest first (keyset on id).
        sa.Index("ix_ledger_entries_account_id_id", "account_id", "id"),
    )

    id: int | None = Field(
        default=None,
        sa_column=sa.Column(
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
    )
    transaction_id: str = Field(foreign_key="ledger_transactions.id", max_length=64, index=True)
    account_id: str = Field(foreign_key="ledger_accounts.id", max_length=ACCOUNT_ID_LENGTH)
    amount: int = Field(sa_type=sa.BigInteger)
    #: The account's balance right after this entry.
    balance_after: int = Field(sa_type=sa.BigInteger)
    kind: str = Field(max_length=32)
    #: What the movement is about (a table, a seat session, a ticket, a hand).
    reference: str | None = Field(default=None, max_length=128)
    created_at: datetime = Field(sa_type=UTCDateTime)
