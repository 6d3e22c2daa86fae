"""Match logs: a header, then one record per deal start, decision, deal end,
and the match end; each a LogRecord (proto/arena/wire/v1/log.proto) preceded
by its length as a varint. Written and flushed record by record, so a crash
leaves a log readable up to its last complete record.

Since format version 2 every record ends with a hash chain value over the
log up to and including it (log.proto and docs/logs.md define it), so that
an edit anywhere is evident: ``read_log`` checks the framing and the chain,
``arena.logs.replay`` then checks every record against the rules.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from google.protobuf.message import DecodeError

from arena.errors import RecordError, VerifyError
from arena.files import open_private
from arena.match.outcome import DecisionRecord, EngineInfo, MatchResult, SeatLaunch, decision_text
from arena.match.settings import MatchSettings
from arena.rules import FinishedDeal
from arena.wire import convert
from arena.wire.convert.engine_bytes import decision_record_bytes, varint
from arena.wire.protocol import MAX_LOG_RECORD_BYTES
from arena.wire.v1 import log_pb2

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
# The hash chain: chain_0 = SHA-256(CHAIN_SEED); chain_i = SHA-256(chain_{i-1} || body_i),
# body_i being record i as stored without its chain field, which follows it as
# its last 34 bytes: CHAIN_TAG, then the 32 bytes of chain_i.
CHAIN_SEED = b"scopa-arena/log/v2"
CHAIN_TAG = b"\x7a\x20"  # LogRecord field 15 (chain), length-delimited, 32 bytes
_TRAILER = len(CHAIN_TAG) + 32
CHAIN_BREAKS = (
    "the hash chain breaks here: this record or its length prefix was changed after it was written"
)
_LONGEST_VARINT = 10


def chain_start() -> bytes:
    """chain_0, the value before the first record."""
    return hashlib.sha256(CHAIN_SEED).digest()


def chain_next(previous: bytes, body: bytes) -> bytes:
    """The chain value of a record whose bytes, without its chain field, are ``body``."""
    return hashlib.sha256(previous + body).digest()


@functools.cache
def source_revision() -> str:
    """The git commit of the arena's own source when it runs from a checkout, else "".

    Read from the repository's files, not by running git: no process is
    started (a match may run where none may be), it costs a fraction of a
    millisecond once, and anything unexpected simply gives ""."""
    try:
        return _git_head(Path(__file__).resolve().parents[2])
    except Exception:  # a log is written with or without it
        return ""


def _git_head(root: Path) -> str:
    dot_git = root / ".git"
    if dot_git.is_file():  # a worktree or submodule: "gitdir: PATH"
        text = dot_git.read_text(encoding="utf-8").strip()
        if not text.startswith("gitdir:"):
            return ""
        git_dir = (root / text.removeprefix("gitdir:").strip()).resolve()
    elif dot_git.is_dir():
        git_dir = dot_git
    else:
        return ""
    common = git_dir
    if (git_dir / "commondir").is_file():
        common = (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    if not head.startswith("ref: "):
        return _commit_id(head)  # a detached HEAD
    ref = head.removeprefix("ref: ").strip()
    for where in (git_dir, common):
        if (where / ref).is_file():
            return _commit_id((where / ref).read_text(encoding="utf-8").strip())
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            commit, _, name = line.partition(" ")
            if name == ref:
                return _commit_id(commit)
    return ""


def _commit_id(text: str) -> str:
    return text if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", text) else ""


class LogWriter:
    """Appends records to a match log file, flushing each one.

    The referee calls one method per event, with plain values; the records
    themselves are built by the wire conversion module. ``launches``: how
    each seat's engine was reached, for the header."""

    def __init__(self, path: Path, launches: Sequence[SeatLaunch] = ()) -> None:
        self.path = path
        self.launches = tuple(launches)
        self.chain = chain_start()  # the value of the last record written
        self._file: IO[bytes] | None = open_private(path)

    def write(self, record: log_pb2.LogRecord) -> None:
        """Append one record with its chain value (any it carries is replaced)."""
        if record.chain:
            record = _without_chain(record)
        self._append(record.SerializeToString())

    def _append(self, body: bytes) -> None:
        """Write a record's bytes (without its chain field) and its chain value."""
        if self._file is None:
            raise RecordError(f"{self.path}: log already closed")
        self.chain = chain_next(self.chain, body)
        data = body + CHAIN_TAG + self.chain
        self._file.write(varint(len(data)) + data)
        self._file.flush()

    def header(
        self, settings: MatchSettings, engines: Sequence[EngineInfo], first_dealer: int
    ) -> None:
        self.write(
            convert.log_header(
                settings, engines, first_dealer, FORMAT_VERSION, self.launches, source_revision()
            )
        )

    def deal_started(
        self, number: int, dealer: int, deck: Sequence[int], void_decks: Sequence[Sequence[int]]
    ) -> None:
        self.write(convert.deal_started_record(number, dealer, deck, void_decks))

    def decision(self, record: DecisionRecord) -> None:
        body = decision_record_bytes(record)  # the usual record, built for less
        if body is None:
            self.write(convert.decision_record(record))
        else:
            self._append(body)

    def deal_ended(self, deal: FinishedDeal) -> None:
        self.write(convert.deal_ended_record(deal))

    def match_ended(self, result: MatchResult) -> None:
        """The last record: written, then the file is synced and closed."""
        self.write(convert.match_ended_record(result))
        self.close()

    def discard(self) -> None:
        """Close and remove a log that never got its header (the match did not start)."""
        if self._file is not None and self._file.tell() == 0:
            self._file.close()
            self._file = None
            self.path.unlink(missing_ok=True)

    def close(self) -> None:
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None


def _without_chain(record: log_pb2.LogRecord) -> log_pb2.LogRecord:
    copy = log_pb2.LogRecord()
    copy.CopyFrom(record)
    copy.ClearField("chain")
    return copy


@dataclass
class LogContents:
    """What a log file holds. ``complete``: it ends with a MatchEnded record;
    ``truncated``: its last record was cut short (a crash while writing);
    ``chain``: the hash chain's value at the last complete record (None: a
    version-1 log, which has no chain); ``offsets``: where each record starts."""

    path: Path | None = None
    records: list[log_pb2.LogRecord] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    complete: bool = False
    truncated: bool = False
    chain: bytes | None = None

    @property
    def header(self) -> log_pb2.LogHeader:
        return self.records[0].header

    @property
    def format_version(self) -> int:
        return self.header.format_version

    @property
    def note(self) -> str:
        """What a reader should know about how far this log can be trusted."""
        if self.chain is not None:
            return ""
        return (
            "a version-1 log: it has no hash chain, so only the rules check it "
            "(an edit they allow, such as a think time, would go unnoticed)"
        )


def read_log(path: Path) -> LogContents:
    """Read a match log, checking its framing and (version 2) its hash chain.

    Raises RecordError if the file is no log this arena reads (missing, empty,
    foreign, an unknown format version), and VerifyError, naming the first
    record at fault, if it was changed after it was written: a record whose
    chain value does not match, a damaged length prefix, bytes after the end
    record. A log that simply stops (a crash) is no error: it is not
    ``complete``, and ``truncated`` if its last record was cut short."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror}") from None
    if not data:
        raise RecordError(f"{path}: empty file, not a match log")
    try:
        return _Reader(path, data).read()
    except VerifyError as e:
        raise e.at(path) from None


class _Reader:
    def __init__(self, path: Path, data: bytes) -> None:
        self.path = path
        self.data = data
        self.contents = LogContents(path)
        self.chain = chain_start()
        self.version = 0  # known once the header is read

    @property
    def chained(self) -> bool:
        """Whether records carry chain values: version 2, or the header (it may be)."""
        return self.version == 2 or not self.contents.records

    def read(self) -> LogContents:
        data, contents, pos = self.data, self.contents, 0
        while pos < len(data):
            if contents.complete:
                raise VerifyError(
                    f"{len(data) - pos} byte(s) after the end of the match (from byte {pos}): "
                    "nothing follows a log's end record"
                )
            number, start = len(contents.records) + 1, pos
            prefix = _read_varint(data, pos)
            if prefix is None:  # cut inside the length prefix
                contents.truncated = True
                break
            length, pos, canonical = prefix
            if not canonical or length > MAX_LOG_RECORD_BYTES:
                raise self._damaged_prefix(number, start, length)
            if pos + length > len(data):
                if self.chained and _chained_record_at(data, start, self.chain) is not None:
                    raise self._damaged_prefix(number, start, length)
                contents.truncated = True
                break
            self._record(number, start, data[pos : pos + length], pos + length)
            pos += length
        if not contents.records:
            raise RecordError(f"{self.path}: does not start with a log header, not a match log")
        contents.chain = self.chain if self.version == 2 else None
        return contents

    def _damaged_prefix(self, number: int, start: int, length: int) -> RecordError:
        if number == 1 and _chained_record_at(self.data, start, self.chain) is None:
            return RecordError(f"{self.path}: byte {start}: bad record length, not a match log")
        return VerifyError(
            f"record {number} (byte {start}): its length prefix ({length} bytes) is damaged: "
            "it does not frame the record that follows"
        )

    def _record(self, number: int, start: int, raw: bytes, end: int) -> None:
        record = _parse(raw)
        if number == 1:
            self._header(record, raw, end)
        if self.version == 2:
            self._check_chain(number, start, raw, record)
        if record is None:
            raise VerifyError(f"record {number} (byte {start}) is corrupt: it cannot be read")
        if self.version == 1 and record.chain:
            raise VerifyError(
                f"record {number} (byte {start}) carries a chain value, which no version-1 log "
                "has: the header's format version was changed"
            )
        kind = record.WhichOneof("record")
        if kind is None:
            raise VerifyError(f"record {number} (byte {start}) holds no known kind of record")
        if kind == "header" and number > 1:
            raise VerifyError(f"record {number} (byte {start}) is a second header")
        self.contents.records.append(record)
        self.contents.offsets.append(start)
        self.contents.complete = kind == "match_ended"

    def _header(self, record: log_pb2.LogRecord | None, raw: bytes, end: int) -> None:
        if record is None or record.WhichOneof("record") != "header":
            if _chain_continues(raw, self.data, end):
                raise VerifyError(
                    f"record 1 (byte 0, the header): {CHAIN_BREAKS}: it cannot be read"
                )
            raise RecordError(f"{self.path}: does not start with a log header, not a match log")
        version = record.header.format_version
        if version not in READABLE_VERSIONS:
            raise RecordError(
                f"{self.path}: log format version {version}; this arena reads versions "
                + " and ".join(map(str, READABLE_VERSIONS))
            )
        self.version = version

    def _check_chain(
        self, number: int, start: int, raw: bytes, record: log_pb2.LogRecord | None
    ) -> None:
        expected = chain_next(self.chain, raw[:-_TRAILER])
        if len(raw) < _TRAILER or raw[-_TRAILER:-32] != CHAIN_TAG or raw[-32:] != expected:
            raise VerifyError(f"record {number} (byte {start}{_what(record)}): {CHAIN_BREAKS}")
        self.chain = expected


def _parse(raw: bytes) -> log_pb2.LogRecord | None:
    record = log_pb2.LogRecord()
    try:
        record.ParseFromString(raw)
    except DecodeError:
        return None
    return record


def _what(record: log_pb2.LogRecord | None) -> str:
    """A record as an error message names it, when it can be read."""
    kind = None if record is None else record.WhichOneof("record")
    if record is None or kind is None:
        return ""
    if kind == "header":
        return ", the header"
    if kind == "deal_started":
        return f", the start of deal {record.deal_started.deal_number + 1}"
    if kind == "decision":
        d = record.decision
        return f", deal {d.deal_number + 1} {decision_text(d.decision)}"
    if kind == "deal_ended":
        return f", the end of deal {record.deal_ended.result.deal_number + 1}"
    return ", the end of the match"


def _read_varint(data: bytes, pos: int) -> tuple[int, int, bool] | None:
    """(value, the position after it, whether it is in its one shortest form);
    None if the data ends inside it."""
    value = shift = 0
    start = pos
    while pos < len(data):
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos, pos - start == 1 or byte != 0
        shift += 7
        if pos - start == _LONGEST_VARINT:
            return value, pos, False
    return None


def _chain_continues(raw: bytes, data: bytes, end: int) -> bool:
    """Whether the record after ``raw`` (at ``end``) chains on from the value
    ``raw`` ends with: then the file is a log whose first record was damaged,
    not some other file."""
    prefix = _read_varint(data, end)
    if len(raw) < _TRAILER or raw[-_TRAILER:-32] != CHAIN_TAG or prefix is None:
        return False
    length, pos, _ = prefix
    following = data[pos : pos + length]
    return (
        len(following) == length >= _TRAILER
        and following[-_TRAILER:-32] == CHAIN_TAG
        and chain_next(raw[-32:], following[:-_TRAILER]) == following[-32:]
    )


def _chained_record_at(data: bytes, start: int, previous: bytes) -> int | None:
    """Where a complete record with a matching chain value ends, for a record
    whose length prefix begins at ``start`` and whose body begins at any of
    the next few bytes; None if there is none (the log really was cut short).

    This tells a damaged length prefix from a log cut short by a crash: a cut
    record never holds its own chain value. Each byte is hashed once per
    possible body start, so the search is linear in the rest of the log."""
    for body in range(start + 1, min(start + 1 + _LONGEST_VARINT, len(data))):
        digest = hashlib.sha256(previous)
        fed = body
        at = data.find(CHAIN_TAG, body)
        while at != -1 and at + _TRAILER <= len(data):
            digest.update(data[fed:at])
            fed = at
            if digest.digest() == data[at + 2 : at + _TRAILER]:
                return at + _TRAILER
            at = data.find(CHAIN_TAG, at + 1)
    return None
