"""Uploaded bots in a ladder: each upload of an entered bot enters as a new
version, validated in the sandbox like the first; the day's limit refuses
the upload that would pass it, and nothing changes."""

from __future__ import annotations

import grpc
import pytest

from arena.archive import pack
from arena.server.submissions import submission_digest
from arena.transport import sandbox
from arena.wire.v1 import server_pb2 as spb
from tests.server.test_ladder import create_ladder, enter, until, versions
from tests.server.test_submissions import bot_dir, participant, submit

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}"
    ),
]


@pytest.mark.timeout(300)
def test_each_upload_of_an_entered_bot_is_a_new_version(server, tmp_path):
    stub = server.stub()
    alice = participant(stub, "alice")
    first = submit(stub, alice, pack(bot_dir(tmp_path / "a1", "alice-up", "1.0")))
    comp = create_ladder(
        stub,
        baselines='["builtin:random"]',
        active_versions=1,
        submissions_per_day=2,
        first_sets=1,
    )
    entered = enter(stub, alice, comp, "alice-up")
    assert submission_digest(entered.address) == first.sha256
    second = submit(stub, alice, pack(bot_dir(tmp_path / "a2", "alice-up", "2.0")))
    now = versions(stub, comp)
    assert submission_digest(now["alice-up@2"].address) == second.sha256
    until(lambda: versions(stub, comp)["alice-up@2"].state == "active", 240, "@2 validated")
    assert versions(stub, comp)["alice-up@1"].state == "retired"

    with pytest.raises(grpc.RpcError) as over:
        submit(stub, alice, pack(bot_dir(tmp_path / "a3", "alice-up", "3.0")))
    assert over.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "the next is allowed from" in over.value.details()
    bots = {b.name: b for b in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots}
    assert submission_digest(bots["alice-up"].address) == second.sha256  # unchanged
    assert set(versions(stub, comp)) == {"alice-up@1", "alice-up@2"}
