"""engine: the first answers of AddChips and RemovePlayer, for retries however late

A retry of an AddChips or RemovePlayer already applied gets the answer the first call got,
even after later hands or a restart: chip_additions keep the session's chips in and stack
right after the addition (null in rows written before), and seat_session_removals keep each
RemovePlayer's reason and answer. Generated with `alembic revision --autogenerate` and
reviewed.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 15:57:38.494466+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "seat_session_removals",
        sa.Column("seat_session_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("chips_in", sa.BigInteger(), nullable=False),
        sa.Column("stack", sa.BigInteger(), nullable=False),
        sa.Column("close_reason", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "state IN ('open', 'closing', 'closed')", name=op.f("ck_seat_session_removals_state")
        ),
        sa.CheckConstraint(
            "chips_in >= 0 AND stack >= 0", name=op.f("ck_seat_session_removals_chips")
        ),
        sa.ForeignKeyConstraint(
            ["seat_session_id"],
            ["seat_sessions.id"],
            name=op.f("fk_seat_session_removals_seat_session_id_seat_sessions"),
        ),
        sa.PrimaryKeyConstraint("seat_session_id", name=op.f("pk_seat_session_removals")),
    )
    with op.batch_alter_table("chip_additions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("chips_in_after", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("stack_after", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("chip_additions", schema=None) as batch_op:
        batch_op.drop_column("stack_after")
        batch_op.drop_column("chips_in_after")

    op.drop_table("seat_session_removals")
