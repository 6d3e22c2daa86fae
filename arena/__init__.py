"""Scopa Arena: a referee, tournament runner, competition server and replay
tool for Scopa bots.

The package is layered; imports point one way (docs/architecture.md, checked
by tests/test_layers.py):

    rules (pure) <- players <- match (plain values) <- wire (protobuf),
    results <- logs, audit <- transport <- referee <- play (run_match)
    <- tournament (the one lifecycle), cluster <- web <- server <- cli.

Importing ``arena`` itself loads nothing heavy.
"""

__version__ = "0.1.0"
