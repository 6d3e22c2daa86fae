"""bench_load's CPU accounting: a cgroup of the run counts the CPU of a
process the arena never reaps itself (a bot reaped by its sandbox)."""

import subprocess
import sys

import pytest

from benchmarks.bench_load import CpuGroup

pytestmark = pytest.mark.process

# A parent that starts a busy grandchild in its own session and waits for it:
# the grandchild's CPU is in the parent's rusage only through that wait, and
# the cgroup sees it either way.
BUSY = (
    "import subprocess, sys; "
    "subprocess.run([sys.executable, '-c', 'sum(range(3 * 10**7))'], start_new_session=True)"
)


def test_a_cgroup_counts_a_grandchilds_cpu_after_it_exited():
    group = CpuGroup()
    if group.path is None:
        pytest.skip("no cgroup of our own on this machine")
    try:
        # Put in the group before it does anything: it waits for its input.
        runner = subprocess.Popen(
            [sys.executable, "-c", "import sys; sys.stdin.read(); " + BUSY], stdin=subprocess.PIPE
        )
        group.add(runner.pid)
        before = group.seconds() or 0.0
        runner.communicate(b"")
        assert runner.returncode == 0
        assert (group.seconds() or 0.0) - before > 0.3  # the grandchild's busy loop
    finally:
        group.close()
    assert not group.path.exists()
