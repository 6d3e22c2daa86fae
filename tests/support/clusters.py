"""Ray clusters for the tests, on loopback only, each in a private temp directory."""

from __future__ import annotations

import os
import socket
from pathlib import Path


def ray_env(temp: Path) -> dict[str, str]:
    """The environment of every Ray process of a test: its own temp directory,
    no token authentication, no usage report, workers at nice 0."""
    return {
        **os.environ,
        "RAY_TMPDIR": str(temp),
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_worker_niceness": "0",  # as the README starts nodes
        "PYTHONUNBUFFERED": "1",
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
