"""A ladder's ratings do not depend on when a bot arrived (issue 24, point 4),
on a real server with real bots: (a) a strong bot (greedy's moves) entered after
500 matches among weaker ones (random's) takes first place, its interval
clear of the second's;
(b) a weak bot whose first matches went well falls back to its true place;
(c) a version's rating does not move when unrelated versions join."""

from __future__ import annotations

import time

import pytest

from arena.results.layout import competition_layout
from arena.results.store import open_store
from arena.tournament.schedule import bot_match_id
from arena.tournament.standings import compute_standings
from arena.wire.v1 import server_pb2 as spb
from tests.server.test_ladder import bot_processes, create_ladder, engine, enter, standings, until
from tests.support.paths import ROOT
from tests.support.server import ORGANISER, auth, register

pytestmark = [pytest.mark.process, pytest.mark.slow]

# The sets the strong bot may need after it enters (docs/ladder.md): runs have
# taken 10 and 45 (a lucky bot's interval reaching +94 kept it from being
# clear sooner); the bound leaves room for such a tail.
STRONG_SETS = 80
ALWAYS = ("ann-bot@1", "ben-bot@1", "lucky-bot@1")  # entered at the start
RANDOM_ONLY = '["builtin:random"]'


@pytest.mark.timeout(900)
def test_ratings_do_not_depend_on_arrival(server, tmp_path):
    lucky_record = tmp_path / "lucky-matches.txt"  # the streaky bot's lucky match ids
    commands = {
        "random": engine("random"),
        "random2": engine("random"),
        "greedy": engine("greedy"),
        "streaky": [
            str(ROOT / "tests/bots/streaky.py"),
            *("--lucky", "16", "--record", str(lucky_record)),
        ],
    }
    with bot_processes("ratings", **commands) as bots:
        stub = server.stub()
        tokens = {
            who: register(stub, who, f"{who}-bot", bots[kind])
            for who, kind in (("ann", "random"), ("ben", "random2"), ("lucky", "streaky"))
        }
        strong_token = register(stub, "sam", "sam-bot", bots["greedy"])
        comp = create_ladder(stub, target=6, concurrency=4, first_sets=3, baselines=RANDOM_ONLY)
        for who, token in tokens.items():
            enter(stub, token, comp, f"{who}-bot")

        def done() -> int:
            return stub.GetCompetition(spb.CompetitionRef(id=comp), timeout=10).matches_done

        until(lambda: done() >= 500, 600, "500 matches among the weaker bots")
        store_path = competition_layout(server.data, comp).store
        entered = enter(stub, strong_token, comp, "sam-bot")
        before = _finish_orders(store_path)

        # (a) First place, the interval clear of every other's, within STRONG_SETS sets.
        def separated() -> bool:
            rows = sorted(standings(stub, comp).values(), key=lambda r: -r.elo)
            shown = ", ".join(
                f"{r.bot} {r.elo:+.0f} [{r.elo_low:+.0f}, {r.elo_high:+.0f}]" for r in rows[:3]
            )
            print(
                f"{_sets_of(store_path, 'sam-bot@1', ladder_only=True)} sets: {shown}", flush=True
            )
            # Clear of every other player's interval: the anchor's has no width
            # (it is the zero), so being clear of it alone would say little.
            others = [r.elo_high for r in rows[1:] if r.bot != "random"]
            return rows[0].bot == "sam-bot@1" and rows[0].elo_low > max([0.0, *others])

        started = time.monotonic()
        until(separated, 900, "the strong bot first and clear of the second")
        played = _sets_of(store_path, "sam-bot@1", ladder_only=True)
        print(
            f"strong bot: first and separated after {played} ladder sets, "
            f"{time.monotonic() - started:.0f} s"
        )
        assert played <= STRONG_SETS
        stub.PauseCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)

        # Nobody starved in the real ladder either: the players there from the
        # start played ladder sets at rates within 1.5 of their mean.
        counts = {p: _sets_of(store_path, p, ladder_only=True) for p in ("random", *ALWAYS)}
        mean = sum(counts.values()) / len(counts)
        print(f"ladder sets per player: {counts}")
        assert all(mean / 1.5 <= n <= mean * 1.5 for n in counts.values()), counts
        table = standings(stub, comp)
        # (b) The lucky start (greedy's moves in its first 16 matches) does not hold
        # the streaky bot up: it ends where the random bots are, below the strong one.
        # (Below the strong one's rating, not its interval's low end: the sets still
        # in flight when the ladder paused may have moved the intervals since (a)
        # found them just clear of each other.)
        lucky = table["lucky-bot@1"]
        assert lucky.elo_high < table["sam-bot@1"].elo, (lucky, table["sam-bot@1"])
        for peer in ("ann-bot@1", "ben-bot@1"):  # random bots: its true strength
            assert lucky.elo_low < table[peer].elo_high and table[peer].elo_low < lucky.elo_high
        # Its start: the matches it played greedy's moves in (it names them), with
        # the other players' matches finished by then. Taken from the bot's own
        # record rather than as its first n matches by finish order: with four
        # matches at once, those need not be the ones it played well.
        told = set(lucky_record.read_text().split())  # the ids bots are told
        seed = _meta(store_path, "seed")
        lucky_played = [m for m in _finished(store_path) if bot_match_id(seed, m.id) in told]
        lucky_ids = {m.id for m in lucky_played}
        lucky_done = [m.finish_order for m in lucky_played]
        assert len(lucky_done) >= 12, (len(lucky_done), "of its lucky matches were finished")
        last = max(lucky_done)
        early = _rating_over(
            store_path,
            lambda m: m.id in lucky_ids or (m.finish_order <= last and lucky.bot not in m.seats),
        )
        print(
            f"streaky bot: {early['lucky-bot@1']:+.0f} over its {len(lucky_done)} lucky "
            f"matches, {lucky.elo:+.0f} at the end"
        )
        assert early["lucky-bot@1"] > lucky.elo + 50  # it did start high

        # (c) Versions that meet only the anchor baseline move nobody else: the
        # table over the matches before the strong bot entered, and over those
        # plus its validation set (against the anchor), agree on every other player.
        validation = {f"v:{entered.player}#0/0", f"v:{entered.player}#0/1"}
        without = _rating_over(store_path, lambda m: m.finish_order in before, intervals=True)
        with_new = _rating_over(
            store_path, lambda m: m.finish_order in before or m.id in validation, intervals=True
        )
        assert "sam-bot@1" in with_new and "sam-bot@1" not in without
        for name, rating in without.items():  # the rating and both ends of its interval
            assert all(abs(a - b) < 1e-6 for a, b in zip(with_new[name], rating, strict=True)), name


def _finished(path) -> list:
    store = open_store(path)
    try:
        return store.finished()
    finally:
        store.close()


def _meta(path, key: str) -> str:
    store = open_store(path)
    try:
        value = store.meta(key)
    finally:
        store.close()
    assert value is not None, key
    return value


def _finish_orders(path) -> set[int]:
    return {m.finish_order for m in _finished(path)}


def _sets_of(path, player: str, ladder_only: bool) -> int:
    store = open_store(path)
    try:
        sets = {
            m.set_id
            for m in store.finished()
            if player in m.seats and (not ladder_only or m.set_id.startswith("l:"))
        }
    finally:
        store.close()
    return len(sets)


def _rating_over(path, include, intervals: bool = False) -> dict:
    """Each player's rating over the matches ``include`` takes (with its
    interval's ends, from 40 bootstrap resamples, if ``intervals``)."""
    store = open_store(path)
    try:
        table = compute_standings(store, resamples=40 if intervals else 0, include=include)
    finally:
        store.close()
    if intervals:
        return {r.engine: (r.elo, r.elo_low, r.elo_high) for r in table.rows if r.played}
    return {r.engine: r.elo for r in table.rows if r.played}
