"""Where a tournament's or a competition's files are: its results store, its
match logs and its bots' output, under one output directory.

Every writer (the runner, the server's competitions, the cluster's head) and
every reader (`arena web`, the server's pages and calls, the standings cache)
finds them here, so a run started with ``--store ELSEWHERE`` is read where it
was written. Pure: pathlib only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

STORE_NAME = "results.sqlite"
# Written in the output directory when the store is elsewhere (``--store``):
# one line, the store's absolute path.
STORE_POINTER = "results.location"
# The bots' output, in the output directory: how faults name it (a run's log
# may be read far from the machine that wrote it: on a server's site).
BOT_OUTPUT = "bots"


@dataclass(frozen=True)
class Layout:
    """The files of one run: ``directory`` holds the logs and bot output;
    ``store`` is ``directory/results.sqlite`` unless the run put it elsewhere."""

    directory: Path
    store: Path

    @classmethod
    def of(cls, directory: Path, store: Path | None = None) -> Layout:
        """The layout a run writes: its output directory and, if given, its store's path."""
        return cls(directory, store if store is not None else directory / STORE_NAME)

    @classmethod
    def read(cls, directory: Path) -> Layout:
        """The layout a reader finds in ``directory``: the store beside the logs,
        else the one a pointer left by the run names."""
        beside = directory / STORE_NAME
        pointer = directory / STORE_POINTER
        if not beside.exists() and pointer.is_file():
            try:
                named = pointer.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                named = ""
            if named:
                return cls(directory, Path(named))
        return cls(directory, beside)

    @property
    def logs(self) -> Path:
        return self.directory / "logs"

    @property
    def bot_output(self) -> Path:
        """Each launched bot's standard output and error, one file per process."""
        return self.directory / BOT_OUTPUT

    def log_of(self, match_id: str) -> Path:
        """Match ``match_id``'s log (written as it is played, record by record)."""
        return self.logs / f"{match_id.replace('/', '_')}.log"

    def stored_log(self, stored: str) -> Path:
        """A log path as the store keeps it, found again if the directory moved
        (the store keeps the path it was written at)."""
        path = Path(stored)
        if path.is_absolute() and path.exists():
            return path
        beside = self.logs / path.name
        return beside if beside.exists() else path

    def note_store(self) -> None:
        """Leave the pointer a reader needs when the store is not beside the logs."""
        if self.store == self.directory / STORE_NAME:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / STORE_POINTER).write_text(f"{self.store.resolve()}\n", encoding="utf-8")


def competition_layout(data: Path, competition_id: str) -> Layout:
    """A competition's files: its own directory under the server's data (for
    `arena web DIR`, DIR's parent), as a reader finds them."""
    return Layout.read(data / competition_id)
