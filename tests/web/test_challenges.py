"""Challenges on the competition server: a participant plays a registered
bot or a baseline at the site, unrated and apart from every competition, its
log kept and listed on their page; the organiser can turn challenges off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import requests

from arena.logs.replay import replay_log
from arena.match.outcome import Termination
from arena.wire.v1 import server_pb2 as spb
from tests.support.server import ORGANISER, register
from tests.support.sites import start_server
from tests.support.waiting import until

from .test_browser import Watched
from .test_table_browser import one_move

pytestmark = pytest.mark.process


def challenge(base: str, token: str | None, opponent: str) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.post(
        base + "/api/challenges", json={"opponent": opponent}, headers=headers, timeout=30
    )


def play_through(base: str, seat: str) -> int:
    """Answer every decision of the seat at ``seat`` (/challenges/ID/seat#SECRET)
    with its first legal move, as the page's requests do; how many."""
    path, secret = seat.split("#")
    api = "/api" + path
    headers = {"Authorization": f"Bearer {secret}"}
    moves = 0
    with requests.get(base + api + "/events", headers=headers, stream=True, timeout=120) as r:
        kind, ident = "", ""
        for line in r.iter_lines(decode_unicode=True):
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("id: "):
                ident = line[4:]
            elif line.startswith("data: ") and kind == "decision":
                data = json.loads(line[6:])
                move = {"ask": int(ident), "move": data["legalMoves"][0]}
                sent = requests.post(base + api + "/move", json=move, headers=headers, timeout=30)
                assert sent.status_code == 200, sent.text
                moves += 1
            elif line.startswith("event: end"):
                break
    return moves


def test_a_participant_challenges_a_baseline_and_a_registered_bot(server_site, bots, tmp_path):
    base, stub = server_site.base, server_site.stub()
    token = register(stub, "alice", "alice-greedy", bots["greedy"])
    home = requests.get(base + "/", timeout=10).text
    assert 'href="/challenge"' in home
    form = requests.get(base + "/challenge", timeout=10).text
    assert "alice-greedy" in form and "builtin:greedy" in form and "cheating" not in form
    # Only a participant's token opens one.
    assert challenge(base, None, "builtin:greedy").status_code == 401
    assert challenge(base, ORGANISER, "builtin:greedy").status_code == 401
    assert challenge(base, token, "builtin:cheating-mcts").status_code == 404
    assert challenge(base, token, "nobody").status_code == 404

    for opponent in ("builtin:greedy", "alice-greedy"):
        opened = challenge(base, token, opponent)
        assert opened.status_code == 201, opened.text
        cid, seat = opened.json()["id"], opened.json()["seat"]
        assert challenge(base, token, "builtin:random").status_code == 409  # one at a time
        assert play_through(base, seat) > 10
        record = until(
            lambda cid=cid: (
                (r := requests.get(f"{base}/challenges/{cid}?format=json", timeout=10).json())[
                    "challenge"
                ]["status"]
                == "done"
                and r
            ),
            30,
            "the challenge's record",
        )
        assert record["challenge"]["opponent"] == opponent and record["viewer"]["frames"]
        log = server_site_data(server_site) / "challenges" / f"{cid}.log"
        replayed = replay_log(log)
        assert replayed.result.termination is Termination.COMPLETED
        assert replayed.header.engines[0].engine_name == "human"
        assert replayed.header.engines[0].author == "alice"
    mine = requests.get(base + "/p/alice?format=json", timeout=10).json()["challenges"]
    assert sorted(c["opponent"] for c in mine) == ["alice-greedy", "builtin:greedy"]
    assert "alice-greedy" in requests.get(base + "/p/alice", timeout=10).text
    # Unrated and apart: no competition holds them.
    assert requests.get(base + "/api/competitions", timeout=10).json()["competitions"] == []


def server_site_data(site) -> Path:
    command = site.proc.args
    return Path(command[command.index("--data") + 1])


def participant(stub, name: str) -> str:
    """A participant with no bot of their own: their token."""
    return stub.RegisterParticipant(spb.RegisterParticipantRequest(name=name), timeout=10).token


def test_the_organiser_can_turn_challenges_off(tmp_path):
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    site = start_server(tmp_path / "data", token_file, "--no-challenges")
    try:
        token = participant(site.stub(), "bob")
        assert "turned challenges off" in requests.get(site.base + "/challenge", timeout=10).text
        assert 'href="/challenge"' not in requests.get(site.base + "/", timeout=10).text
        refused = challenge(site.base, token, "builtin:greedy")
        assert refused.status_code == 403 and "turned challenges off" in refused.json()["error"]
    finally:
        site.stop()


@pytest.mark.browser
def test_a_challenge_is_opened_and_played_in_the_browser(browser, server_site):
    base, stub = server_site.base, server_site.stub()
    token = participant(stub, "carol")
    watched = Watched(browser, base)
    try:
        watched.load("/challenge")
        page = watched.page
        page.fill('input[name="token"]', token)
        page.select_option('select[name="opponent"]', "builtin:greedy")
        page.click('#challenge-form button[type="submit"]')
        page.wait_for_url("**/seat#*")
        assert token not in page.url
        page.wait_for_selector("#hand button.playable", timeout=30_000)
        while one_move(page, by_keyboard=False):
            pass
        assert "Match over" in page.locator("#result").inner_text()
        watched.load("/p/carol")
        assert page.locator("#challenges tbody tr").count() == 1
    finally:
        watched.close()
