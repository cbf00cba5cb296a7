"""placement indexes: a node's tables by status, quick tables being opened by node

A new table's placement (every quick game, every tournament table) counts each live node's
open tables and seated players, and the quick tables still being opened there. Those counts
read every table the node ever had (``ix_tables_node_id``: its closed ones too) and every
quick table ever opened (no index leads with ``status``), a cost that grew with the room's
history. ``ix_tables_node_id_status`` (it also serves what ``ix_tables_node_id`` did, which
goes) and ``ix_quick_tables_status_node_id`` let them read the live rows only. Matches the
models (`alembic check` finds no drift).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02 14:10:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_index("ix_tables_node_id_status", "tables", ["node_id", "status"])
    op.drop_index("ix_tables_node_id", table_name="tables")
    op.create_index("ix_quick_tables_status_node_id", "quick_tables", ["status", "node_id"])


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index("ix_quick_tables_status_node_id", table_name="quick_tables")
    op.create_index("ix_tables_node_id", "tables", ["node_id"])
    op.drop_index("ix_tables_node_id_status", table_name="tables")
