"""What a participant reads names none of the organiser's files.

Messages the server keeps were often written for the organiser: a launched
bot's fault says where its output file is (under the server's data
directory), a launch error names the arena's own Python. A participant,
who reads them over gRPC and on the site, has no use for those places and
should not learn them. Every free text the server hands out (fault
messages, reasons, check details) goes through ``PublicText`` first, which
writes the data directory as ``DATA``, the arena's Python as ``python``, a
virtual environment as ``PREFIX`` and the arena's own source tree as
``ARENA``. Stores and logs written before keep such text forever, so this
is done where text is handed out, not only where it is written.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import arena


def organiser_places(data: Path) -> list[tuple[str, str]]:
    """The organiser's paths a participant must not read, each with the word
    written instead, longest first (a path inside another is replaced whole)."""
    places = {
        str(data): "DATA",  # as the organiser gave it (relative by default: out/server)
        str(data.absolute()): "DATA",
        str(data.resolve()): "DATA",
        sys.executable: "python",
        os.path.realpath(sys.executable): "python",
        str(Path(arena.__file__).resolve().parents[1]): "ARENA",
    }
    if sys.prefix != sys.base_prefix:  # a virtual environment: a path of the organiser's
        places[sys.prefix] = "PREFIX"
        places[os.path.realpath(sys.prefix)] = "PREFIX"
    return sorted(places.items(), key=lambda item: -len(item[0]))


class PublicText:
    """Rewrites the organiser's paths in a text a participant will read."""

    def __init__(self, data: Path) -> None:
        places = organiser_places(data)
        self._words = dict(places)
        # A path starts and ends where a path's characters do: "/srv/data" is
        # not "/srv/database", and "out/server" is not "about/server".
        alternatives = "|".join(re.escape(path) for path, _ in places)
        self._pattern = re.compile(f"(?<![\\w.+/-])(?:{alternatives})(?![\\w.+-])")

    def __call__(self, text: str) -> str:
        if "/" not in text:  # no path at all: most texts, at no cost
            return text
        return self._pattern.sub(lambda m: self._words[m.group(0)], text)
