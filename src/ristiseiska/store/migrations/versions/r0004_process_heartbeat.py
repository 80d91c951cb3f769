"""Server processes' heartbeats (issue 63: a table whose owner stopped beating may be taken
over at once; a live owner's claim holds; docs/hosting.md, *Who owns a table*).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "rs_process" not in set(sa.inspect(op.get_bind()).get_table_names()):
        op.create_table("rs_process",
                        sa.Column("owner", sa.String(128), nullable=False),
                        sa.Column("beat", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("owner"))


def downgrade() -> None:
    raise NotImplementedError("the store never goes back: restore the backup copy instead")
