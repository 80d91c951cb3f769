"""Finding the processes a test started, from Linux's /proc (issue 19).

A process is named by ``(pid, start time)``, so a pid the kernel hands out again later is never
taken for the process that had it before. Zombies count as gone: they are dead, only not yet
reaped by their parent.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

Proc = tuple[int, int]  # (pid, start time in clock ticks since boot)
PROC = Path("/proc")


def _stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, parent pid, process group, start time) of ``pid``, or None if it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # the name in brackets may hold spaces
    return fields[0], int(fields[1]), int(fields[2]), int(fields[19])


def _pids() -> list[int]:
    return [int(p.name) for p in PROC.iterdir() if p.name.isdigit()]


def _table() -> dict[int, tuple[str, int, int, int]]:
    out = {}
    for pid in _pids():
        st = _stat(pid)
        if st is not None:
            out[pid] = st
    return out


def alive(proc: Proc) -> bool:
    st = _stat(proc[0])
    return st is not None and st[3] == proc[1] and st[0] not in ("Z", "X")


def descendants(pid: int) -> set[Proc]:
    """Every living process below ``pid`` (children, their children, …)."""
    table = _table()
    children: dict[int, list[int]] = {}
    for p, (_state, ppid, _pg, _start) in table.items():
        children.setdefault(ppid, []).append(p)
    out: set[Proc] = set()
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop()
        state, _ppid, _pg, start = table[p]
        if state not in ("Z", "X"):
            out.add((p, start))
        todo.extend(children.get(p, []))
    return out


def group_members(pgid: int) -> set[Proc]:
    """Every living process of the process group ``pgid``."""
    return {(p, st[3]) for p, st in _table().items() if st[2] == pgid
            and st[0] not in ("Z", "X")}


def with_env(name: str, value: str) -> set[Proc]:
    """Every living process (of this user) whose environment holds ``name=value``."""
    needle = f"{name}={value}".encode()
    out: set[Proc] = set()
    me = os.getpid()
    for pid in _pids():
        if pid == me:
            continue
        try:
            env = (PROC / str(pid) / "environ").read_bytes()
        except OSError:  # gone, or another user's
            continue
        if needle in env.split(b"\0"):
            st = _stat(pid)
            if st is not None and st[0] not in ("Z", "X"):
                out.add((pid, st[3]))
    return out


def wait_gone(procs: set[Proc], timeout: float) -> set[Proc]:
    """Wait up to ``timeout`` seconds for every process to end; those still alive."""
    deadline = time.monotonic() + timeout
    while True:
        left = {p for p in procs if alive(p)}
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.1)


def kill_all(procs: set[Proc]) -> None:
    """SIGKILL each process that is still the one named (a clean-up after a failure)."""
    for p in procs:
        if alive(p):
            try:
                os.kill(p[0], signal.SIGKILL)
            except OSError:
                pass


def describe(procs: set[Proc]) -> str:
    parts = []
    for pid, _start in sorted(procs):
        try:
            cmd = (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace").strip()
        except OSError:
            cmd = "?"
        parts.append(f"{pid}: {cmd[:160]}")
    return "; ".join(parts)
