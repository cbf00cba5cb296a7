"""engine: every action of a hand stored as it is taken (hand_actions)

An action is written before the player is told it was accepted (issue 17), so a hand a crash
cancels keeps every acknowledged action; ``(hand_id, seq)`` is unique, so a retried write
changes nothing. Matches the models (`alembic check` finds no drift).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01 12:00:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "hand_actions",
        sa.Column("hand_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("seq >= 0", name=op.f("ck_hand_actions_seq")),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name=op.f("fk_hand_actions_hand_id_hands")
        ),
        sa.PrimaryKeyConstraint("hand_id", "seq", name=op.f("pk_hand_actions")),
    )


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table("hand_actions")
