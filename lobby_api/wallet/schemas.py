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
    #: What the movement is about, as posted: ``tables/{id}``, ``seat_sessions/{id}``,
    #: ``tickets/{id}``, ``tournaments/{id}``, ``players/{id}`` …
    reference: str | None
    created_at: datetime
    #: The table the entry is about, where it has one: the table of a buy-in or top-up, of
    #: the seat a cash-out closes, of the seat a ticket's hold paid for (once it found one).
    table_id: str | None = None


class WalletView(msgspec.Struct):
    account: str
    #: The sum of every entry of the account.
    balance: int
    #: Newest first.
    entries: list[EntryView]
    #: Pass as ``page_token`` for older entries; null on the last page.
    next_page_token: str | None = None
