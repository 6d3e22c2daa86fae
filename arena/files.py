"""Files the arena writes are private to the user that runs it: 0600 files in
0700 directories. A match log holds every card of every deal, results stores
and the server's data hold who played what, and a bot's output may hold its
secrets: none of it is for other users of the machine, or for bots."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """Make ``path`` and any missing parents, each 0700 (existing ones are left as they are)."""
    missing = [p for p in [path, *path.parents] if not p.exists()]
    for directory in reversed(missing):
        directory.mkdir(mode=DIR_MODE, exist_ok=True)
    return path


def create_private(path: Path) -> None:
    """Make sure the file exists, 0600 when this makes it, in a private directory."""
    private_dir(path.parent)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))


def open_private(path: Path) -> IO[bytes]:
    """A new (or emptied) file for writing, 0600, in a private directory."""
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    return os.fdopen(fd, "wb")
