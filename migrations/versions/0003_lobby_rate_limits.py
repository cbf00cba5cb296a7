"""lobby rate limits: fixed-window counters shared by every replica

The lobby's rate limits (log-ins, money requests) move from each process's memory to the
database, so that replicas share them: one row per limited bucket, its hits and when its
window ends (milliseconds since the epoch). Generated with `alembic revision --autogenerate`
and reviewed.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 15:35:28.340972+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


# revision identifiers, used by Alembic.
revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "rate_limits",
        sa.Column("bucket", sqlmodel.sql.sqltypes.AutoString(length=160), nullable=False),
        sa.Column("hits", sa.BigInteger(), nullable=False),
        sa.Column("window_ends", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("bucket", name=op.f("pk_rate_limits")),
    )
    with op.batch_alter_table("rate_limits", schema=None) as batch_op:
        batch_op.create_index("ix_rate_limits_window_ends", ["window_ends"], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("rate_limits", schema=None) as batch_op:
        batch_op.drop_index("ix_rate_limits_window_ends")

    op.drop_table("rate_limits")
