"""Players' rating history and public handles (issue 58, the player pages: store/history.py).

Revision ID: 0008
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "rs_history" not in have:
        op.create_table("rs_history",
                        sa.Column("match", sa.String(128), nullable=False),
                        sa.Column("player", sa.String(128), nullable=False),
                        sa.Column("family", sa.String(32), nullable=False),
                        sa.Column("at", sa.Double(), nullable=False),
                        sa.Column("seat", sa.Integer(), nullable=False),
                        sa.Column("place", sa.Integer(), nullable=False),
                        sa.Column("players", sa.Integer(), nullable=False),
                        sa.Column("points", sa.Integer(), nullable=False),
                        sa.Column("deals", sa.Integer(), nullable=False),
                        sa.Column("deals_won", sa.Integer(), nullable=False),
                        sa.Column("mu", sa.Double(), nullable=False),
                        sa.Column("sigma", sa.Double(), nullable=False),
                        sa.Column("matches", sa.Integer(), nullable=False),
                        sa.PrimaryKeyConstraint("match", "player"))
        op.create_index("ix_rs_history_player", "rs_history", ["player", "at"])
    if "rs_players" not in have:
        op.create_table("rs_players",
                        sa.Column("player", sa.String(128), nullable=False),
                        sa.Column("handle", sa.String(16), nullable=False),
                        sa.Column("name", sa.String(64), nullable=False),
                        sa.Column("updated", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("player"),
                        sa.UniqueConstraint("handle"))


def downgrade() -> None:
    raise NotImplementedError("the store never goes back: restore the backup copy instead")
