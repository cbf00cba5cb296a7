"""Every table model of the lobby (imported by ``migrations/env.py`` for autogenerate).

>>> from sqlmodel import SQLModel
>>> {"players", "ledger_entries", "quick_tables", "rate_limits", "login_failures"} <= set(
...     SQLModel.metadata.tables
... )
True
"""

from __future__ import annotations

from lobby_api.accounts.models import PlayerRow
from lobby_api.catalog.models import CityRow, StakeLevelRow
from lobby_api.idempotency.models import IdempotencyRow
from lobby_api.quickgame.models import QuickTableRow, TicketRow, TopUpRow
from lobby_api.ratelimit.models import LoginFailureRow, RateLimitRow
from lobby_api.sessions.models import RefreshTokenRow
from lobby_api.settlement.models import LobbySeatRow
from lobby_api.tournaments.models import (
    TournamentEntryRow,
    TournamentLeaseRow,
    TournamentPrizeRow,
    TournamentRow,
    TournamentTableRow,
    TournamentTemplateRow,
)
from lobby_api.wallet.models import LedgerAccountRow, LedgerEntryRow, LedgerTransactionRow

__all__ = [
    "CityRow",
    "IdempotencyRow",
    "LedgerAccountRow",
    "LedgerEntryRow",
    "LedgerTransactionRow",
    "LobbySeatRow",
    "LoginFailureRow",
    "PlayerRow",
    "QuickTableRow",
    "RateLimitRow",
    "RefreshTokenRow",
    "StakeLevelRow",
    "TicketRow",
    "TopUpRow",
    "TournamentEntryRow",
    "TournamentLeaseRow",
    "TournamentPrizeRow",
    "TournamentRow",
    "TournamentTableRow",
    "TournamentTemplateRow",
]
