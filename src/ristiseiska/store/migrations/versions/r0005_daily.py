"""The daily deal (issue 57): the server's secret, each player's counted try and the results.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "rs_daily_secret" not in have:
        op.create_table("rs_daily_secret",
                        sa.Column("id", sa.Integer(), nullable=False),
                        sa.Column("secret", sa.String(128), nullable=False),
                        sa.Column("created", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("id"))
    if "rs_daily_tries" not in have:
        op.create_table("rs_daily_tries",
                        sa.Column("player", sa.String(128), nullable=False),
                        sa.Column("day", sa.String(10), nullable=False),
                        sa.Column("preset", sa.String(32), nullable=False),
                        sa.Column("kind", sa.String(16), nullable=False),
                        sa.Column("table_id", sa.String(64), nullable=True),
                        sa.Column("started", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("player", "day", "preset"))
    if "rs_daily_results" not in have:
        op.create_table("rs_daily_results",
                        sa.Column("player", sa.String(128), nullable=False),
                        sa.Column("day", sa.String(10), nullable=False),
                        sa.Column("preset", sa.String(32), nullable=False),
                        sa.Column("counted", sa.Boolean(), nullable=False),
                        sa.Column("points", sa.Integer(), nullable=False),
                        sa.Column("place", sa.Integer(), nullable=False),
                        sa.Column("record", sa.Text(), nullable=False),
                        sa.Column("table_id", sa.String(64), nullable=True),
                        sa.Column("created", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("player", "day", "preset", "counted"))


def downgrade() -> None:
    raise NotImplementedError("the store never goes back: restore the backup copy instead")
