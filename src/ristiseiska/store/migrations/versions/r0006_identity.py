"""A player's identity across devices (issue 58): linked devices, passkeys, one-time secrets
(transfer codes and WebAuthn challenges, hashed); ristiseiska/identity.

Revision ID: 0006
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    have = set(sa.inspect(op.get_bind()).get_table_names())
    if "rs_identity_devices" not in have:
        op.create_table("rs_identity_devices",
                        sa.Column("device", sa.String(64), nullable=False),
                        sa.Column("player", sa.String(128), nullable=False),
                        sa.Column("how", sa.String(16), nullable=False),
                        sa.Column("linked", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("device"))
        op.create_index("ix_rs_identity_devices_player", "rs_identity_devices", ["player"])
    if "rs_identity_passkeys" not in have:
        op.create_table("rs_identity_passkeys",
                        sa.Column("credential", sa.String(1024), nullable=False),
                        sa.Column("player", sa.String(128), nullable=False),
                        sa.Column("public_key", sa.Text(), nullable=False),
                        sa.Column("sign_count", sa.Integer(), nullable=False),
                        sa.Column("created", sa.Double(), nullable=False),
                        sa.PrimaryKeyConstraint("credential"))
        op.create_index("ix_rs_identity_passkeys_player", "rs_identity_passkeys", ["player"])
    if "rs_identity_secrets" not in have:
        op.create_table("rs_identity_secrets",
                        sa.Column("hash", sa.String(64), nullable=False),
                        sa.Column("kind", sa.String(16), nullable=False),
                        sa.Column("player", sa.String(128), nullable=True),
                        sa.Column("expires", sa.Double(), nullable=False),
                        sa.Column("used", sa.Double(), nullable=True),
                        sa.PrimaryKeyConstraint("hash"))
        op.create_index("ix_rs_identity_secrets_expires", "rs_identity_secrets", ["expires"])


def downgrade() -> None:
    raise NotImplementedError("the store never goes back: restore the backup copy instead")
