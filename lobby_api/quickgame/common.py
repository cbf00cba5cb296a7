"""What the quick game's services share: refusals, row locks, the player's seat, escrow."""

from __future__ import annotations

from typing import Any

import grpc
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from engine_server.game.fairness import FairnessError, validate_client_seed
from lobby_api.engine_client import EngineError
from lobby_api.idempotency import Answer
from lobby_api.problems import DomainError
from lobby_api.settlement.models import LobbySeatRow, SeatState
from lobby_api.wallet.ledger import InsufficientFunds, escrow_account, post

__all__ = [
    "check_client_seed",
    "engine_refusal",
    "escrow",
    "insufficient",
    "locked",
    "my_seat",
    "not_seated",
    "problem",
]


def insufficient(error: InsufficientFunds, field: str) -> DomainError:
    return DomainError(
        409,
        "insufficient_funds",
        f"your wallet holds {error.balance}; this needs {-error.amount}",
        field,
    )


def engine_refusal(error: EngineError, field: str | None = None) -> DomainError:
    """A problem for a definite refusal by the engine (the lobby checked the input before)."""
    reason = error.reason or error.code.name
    code = reason.lower()
    if error.code is grpc.StatusCode.FAILED_PRECONDITION:
        return DomainError(409, code, error.message or reason, field)
    if error.code is grpc.StatusCode.INVALID_ARGUMENT and field:
        # Only a field the player gave is his to fix; anything else is the lobby's setting.
        return DomainError(422, code, error.message or reason, field)
    if error.code is grpc.StatusCode.NOT_FOUND:
        return DomainError(404, code, error.message or reason, field)
    return DomainError(502, "engine_refused", f"the game server refused: {error}")


def problem(error: DomainError) -> Answer:
    """A refusal as the stored answer of a money request."""
    return Answer(error.status, error.document())


def not_seated(table_id: str) -> DomainError:
    return DomainError(404, "not_seated", f"you have no seat at table {table_id}", "table_id")


def check_client_seed(seed: str) -> str:
    try:
        return validate_client_seed(seed)
    except FairnessError as error:
        raise DomainError(422, "invalid_client_seed", str(error), "client_seed") from None


async def locked(session: AsyncSession, model: Any, *where: Any) -> Any:
    """The row, locked for the transaction (``SELECT … FOR UPDATE``), read afresh."""
    query = select(model).where(*where).with_for_update().execution_options(populate_existing=True)
    return (await session.exec(query)).first()


async def my_seat(session: AsyncSession, player_id: str, table_id: str) -> LobbySeatRow | None:
    """The player's latest seat at the table that got (or is getting) a seat."""
    query = (
        select(LobbySeatRow)
        .where(
            col(LobbySeatRow.player_id) == player_id,
            col(LobbySeatRow.table_id) == table_id,
            col(LobbySeatRow.state).in_([SeatState.PENDING.value, SeatState.SEATED.value]),
        )
        .order_by(col(LobbySeatRow.created_at).desc())
        .limit(1)
    )
    return (await session.exec(query)).first()


async def escrow(
    session: AsyncSession,
    key: str,
    source: str,
    table_id: str,
    amount: int,
    field: str,
    kind: str = "buy_in",
) -> None:
    """Move ``amount`` from ``source`` to the table's escrow (once per ``key``); a wallet
    that cannot pay is a 409 naming ``field``."""
    try:
        await post(
            session,
            key,
            kind,
            [(source, -amount), (escrow_account(table_id), amount)],
            reference=f"tables/{table_id}",
        )
    except InsufficientFunds as error:
        raise insufficient(error, field) from None
