"""Alembic's environment: the store hands over a connection already inside a transaction that
holds the migration lock (store/migrate.py), so every revision and the version stamp commit
together."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
