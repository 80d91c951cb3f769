"""Bot API identities (issue 59): a bot's name and its token's SHA-256 (store/bot_tokens.py).

Revision ID: 0007
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "rs_bot_tokens" not in set(sa.inspect(op.get_bind()).get_table_names()):
        op.create_table("rs_bot_tokens",
                        sa.Column("name", sa.String(32), nullable=False),
                        sa.Column("token_hash", sa.String(64), nullable=False),
                        sa.Column("created", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("name"),
                        sa.UniqueConstraint("token_hash"))


def downgrade() -> None:
    raise NotImplementedError("the store never goes back: restore the backup copy instead")
