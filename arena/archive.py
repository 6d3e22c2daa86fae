"""Bots arrive as archives made by strangers, so unpacking trusts nothing in them:
not their names, not their links, not the sizes they declare. Anything odd is
refused with a message naming the member, and a refused archive leaves nothing
behind. ``pack`` is the other side: the participant's tool, deterministic so the
same bot always gives the same bytes."""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import stat
import tarfile
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, cast

from arena.errors import ConfigError
from arena.wire.protocol import MAX_SUBMISSION_BYTES

MIB = 1 << 20
CHUNK = 64 * 1024
BOMB_FLOOR = 16 * MIB
MAX_NAME_BYTES = 1024
MAX_COMPONENT_BYTES = 255
MAX_DEPTH = 32
MAX_LINK_HOPS = 40
ZIP_ENTRY_BYTES = 46 + MAX_NAME_BYTES + 256  # a central directory record, with room for extras
DIR_MODE = 0o755
SKIPPED_DIRS = frozenset({".git", "__pycache__"})
_DRIVE = re.compile(r"^[A-Za-z]:")
_SPECIAL_KINDS = {
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
    stat.S_IFIFO: "FIFO",
    stat.S_IFSOCK: "socket",
}
_TAR_KINDS = {
    tarfile.LNKTYPE: "hard link",
    tarfile.CHRTYPE: "character device",
    tarfile.BLKTYPE: "block device",
    tarfile.FIFOTYPE: "FIFO",
}


@dataclass(frozen=True)
class Limits:
    """How much one uploaded bot may take from the server."""

    archive_bytes: int = MAX_SUBMISSION_BYTES  # as the server receives it
    files: int = 10_000
    unpacked_bytes: int = 512 * MIB
    ratio: int = 100


class ArchiveError(ConfigError):
    """An archive that is refused: unsafe, damaged, or over the limits."""


@dataclass(frozen=True)
class Unpacked:
    """Where the bot landed and how much of it there is."""

    root: Path
    files: int
    bytes: int


_DAMAGE = (
    tarfile.TarError,
    zipfile.BadZipFile,
    EOFError,
    zlib.error,
    OSError,
    ValueError,
    NotImplementedError,
)


class _Refused(Exception):
    """A reason to refuse, before the label is known to prefix it."""


@dataclass(frozen=True)
class _Member:
    name: str
    kind: str  # "file", "dir" or "link"
    executable: bool = False
    target: str = ""
    content: Callable[[], IO[bytes]] | None = None


def _mib(size: int) -> str:
    if size < MIB:
        return f"{size:,} bytes"
    mib = size / MIB
    return f"{mib:.0f} MiB" if mib == int(mib) else f"{mib:.1f} MiB"


def archive_format(data: bytes) -> str:
    """Tell the format by its magic bytes: file names and headers lie."""
    if data.startswith(b"\x1f\x8b"):
        return "tar.gz"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    raise ArchiveError("not a tar.gz or zip archive")


def unpack(
    data: bytes, dest: Path, limits: Limits = Limits(), *, label: str = "archive"
) -> Unpacked:
    """Unpack ``data`` into the new directory ``dest``, or refuse it and leave no ``dest``."""
    if os.path.lexists(dest):
        raise ArchiveError(f"{label}: {dest} already exists")
    if len(data) > limits.archive_bytes:
        raise ArchiveError(f"{label}: the archive is over {_mib(limits.archive_bytes)}")
    try:
        kind = archive_format(data)
    except ArchiveError as error:
        raise ArchiveError(f"{label}: {error}") from None
    try:
        dest.mkdir(mode=DIR_MODE)
    except OSError as error:
        raise ArchiveError(f"{label}: cannot create {dest}: {error}") from None
    try:
        os.chmod(dest, DIR_MODE)
        writer = _Writer(dest, limits, len(data))
        members = _tar_members(data, writer) if kind == "tar.gz" else _zip_members(data, limits)
        for member in members:
            writer.add(member)
        writer.make_links()
        return Unpacked(writer.root(), writer.files, writer.written)
    except _Refused as refusal:
        shutil.rmtree(dest, ignore_errors=True)
        raise ArchiveError(f"{label}: {refusal}") from None
    except _DAMAGE as error:
        shutil.rmtree(dest, ignore_errors=True)
        raise ArchiveError(f"{label}: damaged: {error}") from None
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _clean_parts(name: str) -> tuple[str, ...]:
    """The member's path as components, or the reason it is not a safe relative name."""
    if not name:
        raise _Refused("empty name")
    if any(unicodedata.category(char) == "Cc" for char in name):
        raise _Refused("control character in the name")
    if "\\" in name:
        raise _Refused("backslash in the name")
    if name.startswith("/") or _DRIVE.match(name):
        raise _Refused("absolute path")
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise _Refused(f"name over {MAX_NAME_BYTES} bytes")
    parts = tuple(part for part in name.split("/") if part not in ("", "."))
    if ".." in parts:
        raise _Refused("leads out of the archive")
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_COMPONENT_BYTES for part in parts):
        raise _Refused(f"a path component over {MAX_COMPONENT_BYTES} bytes")
    if len(parts) > MAX_DEPTH:
        raise _Refused(f"deeper than {MAX_DEPTH} directories")
    return parts


class _Writer:
    """Writes members under ``dest`` one by one, keeping the counts and the shape
    of the tree so duplicates and paths through links are caught before writing."""

    def __init__(self, dest: Path, limits: Limits, archive_size: int) -> None:
        self.dest = dest
        self.limits = limits
        self.bound = min(limits.unpacked_bytes, max(BOMB_FLOOR, limits.ratio * archive_size))
        self.kinds: dict[tuple[str, ...], str] = {}
        self.links: dict[tuple[str, ...], str] = {}
        self.entries = 0
        self.files = 0
        self.written = 0

    def add(self, member: _Member) -> None:
        try:
            self._add(member)
        except _Refused as refusal:
            raise _Refused(f"member {member.name!r}: {refusal}") from None

    def _add(self, member: _Member) -> None:
        self.entries += 1
        if self.entries > self.limits.files:
            raise _Refused(f"more than {self.limits.files} entries")
        parts = _clean_parts(member.name)
        if not parts:
            if member.kind == "dir":
                return
            raise _Refused("empty name")
        self._claim(parts, member.kind)
        if member.kind == "dir":
            self._make_dirs(parts)
        elif member.kind == "link":
            self._check_target(member.target)
            self.links[parts] = member.target
        else:
            assert member.content is not None
            self._make_dirs(parts[:-1])
            self._write_file(parts, member)

    def _claim(self, parts: tuple[str, ...], kind: str) -> None:
        """Record the path, refusing it when the archive already has it or it
        lies under a file or a symbolic link."""
        for depth in range(1, len(parts)):
            above = self.kinds.setdefault(parts[:depth], "implied")
            if above == "link":
                raise _Refused(f"lies under the symbolic link {'/'.join(parts[:depth])!r}")
            if above == "file":
                raise _Refused("appears twice (a file where a directory is)")
        seen = self.kinds.get(parts)
        if seen is not None and not (seen == "implied" and kind == "dir"):
            raise _Refused("appears twice")
        self.kinds[parts] = kind

    def _make_dirs(self, parts: tuple[str, ...]) -> None:
        path = self.dest
        for part in parts:
            path = path / part
            try:
                os.mkdir(path, DIR_MODE)
                os.chmod(path, DIR_MODE, follow_symlinks=False)
            except FileExistsError:
                pass
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                raise _Refused(f"{path.relative_to(self.dest)} is not a directory")

    def _write_file(self, parts: tuple[str, ...], member: _Member) -> None:
        assert member.content is not None
        mode = 0o755 if member.executable else 0o644
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(self.dest.joinpath(*parts), flags, mode)
        try:
            os.fchmod(fd, mode)
            with member.content() as source:
                while chunk := source.read(CHUNK):
                    if self.written + len(chunk) > self.bound:
                        raise _Refused(
                            f"unpacks to more than {_mib(self.bound)}: a decompression bomb?"
                        )
                    _write_all(fd, chunk)
                    self.written += len(chunk)
        finally:
            os.close(fd)
        self.files += 1

    def _check_target(self, target: str) -> None:
        if not target or "\x00" in target:
            raise _Refused("symbolic link with an empty target")
        if target.startswith("/") or "\\" in target or _DRIVE.match(target):
            raise _Refused(f"link to {target!r} leads out of the archive")

    def _resolve(self, start: tuple[str, ...], target: str, hops: int) -> tuple[str, ...]:
        """Where ``target`` leads from ``start``, following the archive's links
        as the system would, so chains and ``..`` after a link are judged right."""
        here = list(start)
        for part in target.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not here:
                    raise _Refused(f"link to {target!r} leads out of the archive")
                here.pop()
                continue
            here.append(part)
            through = self.links.get(tuple(here))
            if through is not None:
                if hops >= MAX_LINK_HOPS:
                    raise _Refused("too many levels of symbolic links")
                here = list(self._resolve(tuple(here[:-1]), through, hops + 1))
        return tuple(here)

    def make_links(self) -> None:
        """Links come last, so no file is ever written through one."""
        for parts, target in self.links.items():
            try:
                self._resolve(parts[:-1], target, 0)
                self._make_dirs(parts[:-1])
            except _Refused as refusal:
                raise _Refused(f"member {'/'.join(parts)!r}: {refusal}") from None
            os.symlink(target, self.dest.joinpath(*parts))

    def root(self) -> Path:
        """The one top-level directory when that is all there is (people tar a folder)."""
        tops = {parts[0] for parts in self.kinds}
        if len(tops) == 1:
            (top,) = tops
            if self.kinds.get((top,)) in ("dir", "implied"):
                return self.dest / top
        return self.dest


def _write_all(fd: int, chunk: bytes) -> None:
    view = memoryview(chunk)
    while view:
        view = view[os.write(fd, view) :]


class _Inflated:
    """The tar stream inside the gzip, refused once it runs past ``cap``: tarfile
    reads pax headers whole into memory, whatever size they declare."""

    def __init__(self, data: bytes, cap: int) -> None:
        self._gzip = gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb")
        self._cap = cap

    def _check(self, end: int) -> None:
        if end > self._cap:
            raise _Refused(f"unpacks to more than {_mib(self._cap)}: a decompression bomb?")

    def read(self, size: int = -1) -> bytes:
        self._check(self._gzip.tell() + (size if size >= 0 else self._cap + 1))
        return self._gzip.read(size)

    def seek(self, offset: int) -> int:
        self._check(offset)
        return self._gzip.seek(offset)

    def tell(self) -> int:
        return self._gzip.tell()

    def seekable(self) -> bool:
        return True


def _tar_members(data: bytes, writer: _Writer) -> Iterator[_Member]:
    cap = writer.bound + MIB + 4096 * writer.limits.files
    with tarfile.open(fileobj=cast(IO[bytes], _Inflated(data, cap)), mode="r:") as tar:
        for info in tar:
            if info.isreg():
                content = partial(_tar_content, tar, info)
                yield _Member(info.name, "file", bool(info.mode & 0o111), content=content)
            elif info.isdir():
                yield _Member(info.name, "dir")
            elif info.issym():
                yield _Member(info.name, "link", target=info.linkname)
            else:
                kind = _TAR_KINDS.get(info.type, f"member of type {info.type!r}")
                raise _Refused(f"member {info.name!r}: {kind} not allowed")


def _tar_content(tar: tarfile.TarFile, info: tarfile.TarInfo) -> IO[bytes]:
    return cast(IO[bytes], tar.extractfile(info))  # None only for members that are not files


def _central_directory_size(data: bytes) -> int:
    """What zipfile will read whole before the first member, as the end record declares it."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 0xFFFF))
    if end < 0:
        return 0
    locator = end - 20
    if locator >= 56 and data[locator : locator + 4] == b"PK\x06\x07":
        return int.from_bytes(data[locator - 16 : locator - 8], "little")
    return int.from_bytes(data[end + 12 : end + 16], "little")


def _zip_members(data: bytes, limits: Limits) -> Iterator[_Member]:
    if _central_directory_size(data) > limits.files * ZIP_ENTRY_BYTES:
        raise _Refused(f"more than {limits.files} entries")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            name = info.filename
            if info.flag_bits & 0x1:
                raise _Refused(f"member {name!r}: encrypted")
            mode = info.external_attr >> 16
            file_type = stat.S_IFMT(mode)
            if info.is_dir() or file_type == stat.S_IFDIR:
                yield _Member(name, "dir")
            elif file_type == stat.S_IFLNK:
                with archive.open(info) as source:
                    raw = source.read(MAX_NAME_BYTES + 1)
                if len(raw) > MAX_NAME_BYTES:
                    raise _Refused(f"member {name!r}: link target over {MAX_NAME_BYTES} bytes")
                target = raw.decode("utf-8", "surrogateescape")
                yield _Member(name, "link", target=target)
            elif file_type in (0, stat.S_IFREG):
                content = partial(archive.open, info)
                yield _Member(name, "file", bool(mode & 0o111), content=content)
            else:
                kind = _SPECIAL_KINDS.get(file_type, f"file type {file_type:o}")
                raise _Refused(f"member {name!r}: {kind} not allowed")


def pack(
    directory: Path, limits: Limits = Limits(), skipped: frozenset[str] = SKIPPED_DIRS
) -> bytes:
    """A deterministic tar.gz of ``directory``: the same tree always gives the
    same bytes. Directories named in ``skipped`` are left out."""
    entries = list(_tree(directory, (), skipped))
    if len(entries) > limits.files:
        raise ArchiveError(f"{directory}: more than {limits.files} entries")
    buffer = io.BytesIO()
    unpacked = 0
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path, name in entries:
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            status = os.lstat(path)
            if stat.S_ISDIR(status.st_mode):
                info.type, info.mode = tarfile.DIRTYPE, DIR_MODE
                tar.addfile(info)
            elif stat.S_ISLNK(status.st_mode):
                info.type, info.mode = tarfile.SYMTYPE, 0o777
                info.linkname = _inside_target(directory, path, name)
                tar.addfile(info)
            else:
                info.mode = 0o755 if status.st_mode & 0o111 else 0o644
                info.size = status.st_size
                unpacked += status.st_size
                if unpacked > limits.unpacked_bytes:
                    raise ArchiveError(f"{directory}: over {_mib(limits.unpacked_bytes)}")
                with open(path, "rb") as source:
                    tar.addfile(info, source)
    data = buffer.getvalue()
    if len(data) > limits.archive_bytes:
        raise ArchiveError(f"{directory}: the archive is over {_mib(limits.archive_bytes)}")
    return data


def _tree(
    directory: Path, relative: tuple[str, ...], skipped: frozenset[str]
) -> Iterator[tuple[Path, str]]:
    """Paths to pack, sorted, without the ``skipped`` directories or byte code."""
    with os.scandir(directory.joinpath(*relative)) as scan:
        entries = sorted(scan, key=lambda entry: entry.name)
    for entry in entries:
        parts = (*relative, entry.name)
        name = "/".join(parts)
        if entry.is_dir(follow_symlinks=False):
            if entry.name in skipped:
                continue
            yield Path(entry.path), name
            yield from _tree(directory, parts, skipped)
        elif entry.is_symlink() or entry.is_file(follow_symlinks=False):
            if entry.name == ".git" or entry.name.endswith(".pyc"):
                continue
            yield Path(entry.path), name
        else:
            file_type = stat.S_IFMT(entry.stat(follow_symlinks=False).st_mode)
            kind = _SPECIAL_KINDS.get(file_type, "special file")
            raise ArchiveError(f"{directory}: {name!r}: {kind} not allowed")


def _inside_target(directory: Path, link: Path, name: str) -> str:
    """The link's target, when it stays inside both as written and as the system resolves it."""
    target = os.readlink(link)
    written = os.path.normpath(os.path.join(os.path.dirname(name), target))
    lands = Path(os.path.realpath(link))
    if (
        os.path.isabs(target)
        or written == ".."
        or written.startswith("../")
        or not lands.is_relative_to(os.path.realpath(directory))
    ):
        raise ArchiveError(f"{directory}: {name!r}: link to {target!r} leads out of the directory")
    return target
