"""Every POST route of the table and of the server's challenges, sent every
kind of body a page never sends, over real HTTP: each is answered 400 with
one line saying what is wrong, never 500 or a traceback; and the match goes
on, the person no worse for it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import pytest
import requests

from arena.logs.replay import replay_log
from arena.match.outcome import Termination
from arena.web.app import MAX_JSON_DEPTH
from arena.web.challenges import MAX_BODY_BYTES as CHALLENGE_BYTES
from arena.web.table import MAX_BODY_BYTES as SEAT_BYTES
from tests.support.tables import host_table

from .test_challenges import participant
from .test_table import play_by_requests

pytestmark = pytest.mark.process

JSON = {"Content-Type": "application/json"}


def bad_bodies(limit: int, typed: Sequence[dict]) -> list[tuple[str, bytes, dict, str]]:
    """(what, body, headers, what the reason says) for each malformed body
    of a route taking at most ``limit`` bytes; ``typed``: bodies whose last
    field is of the wrong type."""
    deep = limit // 2 - 8  # as deep as the size allows: past Python's recursion limit
    cases = [
        ("nested", b'{"x": ' + b"[" * deep + b"]" * deep + b"}", JSON, f"{MAX_JSON_DEPTH} levels"),
        ("oversized", b'{"x": "' + b"y" * (4 * limit) + b'"}', JSON, f"at most {limit} bytes"),
        ("an array", b"[1, 2]", JSON, "a JSON object"),
        ("a string", b'"hello"', JSON, "a JSON object"),
        ("no content type", b"{}", {}, "Content-Type: application/json"),
        ("a form", b"name=Ada", {"Content-Type": "application/x-www-form-urlencoded"}, "JSON"),
        ("text", b"{}", {"Content-Type": "text/plain"}, "Content-Type: application/json"),
        ("not JSON", b"{name: Ada}", JSON, "not JSON"),
        ("cut short", b'{"name": "Ada"', JSON, "not JSON"),
        ("empty", b"", JSON, "not JSON"),
        ("not UTF-8", b'{"name": "\xff\xfe"}', JSON, "not UTF-8"),
        ("missing fields", b"{}", JSON, "is missing"),
    ]
    for body in typed:
        name, value = list(body.items())[-1]
        what = f"{name} as {type(value).__name__}"
        cases.append((what, json.dumps(body).encode(), JSON, f"{name!r} is not"))
    return cases


def oversized_in_chunks(limit: int) -> Iterator[bytes]:
    """A body with no length announced, sent in chunks past the limit."""
    yield b'{"x": "'
    for _ in range(4 * limit // 1024):
        yield b"y" * 1024
    yield b'"}'


def refused_each(url: str, auth: dict[str, str], limit: int, typed: Sequence[dict]) -> None:
    """Send every bad body to ``url``: each must get 400 and its reason."""
    for what, body, headers, says in bad_bodies(limit, typed):
        reply = requests.post(url, data=body, headers={**auth, **headers}, timeout=30)
        assert reply.status_code == 400, (what, reply.status_code, reply.text[:300])
        reason = reply.json()["error"]  # JSON, and one line that says why
        assert says in reason and "\n" not in reason, (what, reason)
    chunked = requests.post(
        url, data=oversized_in_chunks(limit), headers={**auth, **JSON}, timeout=30
    )
    assert chunked.status_code == 400 and f"at most {limit} bytes" in chunked.json()["error"]


def test_every_bad_body_at_the_table_gets_400_with_its_reason(tmp_path):
    log = tmp_path / "m.log"
    table = host_table(["me=human", "g=builtin:greedy"], "--deals", "1", "--seed", "3", log=log)
    try:
        sit, move = table.base + "/api/seat/sit", table.base + "/api/seat/move"
        refused_each(sit, table.auth(0), SEAT_BYTES, [{"name": 5}, {"name": ["Ada"]}])
        typed = [{"ask": "1"}, {"ask": True}, {"ask": 1.5}, {"ask": 1, "move": [1]}]
        refused_each(move, table.auth(0), SEAT_BYTES, [*typed, {"ask": 1, "move": "1d"}])
        # The person sits and plays; the bad bodies cost them nothing.
        play_by_requests(table, 0, bad_first=False)
        assert table.wait() == 0
    finally:
        table.stop()
    replayed = replay_log(log)
    assert replayed.result.termination is Termination.COMPLETED and not replayed.result.faults


def test_every_bad_body_at_a_challenge_gets_400_with_its_reason(server_site):
    base, stub = server_site.base, server_site.stub()
    token = participant(stub, "carol")
    auth = {"Authorization": f"Bearer {token}"}
    url = base + "/api/challenges"
    typed = [{"opponent": 5}, {"opponent": ["builtin:greedy"]}]
    refused_each(url, auth, CHALLENGE_BYTES, [*typed, {"opponent": "builtin:greedy", "game": 1}])
    # The seat of a challenge, at its own addresses.
    opened = requests.post(url, json={"opponent": "builtin:greedy"}, headers=auth, timeout=30)
    assert opened.status_code == 201, opened.text
    path, secret = opened.json()["seat"].split("#")
    seat = {"Authorization": f"Bearer {secret}"}
    api = base + "/api" + path
    refused_each(api + "/sit", seat, SEAT_BYTES, [{"name": 5}])
    refused_each(api + "/move", seat, SEAT_BYTES, [{"ask": "1"}, {"ask": 1, "move": 5}])
    # The server is still itself: the challenge is there, and its seat answers.
    record = requests.get(base + f"/challenges/{opened.json()['id']}?format=json", timeout=10)
    assert record.status_code == 200 and record.json()["challenge"]["status"] == "running"
    with requests.get(api + "/events", headers=seat, stream=True, timeout=30) as reply:
        assert reply.status_code == 200
        assert next(reply.iter_lines(decode_unicode=True)) == "event: seat"
