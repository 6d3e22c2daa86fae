"""A match from one bot's side: in Scopa and in Scopone's teams, with a
ladder's versions as players of their own."""

from __future__ import annotations

from arena.match.outcome import Termination
from arena.results.store import MatchEntry, MatchStatus
from arena.server.versions import bot_of
from arena.tournament.sides import Outcome, bot_matches, players_of, same_name


def done(
    match_id: str,
    seats: tuple[str, ...],
    scores: tuple[int, int],
    winner: int | None,
    termination: Termination = Termination.COMPLETED,
) -> MatchEntry:
    return MatchEntry(match_id, seats, MatchStatus.DONE, scores, winner, termination, "", "x.log")


def pending(match_id: str, seats: tuple[str, ...]) -> MatchEntry:
    return MatchEntry(match_id, seats, MatchStatus.PENDING, None, None, None, "", None)


def test_the_result_is_turned_round_to_the_bot_s_side():
    entries = [
        done("a", ("alice", "bob"), (11, 9), 0),
        done("b", ("bob", "alice"), (11, 9), 0),
        done("c", ("alice", "bob"), (8, 8), None),
        done("d", ("bob", "alice"), (3, 0), 0, Termination.FORFEIT),
        done("e", ("alice", "bob"), (0, 2), 0, Termination.FORFEIT),
        done("f", ("alice", "bob"), (0, 0), None, Termination.NO_CONTEST),
        done("g", ("alice", "bob"), (0, 0), None, Termination.VOID),
        pending("h", ("bob", "alice")),
        pending("i", ("alice", "bob")),
    ]
    faults = [("d", 1, "timeout", "late"), ("d", 0, "crash", "not mine"), ("e", 1, "crash", "gone")]
    views = bot_matches(entries, faults, "alice", same_name, running={"h"})
    got = [(v.entry.id, v.outcome, v.score, v.opponent_score, v.seats) for v in views]
    assert got == [
        ("a", Outcome.WON, 11, 9, (0,)),
        ("b", Outcome.LOST, 9, 11, (1,)),
        ("c", Outcome.DRAWN, 8, 8, (0,)),
        ("d", Outcome.FORFEIT, 0, 3, (1,)),
        ("e", Outcome.WON, 0, 2, (0,)),
        ("f", Outcome.NO_CONTEST, 0, 0, (0,)),
        ("g", Outcome.VOID, 0, 0, (0,)),
        ("h", Outcome.RUNNING, None, None, (1,)),
        ("i", Outcome.PENDING, None, None, (0,)),
    ]
    # Only its own faults, of the seat it sat in.
    assert [(f.seat, f.kind) for f in views[3].faults] == [(1, "timeout")]
    assert views[4].faults == () and all(v.opponents == ("bob",) for v in views)


def test_in_scopone_its_side_is_the_seats_it_sits_in():
    both = done("t", ("alice", "bob", "alice", "bob"), (9, 11), 1)
    shared = done("u", ("carol", "alice", "bob", "dave"), (11, 4), 0)
    views = bot_matches([both, shared], [("t", 2, "illegal", "no")], "alice", same_name)
    first, second = views
    assert (first.seats, first.side, first.partners, first.opponents) == ((0, 2), 0, (), ("bob",))
    assert (first.outcome, first.score, first.opponent_score) == (Outcome.LOST, 9, 11)
    assert [f.seat for f in first.faults] == [2]
    assert (second.seats, second.side, second.partners) == ((1,), 1, ("dave",))
    assert second.opponents == ("carol", "bob") and second.outcome is Outcome.LOST


def test_a_ladder_s_versions_are_seen_one_at_a_time_or_all():
    entries = [
        done("m1", ("alice@1", "greedy"), (4, 11), 1),
        done("m2", ("alice@1", "alice@2"), (11, 7), 0),
        done("m3", ("greedy", "alice@2"), (6, 11), 1),
    ]
    names = [n for e in entries for n in e.seats] + ["alice@10", "alicea"]
    assert players_of(names, "alice", bot_of) == ["alice@1", "alice@2", "alice@10"]
    seen = [(v.entry.id, v.player, v.outcome) for v in bot_matches(entries, [], "alice", bot_of)]
    assert seen == [
        ("m1", "alice@1", Outcome.LOST),
        ("m2", "alice@1", Outcome.WON),
        ("m2", "alice@2", Outcome.LOST),
        ("m3", "alice@2", Outcome.WON),
    ]
    two = bot_matches(entries, [], "alice", bot_of, version=2)
    assert [(v.entry.id, v.version, v.opponents) for v in two] == [
        ("m2", 2, ("alice@1",)),
        ("m3", 2, ("greedy",)),
    ]
