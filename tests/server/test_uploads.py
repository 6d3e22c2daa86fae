"""The uploads service in plain Python, without a server: the caps on uploads
arriving at once and the refusals of an archive as it comes in (the whole flow
over gRPC is in test_submissions.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arena.server import uploads
from arena.server.storage import ServerStorage
from arena.server.submissions import SubmissionFiles
from arena.server.uploads import Refusal, UploadRefused, Uploads
from arena.wire.protocol import MAX_SUBMISSION_BYTES


@pytest.fixture
def service(tmp_path: Path) -> Uploads:
    # No trio loop: these never reach a bot check.
    return Uploads(ServerStorage(tmp_path / "server.sqlite"), SubmissionFiles(tmp_path), None)


async def chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def refusal(call) -> UploadRefused:
    with pytest.raises(UploadRefused) as caught:
        call()
    return caught.value


def test_uploads_arriving_at_once_are_capped_per_client_and_in_all(service, monkeypatch):
    monkeypatch.setattr(uploads, "UPLOADS_TOTAL", 3)
    with service.admitted("ipv4:10.0.0.1"), service.admitted("ipv4:10.0.0.1"):
        third = refusal(lambda: service.admitted("ipv4:10.0.0.1").__enter__())
        assert third.refusal is Refusal.BUSY and "per client" in str(third)
        with service.admitted("ipv4:10.0.0.2"):
            full = refusal(lambda: service.admitted("ipv4:10.0.0.3").__enter__())
            assert full.refusal is Refusal.BUSY and "try again soon" in str(full)
    with service.admitted("ipv4:10.0.0.1"):  # the ended ones no longer count
        pass


def test_an_archive_is_refused_as_soon_as_it_is_too_large_or_empty(service):
    big = bytes(MAX_SUBMISSION_BYTES // 2 + 1)
    seen = []

    async def counted() -> AsyncIterator[bytes]:
        for part in (big, big, b"never read"):
            seen.append(len(part))
            yield part

    large = refusal(lambda: asyncio.run(service.receive(counted())))
    assert large.refusal is Refusal.INVALID and f"{MAX_SUBMISSION_BYTES >> 20} MiB" in str(large)
    assert len(seen) == 2
    empty = refusal(lambda: asyncio.run(service.receive(chunks())))
    assert empty.refusal is Refusal.INVALID and str(empty) == "no archive was sent"
    assert asyncio.run(service.receive(chunks(b"ab", b"cd"))) == b"abcd"


def test_an_archive_that_comes_too_slowly_is_refused(service, monkeypatch):
    monkeypatch.setattr(uploads, "UPLOAD_SECONDS", 0.0)

    async def stalled() -> AsyncIterator[bytes]:
        yield b"\x1f\x8b"
        await asyncio.Event().wait()

    slow = refusal(lambda: asyncio.run(service.receive(stalled())))
    assert slow.refusal is Refusal.TOO_SLOW and "did not arrive within" in str(slow)
