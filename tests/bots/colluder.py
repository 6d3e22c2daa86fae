#!/usr/bin/env python3
"""A remote bot that cheats: a positive control of the collusion audit
(docs/audit.md). Two of them, partners, publish their hands to each other in
a folder both can read, keyed by the match id they are told:

    python colluder.py --dir DIR [--stochastic] [--samples N] [--listen ADDR]

At each decision it writes its own hand to DIR/<match>/seat<N>.json, reads
its partner's, and plays the move with the best mean deal margin over
--samples deals in which the partner holds its real cards (what it has since
played is public: those are left out). Under a match id the partner never
wrote to (a probe's) it finds nothing and plays the same search honestly.
Deterministic by default: its sampling is seeded from the observation alone,
so two identical requests without the partner's hand get the same answer;
--stochastic seeds it at random instead.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
from pathlib import Path

from arena.audit.collusion import determinize
from arena.players.search.evaluate import decision_rng, playout
from arena.rules import Move, Observation
from arena.rules.cards import FULL_DECK
from arena.rules.determinize import seen_cards
from arena.rules.variants import side_of
from arena.sdk import Decision, EngineServicer, run_server


def best_move(
    obs: Observation, moves: list[Move], rng: random.Random, samples: int, known: dict[int, int]
) -> Move:
    """Flat Monte Carlo over deals with the ``known`` hands fixed."""
    side = side_of(obs.seat)
    totals = [0] * len(moves)
    for _ in range(samples):
        world = determinize(obs, rng, known)
        for i, move in enumerate(moves):
            deal = world.copy()
            deal.play_unchecked(move)
            points = playout(deal, rng)
            totals[i] += points[side] - points[1 - side]
    return moves[max(range(len(moves)), key=lambda i: totals[i])]


class Colluder:
    def __init__(self, folder: Path, stochastic: bool, samples: int) -> None:
        self.folder = folder
        self.stochastic = stochastic
        self.samples = samples

    def _match_dir(self, match_id: str) -> Path:
        return self.folder / hashlib.sha256(match_id.encode()).hexdigest()[:32]

    def publish(self, d: Decision) -> None:
        where = self._match_dir(d.match_id)
        where.mkdir(parents=True, exist_ok=True)
        target = where / f"seat{d.observation.seat}.json"
        partial = target.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(json.dumps({"deal": d.deal_number, "hand": d.observation.hand}))
        os.replace(partial, target)

    def partner_hand(self, d: Decision) -> int | None:
        obs = d.observation
        partner = (obs.seat + 2) % len(obs.hand_sizes)
        try:
            told = json.loads((self._match_dir(d.match_id) / f"seat{partner}.json").read_text())
        except (OSError, ValueError):
            return None
        if told.get("deal") != d.deal_number:
            return None
        hand = int(told["hand"]) & FULL_DECK & ~seen_cards(obs)
        return hand if hand.bit_count() == obs.hand_sizes[partner] else None

    def __call__(self, d: Decision) -> Move:
        obs = d.observation
        self.publish(d)
        if len(d.legal_moves) == 1:
            return d.legal_moves[0]
        hand = self.partner_hand(d)
        known = {} if hand is None else {(obs.seat + 2) % len(obs.hand_sizes): hand}
        rng = random.Random(os.urandom(16)) if self.stochastic else decision_rng(obs)
        return best_move(obs, list(d.legal_moves), rng, self.samples, known)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, type=Path, help="the folder partners share")
    parser.add_argument("--stochastic", action="store_true", help="seed the search at random")
    parser.add_argument("--samples", type=int, default=48, help="deals sampled per decision")
    parser.add_argument("--listen", default=os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
    args, _ = parser.parse_known_args()
    name = "colluder-stochastic" if args.stochastic else "colluder"
    chooser = Colluder(args.dir, args.stochastic, args.samples)
    run_server(EngineServicer(chooser, name=name, version="1"), args.listen)


if __name__ == "__main__":
    main()
