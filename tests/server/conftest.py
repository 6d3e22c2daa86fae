"""A real `arena serve` process on loopback (tests.support.server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.server import ORGANISER, Server


@pytest.fixture
def server(tmp_path) -> Iterator[Server]:
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    s = Server(tmp_path / "data", token_file)
    s.start()
    yield s
    s.stop()
