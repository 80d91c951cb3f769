"""Alembic's environment: the store hands over a connection already inside a transaction that
holds the migration lock (store/migrate.py), so every revision and the version stamp commit
together. Alembic runs this file; merely importing it (a check that every module of the
package imports) does nothing."""

from __future__ import annotations

from alembic import context

_config = getattr(context, "config", None)  # set only while Alembic runs the migrations
if _config is not None:
    connection = _config.attributes["connection"]
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()
