"""Players' ratings (issue 58): one row per player and rule family, and the matches rated.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "rs_ratings" not in have:
        op.create_table("rs_ratings",
                        sa.Column("player", sa.String(128), nullable=False),
                        sa.Column("family", sa.String(32), nullable=False),
                        sa.Column("mu", sa.Double(), nullable=False),
                        sa.Column("sigma", sa.Double(), nullable=False),
                        sa.Column("matches", sa.Integer(), nullable=False),
                        sa.Column("updated", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("player", "family"))
    if "rs_rated" not in have:
        op.create_table("rs_rated",
                        sa.Column("match", sa.String(128), nullable=False),
                        sa.Column("family", sa.String(32), nullable=False),
                        sa.Column("rated", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("match"))


def downgrade() -> None:
    raise NotImplementedError("the store never goes back: restore the backup copy instead")
