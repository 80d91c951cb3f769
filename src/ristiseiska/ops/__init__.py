"""Operators' tools for the web server (issue 63): metrics in the Prometheus text format
(ops/metrics.py), the health check (ops/health.py) and JSON log lines (ops/logs.py).
``ristiseiska backup`` and ``restore`` live in commands/backup.py. Nothing here imports
the web app: ``web/`` calls in."""
