"""The web server's metrics, one registry per app (each server process serves its own).

Counters and histograms are updated where things happen (web/live_table.py, bot_driver.py,
tables.py, app.py); the gauges are read from the live tables when ``/metrics`` is scraped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

# seconds: a move's round trip and a store write are milliseconds, a master bot's think seconds
FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
THINK = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class _Live(Collector):
    """Gauges read at scrape time from the tables in this process's memory."""

    def __init__(self) -> None:
        self.tables: Callable[[], Iterable[Any]] = lambda: ()

    def collect(self) -> Iterator[GaugeMetricFamily]:
        tables = [t for t in self.tables() if not getattr(t, "closed", False)]
        seated = sum(len({c.seat for c in t.conns if c.seat is not None}) for t in tables)
        watching = sum(len(t.conns) for t in tables)
        yield GaugeMetricFamily("ristiseiska_open_tables",
                                "Tables in this process's memory", value=len(tables))
        yield GaugeMetricFamily("ristiseiska_seated_players",
                                "Seats whose player is connected now", value=seated)
        yield GaugeMetricFamily("ristiseiska_connections",
                                "WebSocket connections to tables (players and spectators)",
                                value=watching)


class Metrics:
    def __init__(self) -> None:
        self.registry = r = CollectorRegistry()
        self.live = _Live()
        r.register(self.live)
        self.moves = Counter("ristiseiska_moves", "Moves stored (players' and bots')",
                             registry=r)
        self.move_seconds = Histogram(
            "ristiseiska_move_roundtrip_seconds",
            "A player's move from its arrival to its ack (checked, stored, told)",
            buckets=FAST, registry=r)
        self.store_seconds = Histogram(
            "ristiseiska_store_write_seconds", "One write of a move or a deal to the database",
            ["write"], buckets=FAST, registry=r)
        self.store_errors = Counter("ristiseiska_store_errors",
                                    "Writes of a move or a deal the database refused",
                                    ["write"], registry=r)
        self.bot_seconds = Histogram("ristiseiska_bot_think_seconds",
                                     "A bot's time to choose a move", ["level"],
                                     buckets=THINK, registry=r)
        self.claims = Counter("ristiseiska_table_claims",
                              "Tables this process took ownership of (shared databases)",
                              registry=r)
        self.lost = Counter("ristiseiska_tables_lost",
                            "Tables another process took over from this one (failovers)",
                            registry=r)

    def watch(self, tables: Callable[[], Iterable[Any]]) -> None:
        """Where the gauges read the live tables from."""
        self.live.tables = tables

    def open_tables(self) -> int:
        return sum(1 for t in self.live.tables() if not getattr(t, "closed", False))

    def render(self) -> tuple[bytes, str]:
        """The text exposition and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


# where nothing else was given (tables made outside an app, tests): counted, never served
UNSERVED = Metrics()
