"""Scopa Arena: a referee, tournament runner and replay tool for Scopa bots.

The package is layered; imports point one way:
rules (pure) <- wire (protobuf) <- referee/transport <- tournament <- cli.
Importing ``arena`` itself loads nothing heavy.
"""

__version__ = "0.1.0"
