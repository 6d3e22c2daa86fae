"""How a launched engine reaches a node that lacks its files.

``working_dir`` is a directory shipped to every node: paths under it in
commands are rewritten to the node's copy. An engine with a directory of its
own (an uploaded bot) is shipped as a content-addressed archive. The head
packs each directory once into Ray's object store; a node unpacks each
archive once, under its digest, for all its workers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.archive import ArchiveError, Limits, pack, unpack
from arena.errors import ConfigError
from arena.match.settings import CommandEngine, EngineSpec

# What is shipped to the nodes: at most this much, without these directories.
MAX_ARCHIVE_BYTES = 256 << 20
SKIPPED = frozenset({".git", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache"})
# The head's own directories, packed and unpacked by the one archive code
# (arena/archive.py): bounded by size only, and checked by their digest.
SHIPPING = Limits(
    archive_bytes=MAX_ARCHIVE_BYTES,
    files=1 << 30,
    unpacked_bytes=MAX_ARCHIVE_BYTES,
    ratio=1 << 30,
)


@dataclass(frozen=True)
class Archive:
    """An engine's own directory, packed: unpacked once per node under its digest."""

    sha256: str
    data: Any  # a Ray object reference to the tar bytes


def pack_directory(path: Path) -> bytes:
    """A directory as a tar.gz whose bytes depend only on its files (not their
    times or owners); version control, caches and virtual environments left out."""
    return pack(path, SHIPPING, SKIPPED)


# --- the head side ---------------------------------------------------------


class Shipping:
    """The head's archives: each directory packed once, for every node."""

    def __init__(self, working_dir: Path | None) -> None:
        self._working_dir = working_dir
        self._archives: dict[Path, Archive] = {}

    def working_dir(self) -> tuple[str, Archive] | None:
        """The shipped working directory: the head's path of it, and its archive."""
        shipped = self._working_dir
        return None if shipped is None else (str(shipped), self._archive(shipped))

    def archives_of(self, engines: Sequence[EngineSpec]) -> tuple[tuple[str, Archive], ...]:
        """Engines with a directory of their own outside the shipped working directory."""
        shipped = self._working_dir
        out = []
        for e in engines:
            if not isinstance(e, CommandEngine) or e.workdir is None:
                continue
            if shipped is not None and e.workdir.is_relative_to(shipped):
                continue
            out.append((e.name, self._archive(e.workdir)))
        return tuple(out)

    def _archive(self, directory: Path) -> Archive:
        """A directory packed once, into Ray's object store, for every node."""
        import ray

        if directory not in self._archives:
            try:
                data = pack_directory(directory)
            except ArchiveError as e:
                raise ConfigError(
                    f"{e}: too much to ship to every node; ship less (a directory of the bots only)"
                ) from None
            self._archives[directory] = Archive(hashlib.sha256(data).hexdigest(), ray.put(data))
        return self._archives[directory]


# --- the node side ---------------------------------------------------------


def localize(
    engine: EngineSpec,
    working_dir: tuple[str, Archive] | None,
    archives: Sequence[tuple[str, Archive]],
) -> EngineSpec:
    """The engine as this node reaches it: the shipped working directory in
    place of the head's, an archived directory unpacked here."""
    if not isinstance(engine, CommandEngine):
        return engine
    own = dict(archives)
    if engine.name in own:
        return dataclasses.replace(engine, workdir=unpacked(own[engine.name]))
    if working_dir is None:
        return engine
    shipped, archive = working_dir
    here = str(unpacked(archive))

    def moved(word: str) -> str:
        if word == shipped or word.startswith(shipped + os.sep):
            return here + word[len(shipped) :]
        return word

    workdir = engine.workdir
    if workdir is not None:
        workdir = Path(moved(str(workdir)))
    return dataclasses.replace(
        engine, command=tuple(moved(w) for w in engine.command), workdir=workdir
    )


def unpacked(archive: Archive) -> Path:
    """Where the archive is unpacked on this node, unpacking it the first time."""
    import ray

    root = Path(tempfile.gettempdir()) / "scopa-arena-archives"
    target = root / archive.sha256
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    data = ray.get(archive.data)
    if hashlib.sha256(data).hexdigest() != archive.sha256:
        raise ConfigError(f"archive {archive.sha256[:12]}: damaged on the way to this node")
    part = root / f".part-{os.getpid()}-{threading.get_ident()}-{archive.sha256[:12]}"
    shutil.rmtree(part, ignore_errors=True)  # a worker killed while unpacking
    unpack(data, part, SHIPPING, label=f"archive {archive.sha256[:12]}")
    try:
        part.rename(target)
    except OSError:  # another worker of this node was first
        shutil.rmtree(part, ignore_errors=True)
    return target
