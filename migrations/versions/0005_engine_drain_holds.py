"""engine: a drain's pause stored with the table (tables.drain_hold)

The status a drain shows (PAUSING, then PAUSED) is now stored like any other, so ListTables'
status filter matches what ops see, and ``drain_hold`` says which drain holds the table:
"drain" (AdminService.Drain: the table stays paused after a restart, until ops resume it) or
"shutdown" (SIGTERM: the next start deals again). Null for ops' own pauses and every other
status. Generated with `alembic revision --autogenerate` (the CHECK constraint added by hand)
and reviewed.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 18:31:36.513903+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("drain_hold", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True)
        )
        batch_op.create_check_constraint(
            op.f("ck_tables_drain_hold"),
            "drain_hold IS NULL OR (drain_hold IN ('drain', 'shutdown')"
            " AND status IN ('pausing', 'paused'))",
        )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_tables_drain_hold"), type_="check")
        batch_op.drop_column("drain_hold")
