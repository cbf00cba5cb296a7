"""engine: a removal that relays the player's own leave (seat_session_removals.by_player)

AdminService.RemovePlayer's ``by_player`` is kept with the removal it answered: a retry must
give the same value, and a session the removal left closing is closed as "left" (not
"removed") by the node that loads its table after a restart. Rows written before are ops'
removals (false). Matches the models (`alembic check` finds no drift).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 10:50:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("seat_session_removals", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("by_player", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("seat_session_removals", schema=None) as batch_op:
        batch_op.drop_column("by_player")
