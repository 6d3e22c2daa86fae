"""Uploaded bots as the server takes them in: how many arrive at once, the
archive's size and time limits, then storing it, checking the bot in its
sandbox and recording the outcome.

Plain Python: the gRPC handler (grpc_service.SubmitBot) checks who calls,
hands the chunks here, and turns an UploadRefused into a status code.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import shlex
import threading
from collections.abc import AsyncIterable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NoReturn

import trio

from arena.check import CheckItem, CheckReport, check_launched
from arena.errors import ArenaError, ConfigError
from arena.match.settings import SandboxMode, SandboxSettings
from arena.rules import Game
from arena.server.names import baseline_reason, taken_reason
from arena.server.public import PublicText
from arena.server.storage import ServerStorage, SubmissionRecord
from arena.server.submissions import Stored, SubmissionFiles
from arena.timestamps import utc_now
from arena.transport import sandbox
from arena.wire.protocol import MAX_SUBMISSION_BYTES

# An upload holds its archive in memory while it comes in: a few at a time.
UPLOADS_PER_CLIENT = 2
UPLOADS_TOTAL = 8
UPLOAD_SECONDS = 300.0  # to send the whole archive
CHECK_OUTPUT_BYTES = 4096  # of what a bot printed during its check, shown to its owner


class Refusal(enum.Enum):
    """Why an upload is refused, as the caller can act on it."""

    INVALID = "invalid"  # the archive: empty, too large, unsafe, no usable manifest
    NOT_OWNER = "not owner"  # the manifest names another participant's bot
    UNFIT = "unfit"  # the bot fails its check or was withdrawn; or no sandbox here
    TAKEN = "taken"  # the name, or the version with other files
    BUSY = "busy"  # as many uploads arriving as the server takes at once
    OVER_LIMIT = "over limit"  # a new version a ladder takes no more of today
    TOO_SLOW = "too slow"  # the archive did not arrive in UPLOAD_SECONDS


class UploadRefused(ArenaError):
    """An upload the server does not take, with the reason for its sender."""

    def __init__(self, refusal: Refusal, message: str) -> None:
        super().__init__(message)
        self.refusal = refusal


class Uploads:
    """The server's uploads: counted on its asyncio loop while they arrive,
    then stored and checked on threads of their own, so that a few slow checks
    never hold the threads other calls need; the checks run on the trio loop."""

    def __init__(
        self,
        storage: ServerStorage,
        files: SubmissionFiles,
        trio_token: trio.lowlevel.TrioToken,
        over_limit: Callable[[str, str], str | None] = lambda owner, bot: None,
    ) -> None:
        """``over_limit(owner, bot)``: why a new version of the bot may not
        be taken today (the ladders it is in count them), or None."""
        self._over_limit = over_limit
        self._public = PublicText(files.root.parent)  # the server's data directory
        self._storage = storage
        self._files = files
        self._trio_token = trio_token
        self._arriving: dict[str, int] = {}  # per client, on the asyncio loop
        self._threads = ThreadPoolExecutor(UPLOADS_TOTAL, thread_name_prefix="arena-upload")
        self._record_lock = threading.Lock()  # one submission's bookkeeping at a time

    @contextlib.contextmanager
    def admitted(self, client: str) -> Iterator[None]:
        """One more upload from ``client`` (a network address) while the block
        runs; refused beyond UPLOADS_PER_CLIENT, or UPLOADS_TOTAL in all."""
        if self._arriving.get(client, 0) >= UPLOADS_PER_CLIENT:
            raise UploadRefused(
                Refusal.BUSY, f"at most {UPLOADS_PER_CLIENT} uploads at a time per client"
            )
        if sum(self._arriving.values()) >= UPLOADS_TOTAL:
            raise UploadRefused(
                Refusal.BUSY,
                "the server is receiving as many uploads as it takes at once; try again soon",
            )
        self._arriving[client] = self._arriving.get(client, 0) + 1
        try:
            yield
        finally:
            self._arriving[client] -= 1
            if not self._arriving[client]:
                del self._arriving[client]

    async def receive(self, chunks: AsyncIterable[bytes]) -> bytes:
        """The archive, refused as soon as it is too large or too slow."""
        parts: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(UPLOAD_SECONDS):
                async for chunk in chunks:
                    size += len(chunk)
                    if size > MAX_SUBMISSION_BYTES:
                        raise UploadRefused(
                            Refusal.INVALID,
                            f"the archive is larger than {MAX_SUBMISSION_BYTES >> 20} MiB",
                        )
                    parts.append(chunk)
        except TimeoutError:
            raise UploadRefused(
                Refusal.TOO_SLOW, f"the archive did not arrive within {UPLOAD_SECONDS:g}s"
            ) from None
        if not size:
            raise UploadRefused(Refusal.INVALID, "no archive was sent")
        return b"".join(parts)

    async def submit(self, owner: str, data: bytes) -> SubmissionRecord:
        """Keep the archive, check the bot in its sandbox and record the
        outcome, on an upload thread; the record of an accepted submission."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._threads, self._submit, owner, data)

    def _submit(self, owner: str, data: bytes) -> SubmissionRecord:
        why_not = sandbox.unavailable()
        if why_not is not None:
            raise UploadRefused(Refusal.UNFIT, f"this server cannot run uploaded bots: {why_not}")
        try:
            stored = self._files.store(data)
        except ArenaError as e:
            raise UploadRefused(Refusal.INVALID, str(e)) from None
        manifest = stored.manifest
        self._may_submit(owner, stored)
        report, output = self._check(stored)
        record = SubmissionRecord(
            bot=manifest.name,
            sha256=stored.sha256,
            owner=owner,
            version=manifest.version,
            command=list(manifest.command),
            games=list(manifest.games),
            submitted_at=utc_now(),
            archive_bytes=stored.archive_bytes,
            files=stored.files,
            unpacked_bytes=stored.unpacked_bytes,
            check_passed=report.passed,
            check_items=[(i.name, i.passed, i.detail) for i in report.items],
            check_output=output,
        )
        with self._record_lock:
            self._may_submit(owner, stored)  # again: another upload may have won
            self._storage.add_submission(record)
            if not report.passed:
                raise UploadRefused(Refusal.UNFIT, failed_check(manifest.name, report))
            made = self._storage.submitted_bot(
                manifest.name,
                owner,
                stored.sha256,
                report.engine_name,
                report.engine_version,
                report.games,
                report.options,
            )
            if not made:
                self._refuse_taken(manifest.name)
        return record

    def _may_submit(self, owner: str, stored: Stored) -> None:
        """Refuse unless the manifest's bot is new or the caller's own, not
        withdrawn, and its version is not taken by other files."""
        name, version = stored.manifest.name, stored.manifest.version
        reserved = baseline_reason(name)
        if reserved is not None:
            raise UploadRefused(Refusal.INVALID, reserved)
        taken = self._storage.name_taken("bots", name)
        if taken is not None and taken != name:
            self._refuse_taken(name)
        bot = self._storage.bot(name)
        if bot is None:
            return
        if bot.owner != owner:
            raise UploadRefused(Refusal.NOT_OWNER, f"bot {name!r} belongs to another participant")
        if bot.withdrawn:
            raise UploadRefused(Refusal.UNFIT, f"bot {name!r} was withdrawn")
        why = self._over_limit(owner, name)
        if why is not None:
            raise UploadRefused(Refusal.OVER_LIMIT, why)
        for earlier in self._storage.submissions(name):
            same_version = earlier.version == version and earlier.sha256 != stored.sha256
            if same_version and earlier.check_passed:
                raise UploadRefused(
                    Refusal.TAKEN,
                    f"bot {name!r} already has a version {version!r} with other files "
                    f"(sha256 {earlier.sha256[:12]}); give this one a new version",
                )

    def _refuse_taken(self, name: str) -> NoReturn:
        taken = self._storage.name_taken("bots", name) or name
        raise UploadRefused(Refusal.TAKEN, taken_reason("bot", name, taken))

    def _check(self, stored: Stored) -> tuple[CheckReport, str]:
        """The conformance check of an upload, launched in its sandbox as its
        matches will be, in each game its manifest claims (none: each its
        handshake offers), and the end of what it printed meanwhile; the
        report as its owner reads it (see ``_as_owner_reads``)."""
        name = stored.manifest.name
        output = self._files.root / "checks" / f"{name}.{stored.sha256[:16]}.log"
        settings = SandboxSettings(mode=SandboxMode.ON)
        spec = shlex.join(stored.manifest.command)
        command = stored.manifest.engine.command
        claimed = [Game(g) for g in stored.manifest.games]
        try:
            report = trio.from_thread.run(
                lambda: check_launched(
                    command, settings, workdir=stored.workdir, output=output, claimed=claimed
                ),
                trio_token=self._trio_token,
            )
        except ConfigError as e:  # its program or script is not in the archive
            report = CheckReport(spec)
            report.items.append(CheckItem("launch", False, str(e)))
        try:
            with output.open("rb") as f:
                f.seek(max(0, output.stat().st_size - CHECK_OUTPUT_BYTES))
                tail = f.read().decode(errors="replace")
        except OSError:
            tail = ""
        return self._as_owner_reads(report, stored, output), tail

    def _as_owner_reads(self, report: CheckReport, stored: Stored, output: Path) -> CheckReport:
        """The report as a participant reads it, who has none of the server's
        files: the command as the manifest writes it, the bot's directory as
        its sandbox shows it (/bot), the output file as the call that gives
        its end, and no other path of the organiser's."""
        where = f"`arena remote submissions {stored.manifest.name}`"

        def shown(detail: str) -> str:
            detail = detail.replace(str(output), where).replace(str(stored.workdir), "/bot")
            return self._public(detail)

        return dataclasses.replace(
            report,
            address=shlex.join(stored.manifest.command),
            output="",
            items=[CheckItem(i.name, i.passed, shown(i.detail)) for i in report.items],
        )


def failed_check(bot: str, report: CheckReport) -> str:
    """Why an upload was refused, and where its owner reads the rest."""
    return (
        f"bot {bot!r} failed its check; this upload is kept in its history with the end of "
        f"what it printed: arena remote submissions {bot}\n{report.text()}"
    )
