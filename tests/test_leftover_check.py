"""The session-end check of tests/conftest.py finds a process a test run leaves behind, even one
that was adopted by another parent, fails the run, names the process and kills it (issue 19)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

LEAKY = '''
import subprocess, sys

def test_leaks():
    # a grandchild whose parent ends at once: adopted by another process, still of this run
    subprocess.run([sys.executable, "-c",
                    "import subprocess, sys; subprocess.Popen([sys.executable, '-c', "
                    "'import time; time.sleep(120)'], start_new_session=True)"], check=True)
'''

CLEAN = '''
import subprocess, sys

def test_clean():
    subprocess.run([sys.executable, "-c", "pass"], check=True)
'''


def _inner(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_inner.py").write_text(body)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    env["RISTISEISKA_LEFTOVER_GRACE"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "conftest", "--rootdir", str(tmp_path), str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_leaked_process_fails_the_run_and_is_killed(tmp_path: Path) -> None:
    r = _inner(tmp_path, LEAKY)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "processes left behind" in r.stdout and "time.sleep(120)" in r.stdout, r.stdout
    assert "1 passed" in r.stdout
    import re
    import time

    pid = int(re.search(r"(\d+): \S*python\S* -c import time; time.sleep\(120\)", r.stdout)[1])
    time.sleep(0.5)
    state = Path(f"/proc/{pid}/stat")
    assert not state.exists() or state.read_text().rsplit(")", 1)[1].split()[0] in "ZX"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_clean_run_passes(tmp_path: Path) -> None:
    r = _inner(tmp_path, CLEAN)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "left behind" not in r.stdout
