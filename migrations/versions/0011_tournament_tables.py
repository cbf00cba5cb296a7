"""engine: tournament tables (tables.tournament_id / tournament, busted and moved sessions)

A tournament table is a table with ``tournament_id`` set: it has no buy-in range (the buy-in
CHECK allows 0..0 for it), and ``tournament`` (JSON) keeps its own state so a restart goes on
where it was (its name and number, the level and stakes of the next hand, the hand-for-hand
hold, the director's last tournament info, the places told). A tournament seat session may
close "busted" (with the hand and the chips at its start) or "moved"; a MovePlayer is recorded
in seat_session_removals with its request_id (unique: its idempotency key) and destination.
Written by hand after `alembic revision --autogenerate` and reviewed; the merger chains it
after the newest revision.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 10:55:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CASH_BUY_IN = "min_buy_in > 0 AND max_buy_in >= min_buy_in"
_BUY_IN = f"({_CASH_BUY_IN}) OR (tournament_id IS NOT NULL AND min_buy_in = 0 AND max_buy_in = 0)"
_REASONS = "'left', 'removed', 'table_closed'"


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("tournament_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.add_column(sa.Column("tournament", sa.JSON(none_as_null=True), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_tables_tournament_id"), ["tournament_id"], unique=False
        )
        batch_op.drop_constraint(op.f("ck_tables_buy_in"), type_="check")
        batch_op.create_check_constraint(op.f("ck_tables_buy_in"), _BUY_IN)

    with op.batch_alter_table("seat_sessions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("busted_hand_number", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("busted_start_stack", sa.BigInteger(), nullable=True))
        batch_op.drop_constraint(op.f("ck_seat_sessions_close_reason"), type_="check")
        batch_op.create_check_constraint(
            op.f("ck_seat_sessions_close_reason"),
            f"close_reason IS NULL OR close_reason IN ({_REASONS}, 'busted', 'moved')",
        )

    with op.batch_alter_table("seat_session_removals", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("request_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch_op.add_column(sa.Column("destination", sa.JSON(none_as_null=True), nullable=True))
        batch_op.create_unique_constraint(
            batch_op.f("uq_seat_session_removals_request_id"), ["request_id"]
        )


def downgrade() -> None:
    """Downgrade schema (tournament tables and sessions must be gone: the old CHECKs refuse
    them)."""
    with op.batch_alter_table("seat_session_removals", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_seat_session_removals_request_id"), type_="unique")
        batch_op.drop_column("destination")
        batch_op.drop_column("request_id")

    with op.batch_alter_table("seat_sessions", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_seat_sessions_close_reason"), type_="check")
        batch_op.create_check_constraint(
            op.f("ck_seat_sessions_close_reason"),
            f"close_reason IS NULL OR close_reason IN ({_REASONS})",
        )
        batch_op.drop_column("busted_start_stack")
        batch_op.drop_column("busted_hand_number")

    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_tables_buy_in"), type_="check")
        batch_op.create_check_constraint(op.f("ck_tables_buy_in"), _CASH_BUY_IN)
        batch_op.drop_index(batch_op.f("ix_tables_tournament_id"))
        batch_op.drop_column("tournament")
        batch_op.drop_column("tournament_id")
