"""Serving the site: Hypercorn's trio worker, in a trio nursery (the
competition server's own, or `arena web`'s)."""

from __future__ import annotations

import logging
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from arena.errors import ConfigError


def split_listen(listen: str) -> tuple[str, int]:
    """HOST:PORT (PORT 0: any free port) as its parts."""
    host, sep, port = listen.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ConfigError(f"--http takes HOST:PORT, not {listen!r}")
    return host.strip("[]"), int(port)


def hypercorn_config(listen: str) -> Config:
    host, port = split_listen(listen)
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("arena.web")  # quiet unless configured
    config.graceful_timeout = 1.0
    # Live pages hold a stream open; keep-alive for the rest.
    config.keep_alive_timeout = 30.0
    return config


async def serve_site(
    app: Any, listen: str, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED
) -> None:
    """Serve ``app`` on ``listen`` until cancelled; reports its address,
    http://HOST:PORT with the port bound, once it listens."""
    config = hypercorn_config(listen)

    async def started_serve(*, task_status: trio.TaskStatus[list[str]]) -> None:
        await serve(app, config, task_status=task_status)

    async with trio.open_nursery() as nursery:
        try:
            binds = await nursery.start(started_serve)
        except (OSError, BaseExceptionGroup) as e:
            why = _os_error(e)
            if why is None:
                raise
            raise ConfigError(f"cannot listen on {listen}: {why}") from None
        task_status.started(binds[0])


def _os_error(error: BaseException) -> str | None:
    """The words of the OSError in ``error`` (alone or in a group), if any."""
    if isinstance(error, OSError):
        return error.strerror or str(error)
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = _os_error(inner)
            if found:
                return found
    return None
