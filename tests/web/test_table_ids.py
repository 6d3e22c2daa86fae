"""The match ids the table's matches and the server's challenges tell their
bots have the one shape of every id a bot is told, probes' included
(docs/audit.md): a spy bot records the requests it is sent."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from arena.wire.protocol import is_match_id
from arena.wire.v1 import engine_pb2
from tests.support.bots import bot, recorded
from tests.support.processes import ended
from tests.support.server import register
from tests.support.tables import host_table
from tests.support.waiting import until

from .test_table import play_by_requests

pytestmark = pytest.mark.process


def told(record: Path) -> list[str]:
    """The match id of every request the spy recorded, in order."""
    return [engine_pb2.DecisionRequest.FromString(raw).match_id for raw in recorded(record)]


@contextmanager
def spy_at_an_address(record: Path) -> Iterator[str]:
    proc = subprocess.Popen(bot("spy", "--record", str(record)).split(), stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().decode().split()[1]
    finally:
        proc.terminate()
        ended(proc)


def test_a_table_tells_its_bot_an_id_of_the_one_shape(tmp_path):
    record = tmp_path / "spy.bin"
    with spy_at_an_address(record) as address:
        table = host_table(["me=human", f"spy={address}"], "--deals", "1", "--seed", "4")
        try:
            play_by_requests(table, 0, bad_first=False)
            assert table.wait() == 0
        finally:
            table.stop()
    ids = told(record)
    assert len(ids) == 18 and len(set(ids)) == 1 and is_match_id(ids[0]), ids[:2]


def test_a_challenge_tells_its_bot_an_id_of_the_one_shape(server_site, tmp_path):
    record = tmp_path / "spy.bin"
    base, stub = server_site.base, server_site.stub()
    with spy_at_an_address(record) as address:
        token = register(stub, "dave", "dave-spy", address)  # the server checks it first
        checked = len(told(record))
        auth = {"Authorization": f"Bearer {token}"}
        opened = requests.post(
            base + "/api/challenges", json={"opponent": "dave-spy"}, headers=auth, timeout=30
        )
        assert opened.status_code == 201, opened.text
        path, secret = opened.json()["seat"].split("#")
        api, seat = base + "/api" + path, {"Authorization": f"Bearer {secret}"}
        # Play the person's moves until the bot has been asked once.
        with requests.get(api + "/events", headers=seat, stream=True, timeout=60) as stream:
            kind, ident = "", ""
            for line in stream.iter_lines(decode_unicode=True):
                if len(told(record)) > checked:
                    break
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("id: "):
                    ident = line[4:]
                elif line.startswith("data: ") and kind == "decision":
                    move = {"ask": int(ident), "move": json.loads(line[6:])["legalMoves"][0]}
                    sent = requests.post(api + "/move", json=move, headers=seat, timeout=30)
                    assert sent.status_code == 200, sent.text
            until(lambda: len(told(record)) > checked, 30, "the bot's first decision")
    challenge_ids = set(told(record)[checked:])
    assert len(challenge_ids) == 1 and is_match_id(challenge_ids.pop())
