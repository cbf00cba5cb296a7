"""Response bodies of the wallet endpoint."""

from __future__ import annotations

from datetime import datetime

import msgspec

__all__ = ["EntryView", "WalletView"]


class EntryView(msgspec.Struct):
    id: int
    transaction_id: str
    #: Signed: positive is money in, negative money out.
    amount: int
    balance_after: int
    kind: str
    reference: str | None
    created_at: datetime


class WalletView(msgspec.Struct):
    account: str
    #: The sum of every entry of the account.
    balance: int
    #: Newest first.
    entries: list[EntryView]
    #: Pass as ``page_token`` for older entries; null on the last page.
    next_page_token: str | None = None
