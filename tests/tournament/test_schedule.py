"""Schedules: round robin, gauntlet, teams and partnership, with duplicate sets."""

from collections import Counter

from arena.rules import match_seed, seeded_first_dealer
from arena.tournament.config import config_from_dict
from arena.tournament.schedule import build_schedule, sides_of, sprt_set


def config(raw):
    """A configuration with its master seed settled, as a run settles it."""
    return config_from_dict({"seed": 1, **raw})


def engines(*names):
    return [{"name": n, "spec": "builtin:random"} for n in names]


def test_round_robin_duplicate_pairs_swap_seats_on_the_same_decks():
    cfg = config({"engine": engines("a", "b", "c"), "rounds": 2})
    schedule = build_schedule(cfg)
    assert len(schedule) == 3 * 2 * 2
    sets = {}
    for m in schedule:
        sets.setdefault(m.set_id, []).append(m)
    for pair in sets.values():
        first, second = pair
        assert first.seats == tuple(reversed(second.seats))
        assert first.seed == second.seed and first.first_dealer == second.first_dealer
    assert len({m.seed for m in schedule}) == 6  # a new deck sequence per set
    assert build_schedule(cfg) == schedule  # a pure function of the configuration


def test_gauntlet_meets_every_other_engine_only():
    cfg = config({"engine": engines("new", "a", "b"), "format": "gauntlet", "challenger": "new"})
    pairs = {frozenset(m.seats) for m in build_schedule(cfg)}
    assert pairs == {frozenset({"new", "a"}), frozenset({"new", "b"})}


def test_teams_rotate_everyone_one_seat():
    cfg = config({"engine": engines("a", "b"), "variant": "scopone", "format": "teams"})
    first, second = build_schedule(cfg)
    assert first.seats == ("a", "b", "a", "b") and second.seats == ("b", "a", "b", "a")
    assert sides_of(first.seats) == ("a", "b")


def test_partnership_each_engine_plays_every_seat_once_per_set():
    cfg = config(
        {"engine": engines("a", "b", "c", "d"), "variant": "scopone", "format": "partnership"}
    )
    schedule = build_schedule(cfg)
    assert len(schedule) == 3 * 4  # 3 ways to pair 4 engines, 4 rotations each
    sets = {}
    for m in schedule:
        sets.setdefault(m.set_id, []).append(m.seats)
    partners = set()
    for seatings in sets.values():
        for name in "abcd":
            assert sorted(s.index(name) for s in seatings) == [0, 1, 2, 3]
        partners.add(frozenset((seatings[0][0], seatings[0][2])))
    assert len(partners) == 3  # a plays with b, c and d in turn
    assert Counter(m.seed for m in schedule).most_common(1)[0][1] == 4


def test_shared_decks_deal_round_r_of_every_pairing_from_the_same_decks():
    cfg = config({"engine": engines("a", "b", "c"), "rounds": 3, "shared_decks": True})
    schedule = build_schedule(cfg)
    assert len(schedule) == 3 * 3 * 2
    by_round: dict[str, set[tuple[int, int]]] = {}
    for m in schedule:
        deck_set, pairing = m.set_id.split(":")
        assert deck_set.startswith("deals#") and "~" in pairing
        by_round.setdefault(deck_set, set()).add((m.seed, m.first_dealer))
    assert sorted(by_round) == ["deals#0", "deals#1", "deals#2"]
    assert all(len(seeds) == 1 for seeds in by_round.values())  # one deck sequence per round
    assert len({m.seed for m in schedule}) == 3
    plain = build_schedule(config({"engine": engines("a", "b", "c"), "rounds": 3}))
    assert len({m.seed for m in plain}) == 9  # by default each pairing has its own decks


def test_shared_decks_are_part_of_the_fingerprint_only_when_on():
    raw = {"engine": engines("a", "b"), "rounds": 1}
    assert "shared_decks" not in config(raw).fingerprint()  # older stores still resume
    assert config({**raw, "shared_decks": True}).fingerprint()["shared_decks"] is True


def test_no_duplicate_means_single_matches_alternating_seats():
    cfg = config({"engine": engines("a", "b"), "rounds": 2, "duplicate": False})
    first, second = build_schedule(cfg)
    assert first.seats == ("a", "b") and second.seats == ("b", "a") and first.seed != second.seed


def test_every_match_gets_the_seed_and_dealer_a_verifier_derives_from_its_schedule_id():
    """docs/seeds.md: a log's schedule id and the master seed give its seed and first dealer."""
    configs = [
        {"engine": engines("a", "b", "c"), "rounds": 2, "seed": 7},
        {"engine": engines("a", "b", "c", "d"), "variant": "scopone", "format": "partnership"},
        {"engine": engines("a", "b"), "rounds": 3, "duplicate": False, "seed": 99},
        {"engine": engines("a", "b", "c"), "rounds": 2, "shared_decks": True},
        {
            "engine": engines("a", "b", "c", "d"),
            "variant": "scopone",
            "format": "partnership",
            "shared_decks": True,
        },
    ]
    for raw in configs:
        cfg = config(raw)
        for m in build_schedule(cfg):
            assert m.seed == match_seed(cfg.seed, m.id)
            assert m.first_dealer == seeded_first_dealer(m.seed, cfg.variant.seats)
    sprt = config(
        {
            "engine": engines("new", "old"),
            "format": "sprt",
            "sprt": {"test": "new", "base": "old", "elo0": 0, "elo1": 10},
        }
    )
    for m in sprt_set(sprt, 5):
        assert m.id.startswith("sprt#5/") and m.seed == match_seed(sprt.seed, m.id)


def test_teams_of_three_sit_every_other_seat_and_swap_sides_in_the_twin():
    cfg = config({"engine": engines("a", "b"), "variant": "scopa6", "format": "teams"})
    first, second = build_schedule(cfg)
    assert first.seats == ("a", "b") * 3 and second.seats == ("b", "a") * 3
    assert first.seed == second.seed and sides_of(first.seats) == ("a", "b")
    assert sides_of(("a", "b", "c", "b", "a", "b")) == ("a+c", "b")
