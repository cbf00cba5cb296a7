"""Reading a wallet: its balance and its statement, newest first, one page at a time."""

from __future__ import annotations

import base64
import binascii

from sqlmodel import col, select

from lobby_api.db import Database
from lobby_api.problems import DomainError
from lobby_api.wallet.ledger import wallet_account
from lobby_api.wallet.models import LedgerAccountRow, LedgerEntryRow
from lobby_api.wallet.schemas import EntryView, WalletView

__all__ = ["decode_page_token", "encode_page_token", "read_wallet"]


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


async def read_wallet(
    db: Database, player_id: str, page_size: int, page_token: str | None
) -> WalletView:
    account_id = wallet_account(player_id)
    before = decode_page_token(page_token) if page_token else None
    async with db.read() as session:
        account = await session.get(LedgerAccountRow, account_id)
        query = select(LedgerEntryRow).where(LedgerEntryRow.account_id == account_id)
        if before is not None:
            query = query.where(col(LedgerEntryRow.id) < before)
        rows = (
            await session.exec(query.order_by(col(LedgerEntryRow.id).desc()).limit(page_size + 1))
        ).all()
    entries = [
        EntryView(
            id=row.id or 0,
            transaction_id=row.transaction_id,
            amount=row.amount,
            balance_after=row.balance_after,
            kind=row.kind,
            reference=row.reference,
            created_at=row.created_at,
        )
        for row in rows[:page_size]
    ]
    token = encode_page_token(entries[-1].id) if len(rows) > page_size else None
    return WalletView(
        account=account_id,
        balance=account.balance if account is not None else 0,
        entries=entries,
        next_page_token=token,
    )
