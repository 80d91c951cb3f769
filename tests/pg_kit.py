"""A PostgreSQL cluster of a test's own (Debian's packages, loopback only, fsync off), and new
empty databases in it. Tests that use it skip when PostgreSQL or psycopg is missing."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from ristiseiska.web.processes import free_port

BINS = sorted(glob.glob("/usr/lib/postgresql/*/bin"))


def available() -> bool:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return False
    return bool(BINS)


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:  # initdb refuses to run as root
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


@contextmanager
def cluster() -> Iterator[str]:
    """A running cluster; yields the URL of its ``postgres`` database."""
    bin_dir = BINS[-1]
    tmp = tempfile.mkdtemp(prefix="rs-pg-")
    data = os.path.join(tmp, "data")
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres")
    port = free_port("127.0.0.1")
    subprocess.run(_as_postgres([f"{bin_dir}/initdb", "-D", data, "-A", "trust",
                                 "-U", "postgres"]), check=True, capture_output=True)
    subprocess.run(_as_postgres([f"{bin_dir}/pg_ctl", "-D", data, "-o",
                                 f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off",
                                 "-w", "start", "-l", os.path.join(tmp, "log")]),
                   check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_postgres([f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate",
                                     "stop"]), capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def new_database(url: str, name: str) -> str:
    """Create the empty database ``name`` in the cluster of ``url``; its URL."""
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name
