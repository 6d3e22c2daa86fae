"""Who plays whom, on which decks, in which seats.

Every match belongs to a *duplicate set*: matches on the same deck sequence
(same seed, same first-dealer seat) with the engines rotated through the
seats, so each side plays each hand of cards (duplicate play, as in the ACPC and duplicate bridge).
- two seats: 2 matches, seats swapped;
- teams (one engine per side, Scopone, Scopa a sei): 2 matches, everyone
  moved one seat;
- partnership (individual engines paired into teams): 4 rotations, each
  engine plays every seat once.
With duplicates off, each set is a single match (seats alternating between
rounds). Seeds come from the tournament seed, so a schedule is a pure
function of the configuration (which is what makes resume exact); the
derivation is specified in docs/seeds.md so that anyone can check the decks.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

from arena.errors import ConfigError
from arena.results.store import ScheduledMatch
from arena.rules import seeded_first_dealer, set_seed
from arena.tournament.config import TournamentConfig, TournamentFormat
from arena.wire.protocol import keyed_match_id


def bot_match_id(tournament_seed: str, match_id: str) -> str:
    """The id a bot is told for a match: opaque, so that it names neither the
    duplicate set nor the twin (the log maps it to the schedule's id), and of
    the one shape of every id a bot is told, probes' included. Keyed by the
    tournament seed, so a resumed run tells bots the same ids."""
    return keyed_match_id(f"scopa-arena/match-id/{tournament_seed}", match_id)


def rotations(base: Sequence[str], k: int) -> list[tuple[str, ...]]:
    """The seatings of a duplicate set: everyone moved 0, 1, ..., k-1 seats on."""
    n = len(base)
    return [tuple(base[(s - r) % n] for s in range(n)) for r in range(k)]


def make_set(
    cfg: TournamentConfig, set_id: str, base: Sequence[str], k: int, seq: int
) -> list[ScheduledMatch]:
    if cfg.seed is None:
        raise ConfigError("a schedule needs the tournament's master seed settled first")
    seed = set_seed(cfg.seed, set_id)
    dealer = seeded_first_dealer(seed, cfg.variant.seats)
    return [
        ScheduledMatch(f"{set_id}/{i}", seq + i, set_id, seed, dealer, seats)
        for i, seats in enumerate(rotations(base, k))
    ]


def pairings(cfg: TournamentConfig) -> list[tuple[str, str]]:
    names = [e.name for e in cfg.engines]
    if cfg.format is TournamentFormat.GAUNTLET:
        assert cfg.challenger is not None
        return [(cfg.challenger, n) for n in names if n != cfg.challenger]
    return list(itertools.combinations(names, 2))


def _set_id(cfg: TournamentConfig, pairing: str, r: int) -> str:
    """The id of round ``r`` of a pairing: ``PAIRING#R``, or ``deals#R:PAIRING``
    when every pairing plays the same decks (its seed is that of ``deals#R``)."""
    return f"deals#{r}:{pairing}" if cfg.shared_decks else f"{pairing}#{r}"


def build_schedule(cfg: TournamentConfig) -> list[ScheduledMatch]:
    """Every match of a round robin, gauntlet, teams or partnership tournament."""
    out: list[ScheduledMatch] = []
    if cfg.format is TournamentFormat.PARTNERSHIP:
        names = [e.name for e in cfg.engines]
        for group in itertools.combinations(names, 4):
            a, b, c, d = group
            for split in ((a, b, c, d), (a, c, b, d), (a, d, b, c)):
                p0, p1, q0, q1 = split  # team P = p0+p1 at seats 0 and 2
                seating = (p0, q0, p1, q1)
                for r in range(cfg.rounds):
                    set_id = _set_id(cfg, f"{p0}+{p1}~{q0}+{q1}", r)
                    k = 4 if cfg.duplicate else 1
                    out += make_set(
                        cfg,
                        set_id,
                        seating if cfg.duplicate else rotations(seating, 4)[r % 4],
                        k,
                        len(out),
                    )
        return spread_twins(out)
    for x, y in pairings(cfg):
        base: tuple[str, ...] = (x, y) * (cfg.variant.seats // 2)
        for r in range(cfg.rounds):
            set_id = _set_id(cfg, f"{x}~{y}", r)
            if cfg.duplicate:
                out += make_set(cfg, set_id, base, 2, len(out))
            else:
                single = base if r % 2 == 0 else rotations(base, 2)[1]
                out += make_set(cfg, set_id, single, 1, len(out))
    return spread_twins(out)


def spread_twins(matches: Sequence[ScheduledMatch]) -> list[ScheduledMatch]:
    """The schedule with the matches of each duplicate set far apart: every
    set's first match, then every set's second, and so on. A bot that sees a
    deal a second time has then played many others in between (and the runner
    never plays two matches of one set at once)."""

    def twin(m: ScheduledMatch) -> int:
        return int(m.id.rsplit("/", 1)[1])

    ordered = sorted(matches, key=lambda m: (twin(m), m.seq))
    seqs = sorted(m.seq for m in matches)  # the same places in the schedule, reordered
    return [replace(m, seq=q) for m, q in zip(ordered, seqs, strict=True)]


def sprt_set(cfg: TournamentConfig, index: int) -> list[ScheduledMatch]:
    """The index-th duplicate set of an SPRT run (generated on demand)."""
    assert cfg.sprt is not None
    test, base = cfg.sprt.test, cfg.sprt.base
    seating = (test, base) * (cfg.variant.seats // 2)
    return make_set(cfg, f"sprt#{index}", seating, 2, 2 * index)


def sides_of(seats: Sequence[str]) -> tuple[str, str]:
    """The two sides of a seating as names: an engine, or "a+b" for a pair of partners."""
    if len(seats) == 2:
        return seats[0], seats[1]
    side0, side1 = (set(seats[parity::2]) for parity in (0, 1))
    return "+".join(sorted(side0)), "+".join(sorted(side1))
