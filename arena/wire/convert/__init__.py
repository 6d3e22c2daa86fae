"""The one place where plain values become protobuf messages and back.

Everything above this module (referee, logs, tournaments, server) passes plain
Python values; everything on the wire or in a log is a message from
arena.wire.v1, built or read here (the competition server's own messages in
the sibling module arena.wire.service). ``*_to_pb`` and the message builders
never fail on valid values; ``*_from_pb`` checks what it reads and raises
WireError (a ValueError) naming the field at fault, because its input may come
from a bot or a file we do not trust.

One module per schema: ``game`` (scopa.proto), ``engine`` (engine.proto),
``log`` (log.proto), ``spectate`` (the spectator events of server.proto); and
``engine_bytes``, a decision request's bytes assembled from parts. This package
is their one face: ``convert.card_to_pb`` and the rest, whichever module holds it.
"""

from arena.wire.convert.engine import *  # noqa: F403
from arena.wire.convert.game import *  # noqa: F403
from arena.wire.convert.log import *  # noqa: F403
from arena.wire.convert.spectate import *  # noqa: F403
