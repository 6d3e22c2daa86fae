"""Scopa Arena: a referee, tournament runner, competition server and replay
tool for Scopa bots.

The package is layered; imports point one way (docs/architecture.md, checked
by tests/test_layers.py):

    rules (pure) <- settings, outcome, engine (plain values) <- wire (protobuf)
    <- transport, record, referee, check <- play (run_match)
    <- store, layout, tournament (the one lifecycle), cluster
    <- web (reads stores) <- server (starts the site) <- cli.

Importing ``arena`` itself loads nothing heavy.
"""

__version__ = "0.1.0"
