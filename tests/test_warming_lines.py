"""A compilation is never a silent minute (issue 50, and issue 45's silent first `simulate`):
`simulate` and `tournament` compile the kernel first and print a line on standard error when
the wait passes two seconds, then every ten, then when it is ready.

The compilation is replaced by a sleep here (the real one is measured in docs/simulation.md)."""

from __future__ import annotations

import time

import pytest

from ristiseiska.bots import pool as pool_mod
from ristiseiska.cli import main
from ristiseiska.commands import common


def _slow(seconds: float, calls: list[bool]) -> object:
    def compile_kernel(neural: bool = False) -> float:
        calls.append(neural)
        time.sleep(seconds)
        return seconds
    return compile_kernel


def test_a_long_wait_says_so_every_few_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(pool_mod, "compile_kernel", _slow(1.3, calls))
    lines: list[tuple[float, str]] = []
    start = time.perf_counter()
    common.warm_kernel(say=lambda s: lines.append((time.perf_counter() - start, s)),
                       first=0.3, every=0.4)
    assert calls == [False]
    texts = [s for _, s in lines]
    assert texts[0].startswith("ristiseiska: compiling the bots' kernel (once after installing")
    assert len(texts) >= 3 and texts[-1].startswith("ristiseiska: the kernel is ready (")
    assert lines[0][0] < 0.6  # the first line after `first` seconds
    times = [t for t, _ in lines]
    assert max(b - a for a, b in zip(times, times[1:], strict=False)) < 0.8


def test_a_quick_load_says_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool_mod, "compile_kernel", _slow(0.05, []))
    lines: list[str] = []
    common.warm_kernel(say=lines.append)
    assert lines == []  # loading from the disk cache takes about a second: no line


def test_finnish_lines() -> None:
    fi = common.WARMING["fi"]
    assert set(fi) == set(common.WARMING["en"])
    assert "käännetään" in fi["wait"] and "valmis" in fi["ready"]


def test_simulate_prints_while_it_compiles(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(pool_mod, "compile_kernel", _slow(2.4, calls))
    monkeypatch.setattr("ristiseiska.sim.simulate", _fake_simulate)
    assert main(["simulate", "--games", "10", "--seed", "1", "--json"]) == 0
    err = capsys.readouterr().err
    assert calls == [False]
    assert "compiling the bots' kernel" in err and "the kernel is ready" in err, err


def test_simulate_on_the_python_engine_compiles_nothing(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(pool_mod, "compile_kernel", _slow(0.0, calls))
    assert main(["simulate", "--games", "3", "--seed", "1", "--engine", "python"]) == 0
    assert calls == []


def test_tournament_compiles_once_before_its_workers_start(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(pool_mod, "compile_kernel", _slow(2.4, calls))
    monkeypatch.setattr("ristiseiska.tournament.run_tournament", _no_tournament)
    with pytest.raises(_Stop):
        main(["tournament", "--bots", "neural,random", "--games", "2", "--quiet"])
    err = capsys.readouterr().err
    assert calls == [True]  # with the neural bot's environment
    assert "compiling the bots' kernel" in err, err
    calls.clear()
    with pytest.raises(_Stop):
        main(["tournament", "--bots", "expert,random", "--games", "2", "--quiet"])
    assert calls == []  # nothing to compile for the quick bots


class _Stop(Exception):
    pass


def _no_tournament(*args: object, **kwargs: object) -> None:
    raise _Stop


def _fake_simulate(rules, players, games, seed, engine, out,  # type: ignore[no-untyped-def]
                   workers=1, progress=None):
    from ristiseiska.sim import SimSummary

    return SimSummary(rules, players, seed, "kernel")
