"""`arena match --http` over real HTTP on loopback: a person plays through
the requests the page makes; nobody without the seat's secret gets anything
hidden; the spectators see no hand, and however many of them share the
person's address, the seat is never starved; the log verifies."""

from __future__ import annotations

import json
import subprocess
import threading

import pytest
import requests

from arena.logs.replay import replay_log
from arena.match.outcome import Termination
from arena.web.app import STREAMS_PER_CLIENT
from tests.support.paths import ARENA
from tests.support.tables import host_table
from tests.support.waiting import until

pytestmark = pytest.mark.process


def play_by_requests(table, seat: int, name: str = "Ada", bad_first: bool = True) -> list[dict]:
    """Sit down and answer each decision with its first legal move; the first
    time, try a card not in the hand first. The refusals' bodies."""
    assert table.post(seat, "/api/seat/sit", {"name": name}).json() == {"person": name}
    refusals = []
    for kind, ident, data in table.stream(seat):
        if kind != "decision":
            continue
        if bad_first and not refusals:
            hand = {(c["suit"], c["rank"]) for c in data["observation"]["hand"]}
            card = next(
                {"suit": s, "rank": r}
                for s in ("DENARI", "COPPE", "SPADE", "BASTONI")
                for r in range(1, 11)
                if (s, r) not in hand
            )
            bad = table.post(seat, "/api/seat/move", {"ask": int(ident), "move": {"card": card}})
            refusals.append({"status": bad.status_code, **bad.json()})
        first = data["legalMoves"][0]
        reply = table.post(seat, "/api/seat/move", {"ask": int(ident), "move": first})
        assert reply.status_code == 200, reply.text
    return refusals


def test_a_person_plays_through_the_pages_requests_and_the_log_verifies(tmp_path):
    log = tmp_path / "m.log"
    table = host_table(["me=human", "g=builtin:greedy"], "--target", "3", "--seed", "5", log=log)
    try:
        # Nothing answers without the seat's secret, or with another.
        real = table.secrets[0]
        near = real[:-1] + ("A" if real[-1] != "A" else "B")  # one character off, never the same
        for secret in (None, "x" * 43, near):
            headers = {"Authorization": f"Bearer {secret}"} if secret else {}
            got = requests.get(table.base + "/api/seat/events", headers=headers, timeout=10)
            assert got.status_code == 401 and "hand" not in got.text
            moved = table.post(None, "/api/seat/move", {"ask": 1, "move": {}}, secret=secret)
            assert moved.status_code == 401
        # The pages themselves hold no secret.
        for path in ("/", "/seat", "/watch", "/static/table.js"):
            page = requests.get(table.base + path, timeout=10)
            assert page.status_code == 200 and table.secrets[0] not in page.text
        assert requests.get(table.base + "/seat", timeout=10).headers["Referrer-Policy"] == (
            "no-referrer"
        )
        refusals = play_by_requests(table, 0)
        assert refusals[0]["status"] == 422 and "is not in the hand" in refusals[0]["error"]
        assert table.wait() == 0
    finally:
        table.stop()
    replayed = replay_log(log)
    assert replayed.result.termination is Termination.COMPLETED and not replayed.result.faults
    assert replayed.header.engines[0].author == "Ada"
    assert table.secrets[0] not in log.read_bytes().decode("latin-1")
    verified = subprocess.run([ARENA, "replay", str(log)], capture_output=True, text=True)
    assert verified.returncode == 0 and "verified" in verified.stdout


def test_the_spectators_stream_shows_no_hand(tmp_path):
    table = host_table(["me=human", "g=builtin:greedy"], "--deals", "1", "--seed", "8")
    try:
        seen = requests.get(table.base + "/api/watch/events", stream=True, timeout=60)
        play_by_requests(table, 0, bad_first=False)
        with seen:
            frames = [x for x in seen.iter_lines(decode_unicode=True) if x.startswith("data:")]
        assert len(frames) > 10
        # Every hand is a count, never a card (the test can fail: a hand shown is a list).
        hands = [json.loads(f[5:]).get("hands") for f in frames]
        assert sum(h is not None for h in hands) > 10
        assert all(isinstance(n, int) for h in hands if h is not None for n in h)
        assert table.wait() == 0
    finally:
        table.stop()


def test_a_person_needs_a_table_and_one_seat(tmp_path):
    refused = subprocess.run(
        [ARENA, "match", "--engine", "me=human", "--engine", "g=builtin:greedy"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert refused.returncode != 0 and "give --http HOST:PORT" in refused.stderr
    words = ["--variant", "scopone", "--http", "127.0.0.1:0", "--engine", "me=human"]
    two = subprocess.run(
        [ARENA, "match", *words, "--engine", "g=builtin:greedy"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert two.returncode != 0 and "never all of a side's" in two.stderr


class Spectators:
    """Event streams of the table's spectators, each opened and read to its
    end by a thread of its own, as a browser following the match would."""

    def __init__(self, base: str) -> None:
        self.url = base + "/api/watch/events"
        self.opened: list[int] = []
        self.ended = 0
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def open(self, count: int) -> None:
        before = len(self.opened)
        for _ in range(count):
            thread = threading.Thread(target=self._follow, daemon=True)
            thread.start()
            self._threads.append(thread)
        until(lambda: len(self.opened) >= before + count, 60, "the spectators' streams")

    def _follow(self) -> None:
        try:
            with requests.get(self.url, stream=True, timeout=120) as reply:
                with self._lock:
                    self.opened.append(reply.status_code)
                for line in reply.iter_lines(decode_unicode=True):
                    if line == "event: end":
                        with self._lock:
                            self.ended += 1
        except requests.RequestException:
            pass  # the table went away: counted as a stream that never ended

    def join(self) -> None:
        for thread in self._threads:
            thread.join(60)


def test_spectators_from_the_seats_own_address_never_starve_it(tmp_path):
    """As many spectators' streams as one address may hold, all from the
    loopback address the person plays from (as behind a NAT or a proxy): more
    spectators are refused with the reason, and the seat still opens its stream,
    plays every move on a short clock and loses none on time."""
    log = tmp_path / "m.log"
    table = host_table(
        ["me=human --bank 60s --increment 5s", "g=builtin:greedy"],
        *("--deals", "1", "--seed", "12"),
        log=log,
    )
    spectators = Spectators(table.base)
    try:
        spectators.open(STREAMS_PER_CLIENT)
        assert spectators.opened == [200] * STREAMS_PER_CLIENT
        for _ in range(3):
            refused = requests.get(spectators.url, timeout=10)
            assert refused.status_code == 503 and refused.headers["Retry-After"] == "10"
            reason = refused.json()["error"]
            assert f"{STREAMS_PER_CLIENT} live streams are already open from your address" in reason
        # The seat, a few times at once (two tabs, a reload): each opens.
        extra = [
            requests.get(
                table.base + "/api/seat/events", headers=table.auth(0), stream=True, timeout=30
            )
            for _ in range(2)
        ]
        assert [r.status_code for r in extra] == [200, 200]
        for reply in extra:
            reply.close()
        play_by_requests(table, 0, bad_first=False)
        assert table.wait() == 0
        spectators.join()
    finally:
        table.stop()
    assert spectators.ended == STREAMS_PER_CLIENT  # every spectator saw the match to its end
    replayed = replay_log(log)
    assert replayed.result.termination is Termination.COMPLETED and not replayed.result.faults
    assert sum(s.seat == 0 for d in replayed.deals for s in d.steps) == 18
