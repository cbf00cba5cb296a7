"""auth sessions: the refresh tokens behind short-lived access tokens

``refresh_tokens``: one row per refresh token ever issued and not yet swept, keyed by its
SHA-256 (the token itself is never stored), with its session (``session_id``: the family of
tokens since one log-in), its player, when it was issued and expires, when it was exchanged
(``retired_at``) and whether its session was revoked (log-out, password change, reuse of a
retired token). Times are milliseconds since the epoch. Matches the models (`alembic check`
finds no drift).

Revision ID: 0010
Revises: 0009 (another branch adds 0009 meanwhile: the merge re-chains this one after it)
Create Date: 2026-12-01 10:41:53.668410+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "refresh_tokens",
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("session_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("player_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("issued_at", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.BigInteger(), nullable=False),
        sa.Column("retired_at", sa.BigInteger(), nullable=True),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.Column("revoked_reason", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_refresh_tokens_player_id_players")
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_refresh_tokens")),
    )
    with op.batch_alter_table("refresh_tokens", schema=None) as batch_op:
        batch_op.create_index("ix_refresh_tokens_expires_at", ["expires_at"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_refresh_tokens_player_id"), ["player_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_refresh_tokens_session_id"), ["session_id"], unique=False
        )


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("refresh_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_refresh_tokens_session_id"))
        batch_op.drop_index(batch_op.f("ix_refresh_tokens_player_id"))
        batch_op.drop_index("ix_refresh_tokens_expires_at")

    op.drop_table("refresh_tokens")
