"""Uploaded bots: what a submission is, and where its files are kept.

A participant uploads an archive (arena.archive) with a ``bot.toml`` manifest
at its top. The server keeps each archive under its SHA-256, unpacked once
into a directory of that name (read-only for bots: it is bound into each
sandbox at /bot), so the same bytes are one submission whoever sends them,
and a competition that names a submission by its digest always runs exactly
those files. Unpacking goes to a temporary directory renamed into place, so a
crash leaves no half tree under a digest.
"""

from __future__ import annotations

import hashlib
import shlex
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.archive import Limits, archive_format, unpack
from arena.errors import ConfigError
from arena.files import private_dir
from arena.match.settings import CommandEngine, command_engine
from arena.rules import Game
from arena.server.names import checked_name

MANIFEST = "bot.toml"
MAX_MANIFEST_BYTES = 64 << 10
MAX_VERSION_CHARS = 64
MAX_COMMAND_WORDS = 64
SUBMISSION_PREFIX = "submission:"  # a bot's address when the server runs it
_GAMES = {g.value for g in Game}
_KEYS = {"name", "version", "command", "games"}


@dataclass(frozen=True)
class Manifest:
    """What ``bot.toml`` says: the bot's name, its version, how to start it
    (relative paths are in the bot's directory) and the games it plays, and
    the engine that runs it, launched in its directory."""

    name: str
    version: str
    command: tuple[str, ...]  # as the manifest writes it (kept with the submission)
    engine: CommandEngine  # ``python`` in the command is the arena's own Python
    games: tuple[str, ...] = ()  # empty: every game


def read_manifest(root: Path) -> Manifest:
    """The manifest at the top of an unpacked submission; ConfigError naming
    the key at fault (unknown keys too: a typo must not pass unnoticed)."""
    path = root / MANIFEST
    if path.is_symlink() or not path.is_file():
        raise ConfigError(
            f"no {MANIFEST} at the top of the archive (it says name, version and command)"
        )
    if path.stat().st_size > MAX_MANIFEST_BYTES:
        raise ConfigError(f"{MANIFEST} is larger than {MAX_MANIFEST_BYTES // 1024} KiB")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{MANIFEST} is not valid TOML: {e}") from None
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise ConfigError(
            f"{MANIFEST}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})"
        )
    for key in ("name", "version", "command"):
        if key not in raw:
            raise ConfigError(f"{MANIFEST}: {key} is missing")
    if not isinstance(raw["name"], str):
        raise ConfigError(f"{MANIFEST}: name must be a string")
    name = checked_name(raw["name"], "bot name")
    command = _command(raw["command"])
    engine = command_engine(name, command, workdir=root)
    return Manifest(name, _version(raw["version"]), command, engine, _games(raw))


def _version(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f'{MANIFEST}: version must be a non-empty string, e.g. "1.0"')
    if len(value) > MAX_VERSION_CHARS or not value.isprintable() or value != value.strip():
        raise ConfigError(
            f"{MANIFEST}: version is at most {MAX_VERSION_CHARS} printable characters, "
            "without surrounding spaces"
        )
    return value


def _command(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError as e:
            raise ConfigError(f"{MANIFEST}: cannot read command {value!r}: {e}") from None
    if not isinstance(value, list) or not value or not all(isinstance(w, str) for w in value):
        raise ConfigError(
            f'{MANIFEST}: command must be a list of strings, e.g. ["python", "bot.py"]'
        )
    if len(value) > MAX_COMMAND_WORDS or any("\0" in w or len(w) > 1024 for w in value):
        raise ConfigError(f"{MANIFEST}: command is too long or holds a NUL character")
    if value[0].startswith("/") and not value[0].startswith(("/usr/", "/bin/")):
        raise ConfigError(
            f"{MANIFEST}: command {value[0]!r}: give the program relative to the bot's "
            "directory (./mybot), or a system program (node, java, python)"
        )
    return tuple(value)


def _games(raw: dict[str, Any]) -> tuple[str, ...]:
    games = raw.get("games", [])
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
        raise ConfigError(f'{MANIFEST}: games must be a list such as ["scopa", "scopone"]')
    unknown = [g for g in games if g not in _GAMES]
    if unknown:
        raise ConfigError(
            f"{MANIFEST}: unknown game {unknown[0]!r} (known: {', '.join(sorted(_GAMES))})"
        )
    return tuple(games)


@dataclass(frozen=True)
class Stored:
    """An archive kept under its digest, unpacked, with its manifest."""

    sha256: str
    workdir: Path  # the bot's directory: where bot.toml is
    manifest: Manifest
    archive_bytes: int
    files: int
    unpacked_bytes: int


class SubmissionFiles:
    """The content-addressed archives and trees under ``DATA/submissions``."""

    def __init__(self, data: Path, limits: Limits | None = None) -> None:
        self.root = private_dir(data / "submissions")
        self.limits = limits or Limits()
        for stale in self.root.glob(".incoming-*"):  # a crash while unpacking
            shutil.rmtree(stale, ignore_errors=True)

    def directory(self, sha256: str) -> Path:
        return self.root / sha256

    def store(self, data: bytes) -> Stored:
        """Keep ``data`` under its digest (once) and read its manifest.
        ArchiveError or ConfigError, with nothing kept, when either is unusable."""
        digest = hashlib.sha256(data).hexdigest()
        home = self.directory(digest)
        kind = archive_format(data)
        if not home.is_dir():
            incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.root))
            try:
                unpacked = unpack(data, incoming / "files", self.limits, label=f"the {kind}")
                (incoming / f"archive.{kind}").write_bytes(data)
                read_manifest(unpacked.root)
                (incoming / "root").write_text(
                    str(unpacked.root.relative_to(incoming / "files")), encoding="utf-8"
                )
                (incoming / "size").write_text(
                    f"{unpacked.files} {unpacked.bytes}", encoding="utf-8"
                )
                incoming.chmod(0o755)
                incoming.rename(home)
            except BaseException:
                shutil.rmtree(incoming, ignore_errors=True)
                raise
        return self.stored(digest, archive_bytes=len(data))

    def stored(self, sha256: str, archive_bytes: int | None = None) -> Stored:
        """A kept submission by its digest; ConfigError if it is not here."""
        home = self.directory(sha256)
        try:
            relative = (home / "root").read_text(encoding="utf-8")
            files, size = (int(n) for n in (home / "size").read_text(encoding="utf-8").split())
        except (OSError, ValueError):
            raise ConfigError(f"submission {sha256[:12]} is not kept on this server") from None
        workdir = (home / "files" / relative).resolve()
        if archive_bytes is None:
            archive_bytes = sum(p.stat().st_size for p in home.glob("archive.*"))
        return Stored(sha256, workdir, read_manifest(workdir), archive_bytes, files, size)

    def engine_table(self, name: str, sha256: str) -> dict[str, Any]:
        """The ``[[engine]]`` table that runs a submission: launched in its own
        directory, always in the sandbox (the file's limits apply)."""
        stored = self.stored(sha256)
        return {
            "name": name,
            "spec": shlex.join(stored.manifest.command),
            "workdir": str(stored.workdir),
            "sandbox": {"mode": "on"},
        }


def submission_digest(address: str) -> str | None:
    """The digest in a ``submission:SHA256`` address, or None for a network address."""
    if address.startswith(SUBMISSION_PREFIX):
        return address[len(SUBMISSION_PREFIX) :]
    return None
