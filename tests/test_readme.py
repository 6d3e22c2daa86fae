"""The README's examples run as written, from the repository's root."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.logs.record import read_log

ROOT = Path(__file__).resolve().parents[1]


def python_block(heading: str) -> str:
    """The first ```python block after a README heading."""
    text = (ROOT / "README.md").read_text()
    section = text.split(f"## {heading}\n", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, f"no python block under {heading!r}"
    return found.group(1)


@pytest.mark.process
def test_run_a_match_from_python_runs_as_written():
    code = python_block("Run a match from Python")
    assert len([line for line in code.splitlines() if line.strip()]) <= 5
    log = ROOT / "out" / "m.log"
    log.unlink(missing_ok=True)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "final score" in out.stdout and "termination: completed" in out.stdout
    assert read_log(log).complete


def test_the_rules_engine_in_five_lines_runs_as_written():
    namespace: dict[str, object] = {}
    exec(compile(python_block("The rules engine in five lines"), "README.md", "exec"), namespace)
    assert namespace["view"].seat == 2  # type: ignore[attr-defined]
