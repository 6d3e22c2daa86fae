"""Search engines built on the rules package: information-set MCTS and the
Monte Carlo evaluation of moves that analysis uses."""
