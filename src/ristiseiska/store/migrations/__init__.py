"""Alembic's migration scripts of the store (run by store/migrate.py; no alembic.ini needed)."""
