"""A tournament's money: entries in, refunds and prizes out, each through the ledger once.

Accounts (:mod:`lobby_api.wallet.ledger`):

- ``escrow:tournaments/{tournament_id}``: the prize pool — every buy-in, until paid out;
- ``house:fees``: the house's entry fees.

Each movement has a ledger key of its own, so a retry, a second replica or a resumed step
moves nothing the second time:

| movement | key | accounts |
|---|---|---|
| registration | ``tentry:{entry_id}`` | wallet −(buy-in + fee), pool +buy-in, fees +fee |
| refund (unregistering, or cancelled before the start) | ``trefund:{entry_id}`` | the reverse |
| prize by place, or share of a cancelled pool | ``tprize:{entry_id}`` | pool −amount, wallet +amount |

A prize is also one :class:`~lobby_api.tournaments.models.TournamentPrizeRow` per entry
(primary key: the entry), inserted in the same transaction: the unique constraint on the
prize transfer per entry. A freeroll (no buy-in, no fee) moves no money at all.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.store.types import utc_now
from lobby_api.db import insert_ignore
from lobby_api.problems import DomainError
from lobby_api.tournaments.models import (
    PrizeKind,
    TournamentEntryRow,
    TournamentPrizeRow,
)
from lobby_api.wallet.ledger import InsufficientFunds, post, wallet_account

__all__ = [
    "FEES",
    "pay_entry",
    "pay_prize",
    "prize_pool_account",
    "refund_entry",
]

#: The house's tournament fees.
FEES = "house:fees"


def prize_pool_account(tournament_id: str) -> str:
    """The prize pool's ledger account.

    >>> prize_pool_account("tn-1")
    'escrow:tournaments/tn-1'
    """
    return f"escrow:tournaments/{tournament_id}"


def _movements(entry: TournamentEntryRow, tournament_id: str, sign: int) -> list[tuple[str, int]]:
    moves = [
        (wallet_account(entry.player_id), -sign * (entry.buy_in + entry.fee)),
        (prize_pool_account(tournament_id), sign * entry.buy_in),
        (FEES, sign * entry.fee),
    ]
    return [(account, amount) for account, amount in moves if amount != 0]


async def pay_entry(session: AsyncSession, entry: TournamentEntryRow) -> None:
    """Buy-in to the prize pool and fee to the house, from the player's wallet; a wallet that
    cannot pay is a 409 ``insufficient_funds`` (and nothing moves)."""
    moves = _movements(entry, entry.tournament_id, +1)
    if len(moves) < 2:
        return
    try:
        await post(
            session,
            f"tentry:{entry.id}",
            "tournament_entry",
            moves,
            reference=f"tournaments/{entry.tournament_id}",
        )
    except InsufficientFunds as error:
        raise DomainError(
            409,
            "insufficient_funds",
            f"your wallet holds {error.balance}; the entry costs {-error.amount} "
            f"(buy-in {entry.buy_in} + fee {entry.fee})",
        ) from None


async def refund_entry(session: AsyncSession, entry: TournamentEntryRow) -> None:
    """Buy-in and fee back to the wallet (once per entry, whoever asks)."""
    moves = _movements(entry, entry.tournament_id, -1)
    if len(moves) < 2:
        return
    await post(
        session,
        f"trefund:{entry.id}",
        "tournament_refund",
        moves,
        reference=f"tournaments/{entry.tournament_id}",
    )


async def pay_prize(
    session: AsyncSession,
    entry: TournamentEntryRow,
    amount: int,
    kind: PrizeKind,
    place: int | None,
    now: datetime | None = None,
) -> bool:
    """Credit ``amount`` from the prize pool to the entry's wallet, once per entry ever.

    True when paid now; False when the entry had been paid before (nothing moved). Also
    records the amount on the entry.
    """
    now = now or utc_now()
    inserted = await session.exec(
        insert_ignore(session, TournamentPrizeRow.__table__).values(  # type: ignore[attr-defined]
            entry_id=entry.id,
            tournament_id=entry.tournament_id,
            kind=kind.value,
            amount=amount,
            place=place,
            created_at=now,
        )
    )
    if inserted.rowcount != 1:
        return False
    if amount > 0:
        await post(
            session,
            f"tprize:{entry.id}",
            f"tournament_{kind.value}",
            [
                (prize_pool_account(entry.tournament_id), -amount),
                (wallet_account(entry.player_id), amount),
            ],
            reference=f"tournaments/{entry.tournament_id}",
            now=now,
        )
    entry.prize = amount
    session.add(entry)
    return True
