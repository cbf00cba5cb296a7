"""engine table owners: the fencing number of each table's owner

``tables.owner_epoch``: bumped each time the table changes hands (a live node taking over the
table of a node whose lease ran out, a move between live nodes). The owning process remembers
the number it loaded the table with; every write of the table checks ``node_id`` and
``owner_epoch`` under the table's row lock, so a process that lost the table writes nothing
more to it. Every existing table starts at 1. Matches the models (`alembic check` finds no
drift).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 11:00:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("owner_epoch", sa.BigInteger(), server_default="1", nullable=False)
        )
        batch_op.create_check_constraint(op.f("ck_tables_owner_epoch"), "owner_epoch >= 1")


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_tables_owner_epoch"), type_="check")
        batch_op.drop_column("owner_epoch")
