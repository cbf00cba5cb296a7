"""lobby login failures: failed log-ins per account, shared by every replica

``login_failures``: one row per username that failed to log in lately (lower-cased, whether or
not an account has it): the failures since the last success, the time until which log-ins of
that name wait, and the last failure (milliseconds since the epoch), so that rotating client
addresses cannot try passwords on one account without end. Matches the models (`alembic
check` finds no drift).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 07:00:00.000000+00:00

"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "login_failures",
        sa.Column("account", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("failures", sa.BigInteger(), nullable=False),
        sa.Column("locked_until", sa.BigInteger(), nullable=False),
        sa.Column("last_failure", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("account", name=op.f("pk_login_failures")),
    )
    with op.batch_alter_table("login_failures", schema=None) as batch_op:
        batch_op.create_index("ix_login_failures_last_failure", ["last_failure"], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("login_failures", schema=None) as batch_op:
        batch_op.drop_index("ix_login_failures_last_failure")

    op.drop_table("login_failures")
