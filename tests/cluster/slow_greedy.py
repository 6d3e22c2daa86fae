"""greedy (engines/greedy/bot.py), 10 ms slower per decision: deterministic, and
its matches last long enough for a test to lose a node in the middle of one."""

import time

from arena.players.strategies import move_value
from arena.rules import Move
from arena.sdk import Decision, serve


def choose(decision: Decision) -> Move:
    time.sleep(0.01)
    scored = [(move_value(decision.observation, m), m) for m in decision.legal_moves]
    best = max(v for v, _ in scored)
    ties = [m for v, m in scored if v >= best - 1e-9]
    return ties[int(decision.rng("greedy").random() * len(ties))]


if __name__ == "__main__":
    serve(choose, name="slow-greedy", version="1.0", author="Scopa Arena tests")
