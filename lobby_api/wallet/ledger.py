"""Posting to the double-entry ledger: every movement of money goes through :func:`post`.

A posting is atomic with the caller's transaction and:

- balances: its amounts sum to zero (money is never created or destroyed, only
  moved; play money is moved out of the issuer, ``house:play-money``);
- never overdraws: a posting that would take any account but the issuer below
  zero is refused with :class:`InsufficientFunds` (and a CHECK constraint backs
  this up);
- happens once: its ``key`` is unique; posting an existing key again moves
  nothing and returns the first transaction;
- serialises with every other posting on the same accounts: the accounts are
  locked (``SELECT … FOR UPDATE``) in one stable order (by id), so two postings
  never deadlock on each other and a balance is always read after the last
  committed change. On SQLite the write transaction (``BEGIN IMMEDIATE``)
  already serialises writers.

Each entry records the account's balance right after it (``balance_after``),
so a wallet's statement reads like a bank statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.ids import new_id
from engine_server.store.types import utc_now
from lobby_api.wallet.models import (
    AccountKind,
    LedgerAccountRow,
    LedgerEntryRow,
    LedgerTransactionRow,
)

__all__ = [
    "ISSUER",
    "RAKE",
    "InsufficientFunds",
    "LedgerError",
    "Posting",
    "account_kind",
    "escrow_account",
    "hold_account",
    "post",
    "wallet_account",
]

#: The issuer of play money: the only account whose balance may go below zero.
ISSUER = "house:play-money"
#: The house's rake.
RAKE = "house:rake"


def wallet_account(player_id: str) -> str:
    """>>> wallet_account("p-1")
    'wallet:p-1'
    """
    return f"wallet:{player_id}"


def escrow_account(table_id: str) -> str:
    """>>> escrow_account("qg-1")
    'escrow:tables/qg-1'
    """
    return f"escrow:tables/{table_id}"


def hold_account(ticket_id: str) -> str:
    """>>> hold_account("tk-1")
    'hold:tickets/tk-1'
    """
    return f"hold:tickets/{ticket_id}"


def account_kind(account_id: str) -> AccountKind:
    """The kind an account id names.

    >>> account_kind("wallet:p-1"), account_kind(ISSUER), account_kind(RAKE)
    (<AccountKind.WALLET: 'wallet'>, <AccountKind.ISSUER: 'issuer'>, <AccountKind.HOUSE: 'house'>)
    """
    if account_id == ISSUER:
        return AccountKind.ISSUER
    prefix = account_id.partition(":")[0]
    try:
        return AccountKind(prefix)
    except ValueError:
        raise LedgerError(f"unknown kind of account {account_id!r}") from None


class LedgerError(Exception):
    """A posting that makes no sense (a bug in the caller, not a refusal)."""


class InsufficientFunds(Exception):
    """The posting would take ``account`` below zero: nothing was written."""

    def __init__(self, account: str, balance: int, amount: int) -> None:
        super().__init__(f"{account} holds {balance}, cannot pay {-amount}")
        self.account = account
        self.balance = balance
        self.amount = amount


@dataclass(frozen=True, slots=True)
class Posting:
    transaction: LedgerTransactionRow
    #: False when the key had been posted before (nothing moved this time).
    created: bool
    #: Balances after the posting, by account (only the accounts of a new posting).
    balances: dict[str, int]


_ACCOUNTS: sa.Table = LedgerAccountRow.__table__  # type: ignore[attr-defined]
_TRANSACTIONS: sa.Table = LedgerTransactionRow.__table__  # type: ignore[attr-defined]
_ENTRIES: sa.Table = LedgerEntryRow.__table__  # type: ignore[attr-defined]


@cache
def _statements(dialect: str) -> tuple[Any, ...]:
    """The statements of a posting for ``dialect``, built once with bound parameters (issue
    16: building them, and the ORM's unit of work, cost more than the SQL), as SQLAlchemy Core:
    the accounts inserted if new, locked and read, the key looked up, the transaction inserted
    unless its key was posted before, its entries inserted, the balances set."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    # One statement creates the accounts that are new and locks and reads them all: an
    # existing one is "updated" to its own balance, which locks its row as SELECT … FOR UPDATE
    # does and returns it as a new one is returned (issue 16: a round trip fewer a posting).
    accounts = insert(_ACCOUNTS)
    create_and_lock = accounts.on_conflict_do_update(
        index_elements=[_ACCOUNTS.c.id], set_={"balance": _ACCOUNTS.c.balance}
    ).returning(_ACCOUNTS.c.id, _ACCOUNTS.c.kind, _ACCOUNTS.c.balance)
    add_transaction = insert(_TRANSACTIONS).on_conflict_do_nothing(
        index_elements=[_TRANSACTIONS.c.idempotency_key]
    )
    existing = sa.select(
        _TRANSACTIONS.c.id, _TRANSACTIONS.c.kind, _TRANSACTIONS.c.created_at
    ).where(_TRANSACTIONS.c.idempotency_key == sa.bindparam("key", type_=sa.String))
    balance = (
        sa.update(_ACCOUNTS)
        .where(_ACCOUNTS.c.id == sa.bindparam("account_id", type_=sa.String))
        .values(balance=sa.bindparam("new_balance", type_=sa.BigInteger))
    )
    return create_and_lock, existing, add_transaction, sa.insert(_ENTRIES), balance


def _refresh_loaded(session: AsyncSession, balances: dict[str, int]) -> None:
    """Accounts the caller's session has loaded as objects take their new balances (the
    statements above bypass its identity map)."""
    for account_id, balance in balances.items():
        loaded = session.identity_map.get(identity_key(LedgerAccountRow, account_id))
        if loaded is not None:
            set_committed_value(loaded, "balance", balance)


async def post(
    session: AsyncSession,
    key: str,
    kind: str,
    movements: Sequence[tuple[str, int]],
    *,
    reference: str | None = None,
    now: datetime | None = None,
) -> Posting:
    """Move money between accounts once (see the module's docstring).

    ``movements`` are ``(account_id, signed amount)``; accounts that do not exist yet
    (a table's escrow, a ticket's hold) are created. Raises :class:`InsufficientFunds`.
    """
    if len(movements) < 2 or len({a for a, _ in movements}) != len(movements):
        raise LedgerError(f"posting {key!r} needs two or more distinct accounts")
    if any(not isinstance(x, int) or isinstance(x, bool) or x == 0 for _, x in movements):
        raise LedgerError(f"posting {key!r} has a zero or non-integer amount")
    if sum(x for _, x in movements) != 0:
        raise LedgerError(f"posting {key!r} does not balance")
    now = now or utc_now()
    dialect = session.bind.dialect.name if session.bind is not None else "sqlite"
    create_and_lock, existing, add_transaction, add_entries, set_balance = _statements(dialect)
    ids = sorted(a for a, _ in movements)
    # The accounts created where new and locked, in one statement, in sorted order: two
    # postings lock what they share in the same order (never a deadlock), and even the waits
    # on a concurrent insert come in that order.
    values = []
    for account_id in ids:
        kind_of = account_kind(account_id)
        owner = account_id.partition(":")[2] if kind_of is AccountKind.WALLET else None
        values.append(
            {
                "id": account_id,
                "kind": kind_of.value,
                "player_id": owner,
                "balance": 0,
                "created_at": now,
            }
        )
    accounts = {
        row.id: (row.kind, int(row.balance))
        for row in (await session.exec(create_and_lock, params=values)).all()
    }
    balances: dict[str, int] = {}
    short: InsufficientFunds | None = None
    for account_id, amount in movements:
        account_kind_value, balance = accounts[account_id]
        if balance + amount < 0 and account_kind_value != AccountKind.ISSUER.value:
            short = InsufficientFunds(account_id, balance, amount)
            break
        balances[account_id] = balance + amount
    # The key is claimed only once the accounts are locked: a concurrent posting of the same
    # key (which touches the same accounts) has committed or not started by now. Claimed by
    # the insertion itself, not by a look first (issue 16: one statement in every posting);
    # looked up only when it is taken, or when the accounts cannot pay (a posting made before
    # is answered, never refused).
    transaction_id = new_id("tx", size=10)
    claimed = False
    if short is None:
        inserted = await session.exec(
            add_transaction,
            params={"id": transaction_id, "idempotency_key": key, "kind": kind, "created_at": now},
        )
        claimed = inserted.rowcount == 1
    if not claimed:
        first = (await session.exec(existing, params={"key": key})).first()
        if first is not None:
            transaction = LedgerTransactionRow(
                id=first.id, idempotency_key=key, kind=first.kind, created_at=first.created_at
            )
            return Posting(transaction, False, {})
        if short is not None:
            raise short
        raise LedgerError(f"posting {key!r} was neither written nor found")
    transaction = LedgerTransactionRow(
        id=transaction_id, idempotency_key=key, kind=kind, created_at=now
    )
    await session.exec(
        add_entries,
        params=[
            {
                "transaction_id": transaction.id,
                "account_id": account_id,
                "amount": amount,
                "balance_after": balances[account_id],
                "kind": kind,
                "reference": reference,
                "created_at": now,
            }
            for account_id, amount in movements
        ],
    )
    await session.exec(
        set_balance,
        params=[{"account_id": a, "new_balance": b} for a, b in balances.items()],
    )
    _refresh_loaded(session, balances)
    return Posting(transaction, True, balances)
