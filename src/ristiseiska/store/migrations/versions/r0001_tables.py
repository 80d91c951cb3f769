"""The tables as they were before migrations (create_all): each created only where missing.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _table(name: str, *columns: sa.Column[Any] | sa.Constraint, index: str | None = None) -> None:
    """Create ``name`` unless the database has it (it may have lost only its version)."""
    if sa.inspect(op.get_bind()).has_table(name):
        return
    op.create_table(name, *columns)
    if index is not None:
        op.create_index(f"ix_{name}_{index}", name, [index])


def _of_table(*columns: sa.Column[Any]) -> tuple[sa.Column[Any] | sa.Constraint, ...]:
    """A table's key column, ``columns``, and the key's reference to rs_tables."""
    return (sa.Column("table_id", sa.String(64), nullable=False), *columns,
            sa.ForeignKeyConstraint(["table_id"], ["rs_tables.id"]))


def upgrade() -> None:
    _table("rs_rates",
           sa.Column("key", sa.String(160), nullable=False),
           sa.Column("tokens", sa.Double(), nullable=False),
           sa.Column("at", sa.Double(), nullable=False),
           sa.PrimaryKeyConstraint("key"), index="at")
    _table("rs_tables",
           sa.Column("id", sa.String(64), nullable=False),
           sa.Column("created", sa.Double(), nullable=False),
           sa.Column("config", sa.Text(), nullable=False),
           sa.Column("finished", sa.Boolean(), nullable=False),
           sa.PrimaryKeyConstraint("id"))
    _table("rs_clock", *_of_table(sa.Column("state", sa.Text(), nullable=False)),
           sa.PrimaryKeyConstraint("table_id"))
    for name in ("rs_clock_timeouts", "rs_forced_moves"):
        _table(name, *_of_table(sa.Column("deal", sa.Integer(), nullable=False),
                                sa.Column("ply", sa.Integer(), nullable=False)),
               sa.PrimaryKeyConstraint("table_id", "deal", "ply"))
    _table("rs_deals", *_of_table(sa.Column("deal", sa.Integer(), nullable=False),
                                  sa.Column("started", sa.Double(), nullable=False)),
           sa.PrimaryKeyConstraint("table_id", "deal"))
    # the move's fencing number and id came later: revision 0002
    _table("rs_moves", *_of_table(sa.Column("deal", sa.Integer(), nullable=False),
                                  sa.Column("ply", sa.Integer(), nullable=False),
                                  sa.Column("seat", sa.Integer(), nullable=False),
                                  sa.Column("move", sa.String(32), nullable=False)),
           sa.PrimaryKeyConstraint("table_id", "deal", "ply"))
    _table("rs_open", *_of_table(sa.Column("created", sa.Double(), nullable=False)),
           sa.PrimaryKeyConstraint("table_id"), index="created")
    _table("rs_owner", *_of_table(sa.Column("owner", sa.String(128), nullable=False),
                                  sa.Column("epoch", sa.Integer(), nullable=False),
                                  sa.Column("taken", sa.Double(), nullable=False)),
           sa.PrimaryKeyConstraint("table_id"))
    _table("rs_seats", *_of_table(sa.Column("seat", sa.Integer(), nullable=False),
                                  sa.Column("name", sa.String(64), nullable=False),
                                  sa.Column("token_hash", sa.String(128), nullable=True)),
           sa.PrimaryKeyConstraint("table_id", "seat"))
    _table("rs_table_state", *_of_table(sa.Column("started", sa.Boolean(), nullable=False),
                                        sa.Column("standins", sa.Text(), nullable=False)),
           sa.PrimaryKeyConstraint("table_id"))
    # made on first use before migrations (store/analysis.py), so often missing
    _table("rs_analyses", *_of_table(sa.Column("deal", sa.Integer(), nullable=False),
                                     sa.Column("seat", sa.Integer(), nullable=False),
                                     sa.Column("budget", sa.String(64), nullable=False),
                                     sa.Column("created", sa.Double(), nullable=False),
                                     sa.Column("data", sa.Text(), nullable=False)),
           sa.PrimaryKeyConstraint("table_id", "deal", "seat"))


def downgrade() -> None:
    raise NotImplementedError("the store never goes back: restore the backup copy instead")
