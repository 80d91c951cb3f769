"""A move's fencing number and the player's move id (the hand-written ALTER TABLEs of before).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("rs_moves")}
    if "epoch" not in have:
        op.add_column("rs_moves", sa.Column("epoch", sa.Integer(), nullable=True))
    if "move_id" not in have:
        op.add_column("rs_moves", sa.Column("move_id", sa.Text(), nullable=True))


def downgrade() -> None:
    raise NotImplementedError("the store never goes back: restore the backup copy instead")
