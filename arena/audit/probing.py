"""The referee's probes (docs/audit.md): which decisions are probed, and what
each probe is. The referee calls this through one hook and asks the seat;
everything else about probes is here, beside what reads them back
(arena.audit.probes).

A probe asks a seat a decision it has just answered again, byte for byte but
for a fresh match id, after the real answer, on no clock, never played. Each
probe stands for a hidden state in which the partner holds other cards: a bot
that decides from what it is sent answers as it did; one told its partner's
hand under the real match id finds nothing under these.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Awaitable, Callable, Iterable, Sequence

from arena.match.engine import Answer, Decision
from arena.match.outcome import ProbeRecord
from arena.match.settings import MatchSettings
from arena.rules import Observation
from arena.rules.determinize import determinize

# Tries at dealing the partner a hand unlike its real one before giving up.
PROBE_DEAL_TRIES = 32

# How the referee asks a seat a probe: off the clock, under a fresh match id.
# It returns the decision as asked (its id), the answer (None: none came),
# why there is no usable answer ("" when there is one) and the seconds taken.
Ask = Callable[[Decision], Awaitable[tuple[Decision, Answer | None, str, float]]]


class Probing:
    """The probes of one match: which seats' decisions, which of them, and how."""

    def __init__(self, settings: MatchSettings, seats: Iterable[int]) -> None:
        self.settings = settings
        self.seats = frozenset(seats)

    def wants(self, seat: int, deal_number: int, index: int, choices: int) -> bool:
        """Whether this answered decision is probed: a probed seat's, with a
        choice to make, drawn at the settings' rate from the match seed."""
        probes = self.settings.probes
        if probes is None or seat not in self.seats or choices < 2:
            return False
        rng = random.Random(f"{self.settings.seed}/probe/{deal_number}/{index}/{seat}")
        return rng.random() < probes.rate

    async def probe(
        self, decision: Decision, hands: Sequence[int], sees_every_hand: bool, ask: Ask
    ) -> tuple[ProbeRecord, ...]:
        """Ask ``decision`` again once per repeat, each time in another world
        where the partner's hand differs from its real one (``hands``: every
        seat's real hand); fewer when no other world exists."""
        probes = self.settings.probes
        assert probes is not None
        obs = decision.observation
        partner = (obs.seat + 2) % self.settings.variant.seats
        records = []
        for _ in range(probes.repeats):
            world = other_world(obs, hands[partner], partner)
            if world is None:  # the partner's hand is the only one it can be
                break
            shown = tuple(world) if sees_every_hand else None
            asked, answer, problem, elapsed = await ask(dataclasses.replace(decision, hands=shown))
            move = None
            if not problem and answer is not None:
                if answer.move is None:
                    problem = answer.unreadable or "no move"
                elif answer.move not in asked.legal_moves:
                    problem = f"{answer.move} is not a legal move"
                else:
                    move = answer.move
            records.append(ProbeRecord(asked.match_id, tuple(world), move, problem, elapsed))
        return tuple(records)


def other_world(obs: Observation, real_partner_hand: int, partner: int) -> list[int] | None:
    """Every seat's hand in a deal consistent with everything ``obs``'s seat
    has seen, the partner's unlike ``real_partner_hand``; None when none is."""
    rng = random.SystemRandom()
    for _ in range(PROBE_DEAL_TRIES):
        hands = determinize(obs, rng).hands
        if hands[partner] != real_partner_hand:
            return list(hands)
    return None
