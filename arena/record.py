"""Match logs: a header, then one record per deal start, decision, deal end,
and the match end; each a LogRecord (proto/arena/wire/v1/log.proto) preceded
by its length as a varint. Written and flushed record by record, so a crash
leaves a log readable up to its last complete record.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from google.protobuf.message import DecodeError

from arena.errors import RecordError
from arena.files import open_private
from arena.outcome import DecisionRecord, EngineInfo, MatchResult
from arena.rules import FinishedDeal
from arena.settings import MatchSettings
from arena.wire import convert
from arena.wire.protocol import MAX_LOG_RECORD_BYTES
from arena.wire.v1 import log_pb2

FORMAT_VERSION = 1
_MAGIC_FIRST_FIELD = 0x0A  # a LogRecord starting with field 1 (header), length-delimited


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


class LogWriter:
    """Appends records to a match log file, flushing each one.

    The referee calls one method per event, with plain values; the records
    themselves are built by the wire conversion module."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[bytes] | None = open_private(path)

    def write(self, record: log_pb2.LogRecord) -> None:
        if self._file is None:
            raise RecordError(f"{self.path}: log already closed")
        data = record.SerializeToString()
        self._file.write(_varint(len(data)) + data)
        self._file.flush()

    def header(
        self, settings: MatchSettings, engines: Sequence[EngineInfo], first_dealer: int
    ) -> None:
        self.write(convert.log_header(settings, engines, first_dealer, FORMAT_VERSION))

    def deal_started(
        self, number: int, dealer: int, deck: Sequence[int], void_decks: Sequence[Sequence[int]]
    ) -> None:
        self.write(convert.deal_started_record(number, dealer, deck, void_decks))

    def decision(self, record: DecisionRecord) -> None:
        self.write(convert.decision_record(record))

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


@dataclass
class LogContents:
    """What a log file holds. ``complete``: it ends with a MatchEnded record;
    ``truncated``: its last record was cut short (a crash while writing)."""

    records: list[log_pb2.LogRecord] = field(default_factory=list)
    complete: bool = False
    truncated: bool = False

    @property
    def header(self) -> log_pb2.LogHeader:
        return self.records[0].header


def read_log(path: Path) -> LogContents:
    """Read a match log; RecordError, saying where and why, if it is not one."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror}") from None
    if not data:
        raise RecordError(f"{path}: empty file, not a match log")
    contents = LogContents()
    pos = 0
    while pos < len(data):
        length, shift, start = 0, 0, pos
        while True:
            if pos >= len(data):
                contents.truncated = True
                return _finish(path, contents, start)
            byte = data[pos]
            pos += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
            if shift > 35:
                raise RecordError(f"{path}: byte {start}: bad record length, not a match log")
        if length > MAX_LOG_RECORD_BYTES:
            raise RecordError(f"{path}: byte {start}: record of {length} bytes, not a match log")
        if pos + length > len(data):
            contents.truncated = True
            break
        record = log_pb2.LogRecord()
        try:
            record.ParseFromString(data[pos : pos + length])
        except DecodeError:
            raise RecordError(
                f"{path}: byte {start}: record {len(contents.records)} is corrupt"
            ) from None
        pos += length
        contents.records.append(record)
    return _finish(path, contents, pos)


def _finish(path: Path, contents: LogContents, at: int) -> LogContents:
    if not contents.records or contents.records[0].WhichOneof("record") != "header":
        raise RecordError(f"{path}: does not start with a log header, not a match log")
    version = contents.header.format_version
    if version != FORMAT_VERSION:
        raise RecordError(
            f"{path}: log format version {version}; this arena reads version {FORMAT_VERSION}"
        )
    contents.complete = contents.records[-1].WhichOneof("record") == "match_ended"
    return contents
