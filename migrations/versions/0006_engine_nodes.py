"""engine nodes: the node registry, and the node that owns each table

``engine_nodes``: one row per engine node id (STUD_ENGINE_NODE_ID): the addresses it
advertises (the lobby's AdminService address, the players' gRPC address and gRPC-Web URL), its
state, and its lease (``epoch`` bumped by every process that claims the node, ``heartbeat_at``
and ``expires_at`` renewed while it runs). ``tables.node_id``: the node that owns a table;
every existing table gets "main", the default node id, so a single-node install goes on
loading all of them. ``quick_tables.node_id``: the node the lobby chose to open a quick game
(null: the lobby's STUD_LOBBY_ENGINE). Generated with `alembic revision --autogenerate` and
reviewed.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-29 19:00:49.500504+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "engine_nodes",
        sa.Column("id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("admin_address", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("grpc_address", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("web_url", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "state IN ('starting', 'serving', 'draining', 'stopped')",
            name=op.f("ck_engine_nodes_state"),
        ),
        sa.CheckConstraint("epoch >= 1", name=op.f("ck_engine_nodes_epoch")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_engine_nodes")),
    )
    with op.batch_alter_table("quick_tables", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("node_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )

    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "node_id",
                sqlmodel.sql.sqltypes.AutoString(length=64),
                server_default="main",
                nullable=False,
            )
        )
        batch_op.create_index(batch_op.f("ix_tables_node_id"), ["node_id"], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tables_node_id"))
        batch_op.drop_column("node_id")

    with op.batch_alter_table("quick_tables", schema=None) as batch_op:
        batch_op.drop_column("node_id")

    op.drop_table("engine_nodes")
