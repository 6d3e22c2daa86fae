"""The memory of a sandboxed bot as a whole: all its processes together.

An rlimit caps one process, so a bot that forks, or shares memory between
its processes, or keeps it in memory files, is not held by one. Where the
arena may not make cgroups (these machines' hierarchy belongs to their
supervisor: see docs/writing-a-bot.md), a watchdog does it instead: every
``WATCH_PERIOD`` seconds it walks the sandbox's process tree from /proc and
adds up what the bot holds:

- each process's proportional share of its anonymous and shared-memory pages
  (``Pss_Anon`` + ``Pss_Shmem`` of /proc/PID/smaps_rollup: a page shared by
  four processes counts a quarter in each, so shared memory counts once);
- the pages of every memory file (``memfd_create``) a process holds open but
  maps nowhere, counted once per file whatever the number of its descriptors.

Past the limit the bot is ended as a fault of its own, with a message that
names the limit. Between two looks a bot can go over (by what it can touch in
one period), and each process stays under ``RLIMIT_DATA`` as a backstop.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

WATCH_PERIOD = 0.2
MIB = 1 << 20
# Where a cgroup v2 hierarchy with its memory controller may be delegated to the arena.
CGROUP_ROOT = Path("/sys/fs/cgroup")


def tree(root: int) -> list[int]:
    """``root`` and every process below it (all threads' children), root first."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
            except OSError:
                continue
    return found


def _rollup(pid: int) -> int:
    """A process's proportional anonymous and shared-memory bytes."""
    total = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith((b"Pss_Anon:", b"Pss_Shmem:")):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return total


def _memory_files(pid: int) -> dict[tuple[int, int], int]:
    """The memory files a process holds open: (device, inode) -> bytes allocated."""
    files: dict[tuple[int, int], int] = {}
    fds = f"/proc/{pid}/fd"
    try:
        names = os.listdir(fds)
    except OSError:
        return files
    for name in names:
        try:
            if not os.readlink(f"{fds}/{name}").startswith("/memfd:"):
                continue
            st = os.stat(f"{fds}/{name}")
        except OSError:
            continue
        files[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    return files


def _mapped_memory_files(pid: int) -> set[int]:
    """Inodes of the memory files a process maps (their pages are in its Pss)."""
    inodes: set[int] = set()
    try:
        with open(f"/proc/{pid}/maps", "rb") as f:
            for line in f:
                if b"/memfd:" in line:
                    inodes.add(int(line.split()[4]))
    except (OSError, ValueError, IndexError):
        pass
    return inodes


@dataclass(frozen=True)
class Usage:
    """What a bot's processes hold together, at one look."""

    bytes: int
    processes: int

    @property
    def mib(self) -> float:
        return self.bytes / MIB


def usage(pids: Iterable[int]) -> Usage:
    """The memory ``pids`` hold together (see the module docstring)."""
    total, count = 0, 0
    files: dict[tuple[int, int], int] = {}
    mapped: set[int] = set()
    for pid in pids:
        count += 1
        total += _rollup(pid)
        held = _memory_files(pid)
        if held:
            files |= held
            mapped |= _mapped_memory_files(pid)
    total += sum(size for (_, inode), size in files.items() if inode not in mapped)
    return Usage(total, count)


def delegated_cgroup() -> Path | None:
    """This process's cgroup v2 directory when it may make child groups there
    with the memory controller (a delegated subtree), else None. Machines whose
    hierarchy is v1 or hybrid, like this project's, have none."""
    try:
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    unified = [line[3:] for line in own if line.startswith("0::")]
    if len(own) != 1 or not unified:
        return None  # v1 or hybrid: never touched
    here = CGROUP_ROOT / unified[0].lstrip("/")
    try:
        controllers = (here / "cgroup.controllers").read_text().split()
    except OSError:
        return None
    if "memory" not in controllers or not os.access(here, os.W_OK):
        return None
    return here


def enforcement() -> str:
    """How the memory limit of a bot as a whole is held here, for the log header."""
    return "watchdog" if delegated_cgroup() is None else "watchdog (cgroup v2 delegated, unused)"
