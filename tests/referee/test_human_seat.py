"""A person's seat under the referee, in process: the person is a trio task
that sits down, reads the seat's stream and answers as the page would. The
HTTP side is tests/web/test_table.py; the browser's, tests/web/test_table_browser.py."""

from __future__ import annotations

import contextlib
import functools
import json
import random
from pathlib import Path

import pytest
import trio

from arena.errors import FaultKind
from arena.logs.replay import replay_log
from arena.match.outcome import Termination
from arena.match.settings import FaultPolicy, HumanEngine, MatchSettings, OnFault, parse_engine
from arena.play import run_match
from arena.rules import Game, Variant
from arena.transport.human import HumanSeat, People, Refused


def events(chunks: list[str]) -> list[tuple[str, str, dict]]:
    """(kind, id, data) of each Server-Sent Event."""
    out = []
    for chunk in chunks:
        kind, ident, data = "", "", ""
        for line in chunk.strip("\n").split("\n"):
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("id: "):
                ident = line[4:]
            elif line.startswith("data: "):
                data += line[6:]
        out.append((kind, ident, json.loads(data)))
    return out


async def person(
    seat: HumanSeat,
    seen: list[str],
    *,
    name: str = "Ada",
    moves: int | None = None,
    wrong_first: bool = False,
    refusals: list[Refused] | None = None,
) -> None:
    """Sit down and play the first legal move of each decision (``moves`` of
    them at most, then stop answering), keeping every chunk of the stream."""
    seat.sit(name)
    made = 0
    async for chunk in seat.stream():
        seen.append(chunk)
        kind, ident, data = events([chunk])[0]
        if kind != "decision" or (moves is not None and made >= moves):
            continue
        if wrong_first and refusals is not None and not refusals:
            hand = {(c["suit"], c["rank"]) for c in data["observation"]["hand"]}
            absent = next(
                {"suit": s, "rank": r}
                for s in ("DENARI", "COPPE", "SPADE", "BASTONI")
                for r in range(1, 11)
                if (s, r) not in hand
            )
            for ask, move in (
                (int(ident), {"card": absent, "captures": []}),
                (int(ident) + 1, data["legalMoves"][0]),
                (int(ident), {"card": {"suit": "NOPE"}}),
            ):
                try:
                    seat.answer(ask, move)
                except Refused as e:
                    refusals.append(e)
        seat.answer(int(ident), data["legalMoves"][0])
        if wrong_first and refusals is not None and len(refusals) == 3:
            try:  # the same answer again (a double click, another tab)
                seat.answer(int(ident), data["legalMoves"][0])
            except Refused as e:
                refusals.append(e)
        made += 1


def human_match(
    engines: list[str],
    settings: MatchSettings,
    log: Path | None = None,
    **person_options,
):
    """Play the match with a person at every human seat; the report and each
    person's stream."""
    specs = [parse_engine(e) for e in engines]
    people = People(specs)
    streams: dict[int, list[str]] = {s: [] for s in people.seats}

    async def main():
        async with trio.open_nursery() as nursery:
            for s, seat in people.seats.items():
                play = functools.partial(person, seat, streams[s], **person_options)
                nursery.start_soon(play)
            report = await run_match(specs, settings, log=log, people=people)
            for seat in people.seats.values():
                seat.close()
        return report

    return trio.run(main), streams


def test_a_person_plays_a_match_to_its_end_and_the_log_verifies(tmp_path):
    log = tmp_path / "m.log"
    report, streams = human_match(
        ["me=human", "g=builtin:greedy"], MatchSettings(Variant(Game.SCOPA, target=3), seed=4), log
    )
    assert report.result.termination is Termination.COMPLETED
    assert not report.result.faults
    replayed = replay_log(log)
    header = replayed.header
    assert (header.engines[0].engine_name, header.engines[0].author) == ("human", "Ada")
    assert header.clock_of(0).bank == 300 and header.clock_of(0).increment == 10
    assert header.clock_of(0).move_time is None and header.clock_of(1).move_time == 1.0
    mine = [s for deal in replayed.deals for s in deal.steps if s.seat == 0]
    assert mine and all(s.fault is None for s in mine)
    kinds = [k for k, _, _ in events(streams[0])]
    assert kinds[0] == "seat" and kinds[1] == "MatchStarted" and kinds[-1] == "end"
    assert kinds.count("decision") == len(mine) == kinds.count("closed")
    assert kinds.count("DealEnded") == len(replayed.deals) and "MatchEnded" in kinds


def test_two_people_play_scopone_as_partners_against_two_bots(tmp_path):
    log = tmp_path / "m.log"
    engines = ["ann=human", "g=builtin:greedy", "bob=human", "r=builtin:random"]
    report, streams = human_match(engines, MatchSettings(Variant(Game.SCOPONE, target=3)), log)
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    assert sorted(streams) == [0, 2]
    first = {}
    for seat in (0, 2):
        views = [d for k, _, d in events(streams[seat]) if k == "view"]
        # Each person is shown their own view: their seat, their hand, and no other hand.
        assert views and all(v["seat"] == seat and "hands" not in v for v in views)
        first[seat] = views[0]["hand"]
    assert first[0] != first[2]
    replayed = replay_log(log)
    assert [e.engine_name for e in replayed.header.engines] == [
        "human",
        "greedy",
        "human",
        "random",
    ]


def test_a_move_the_page_got_wrong_is_refused_with_the_rules_reason_and_is_no_fault(tmp_path):
    log = tmp_path / "m.log"
    refusals: list[Refused] = []
    report, _ = human_match(
        ["me=human", "g=builtin:greedy"],
        MatchSettings(Variant(Game.SCOPA, target=None, deal_limit=1), seed=2),
        log,
        wrong_first=True,
        refusals=refusals,
    )
    assert [e.status for e in refusals] == [422, 409, 400, 409]
    assert "is not in the hand" in refusals[0].reason
    assert "that decision is over" in refusals[1].reason
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    assert replay_log(log).result.termination is Termination.COMPLETED


def test_a_person_who_lets_the_clock_run_out_is_judged_by_the_fault_policy(tmp_path):
    log = tmp_path / "m.log"
    engine = "me=human --bank 300ms --increment 0s"
    report, streams = human_match(
        [engine, "g=builtin:greedy"], MatchSettings(Variant(Game.SCOPA), seed=3), log, moves=1
    )
    result = report.result
    assert result.termination is Termination.FORFEIT and result.winner == 1
    assert [f.kind for f in result.faults] == [FaultKind.TIMEOUT] and result.faults[0].seat == 0
    assert replay_log(log).result.faults[0].kind is FaultKind.TIMEOUT  # the log says so
    kinds = [k for k, _, _ in events(streams[0])]
    assert kinds.count("decision") == kinds.count("closed") >= 2  # the cut-off closed it

    # Settable: the substitute policy plays a move for the person instead.
    substitute = MatchSettings(
        Variant(Game.SCOPA, target=None, deal_limit=1),
        seed=3,
        policy=FaultPolicy(OnFault.SUBSTITUTE, strikes=100),
    )
    report, _ = human_match([engine, "g=builtin:greedy"], substitute, tmp_path / "s.log", moves=0)
    assert report.result.termination is Termination.COMPLETED
    assert report.result.faults and {f.kind for f in report.result.faults} == {FaultKind.TIMEOUT}
    replay_log(tmp_path / "s.log")


def test_a_seat_whose_person_never_sits_down_makes_the_match_no_contest():
    specs = [parse_engine("me=human --join 200ms"), parse_engine("g=builtin:greedy")]
    people = People(specs)
    report = trio.run(lambda: run_match(specs, MatchSettings(seed=1), people=people))
    assert report.result.termination is Termination.NO_CONTEST
    assert report.result.faults[0].kind is FaultKind.STALL
    assert "no handshake within 0.2s" in report.result.faults[0].message


def test_a_human_seat_without_a_table_is_refused_before_the_match():
    from arena.errors import ConfigError

    with pytest.raises(ConfigError, match="needs a table in a browser"):
        trio.run(lambda: run_match(["me=human", "g=builtin:greedy"], MatchSettings()))
    with pytest.raises(ConfigError, match="never all of a side's"):
        trio.run(
            lambda: run_match(
                ["me=human", "g=builtin:greedy"], MatchSettings(Variant(Game.SCOPONE))
            )
        )


@pytest.mark.parametrize(
    "spec, why",
    [
        ("me=human --bank", "needs a duration"),
        ("me=human --bank 0s", "must be positive"),
        ("me=human --speed 3", "human takes --bank, --increment, --join"),
        ("me=human --increment soon", "not a duration"),
    ],
)
def test_a_persons_options_are_checked(spec, why):
    from arena.errors import ConfigError

    with pytest.raises(ConfigError, match=why):
        parse_engine(spec)
    assert parse_engine("me=human --bank 2m --increment=5s") == HumanEngine("me", 120.0, 5.0)


def first_decision_bytes(own: list[int], rest: list[int]) -> str:
    """Everything seat 0 (a person) is sent up to and with its first decision,
    Scopone scientifico, dealer seat 3: seat 0 is dealt ``own`` and plays first."""
    deck = own + rest
    settings = MatchSettings(
        Variant(Game.SCOPONE_SCIENTIFICO, target=None, deal_limit=1),
        seed=1,
        first_dealer=3,
        match_id="hidden",
        decks=lambda i, attempt: deck,
    )
    specs = [
        parse_engine(e)
        for e in ("me=human", "r=builtin:random", "g=builtin:greedy", "r2=builtin:random")
    ]
    people = People(specs)
    seen: list[str] = []

    async def main():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(person, people.seats[0], seen)
            await run_match(specs, settings, people=people)
            people.seats[0].close()

    trio.run(main)
    cut = next(i for i, (k, _, _) in enumerate(events(seen)) if k == "decision")
    return "".join(seen[: cut + 1])


def test_the_bytes_a_person_is_sent_do_not_depend_on_the_cards_it_cannot_see():
    base = list(range(40))
    random.Random(5).shuffle(base)
    mine, hidden = base[:10], base[10:]
    original = first_decision_bytes(mine, hidden)
    assert '"hand":[' in original and "decision" in original
    permuted = list(hidden)
    random.Random(9).shuffle(permuted)  # the partner's and the opponents' hands change
    assert permuted != hidden
    assert first_decision_bytes(mine, permuted) == original
    # The test can fail: one of seat 0's own cards changed changes its bytes.
    assert first_decision_bytes([*mine[1:], hidden[0]], [mine[0], *hidden[1:]]) != original


def test_a_stream_opened_again_starts_from_the_start_with_the_clock_still_running():
    specs = [parse_engine("me=human"), parse_engine("g=builtin:greedy")]
    people = People(specs)
    seat = people.seats[0]
    first: list[str] = []
    second: list[str] = []

    async def read_until_decision(into: list[str]) -> None:
        # As the page's connection drops: the stream is closed mid-way.
        async with contextlib.aclosing(seat.stream()) as stream:
            async for chunk in stream:
                into.append(chunk)
                if chunk.startswith("event: clock"):
                    return

    async def main():
        async with trio.open_nursery() as nursery:
            seat.sit("Ada")
            match = functools.partial(run_match, specs, MatchSettings(seed=5), people=people)
            nursery.start_soon(match)
            # The stream dropped at the first decision, and opened again a moment later.
            with trio.fail_after(10):
                await read_until_decision(first)
            await trio.sleep(0.3)
            with trio.fail_after(10):
                await read_until_decision(second)
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert second[:-1] == first[:-1]  # the same messages, from the match's start
    left = [events([c[-1]])[0][2]["left_ms"] for c in (first, second)]
    assert left[0] - left[1] >= 250  # time went on while the page was away
