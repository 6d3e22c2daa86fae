"""`arena web`: the read-only web site over a local tournament's output directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli import exits, signals
from arena.cli.common import Subparsers
from arena.errors import ConfigError

DEFAULT_HTTP = "127.0.0.1:8080"


def serve_directory(
    directory: Path, listen: str, announce: str = "LISTENING {}", delay: int = 0
) -> None:
    """Serve the site of ``directory`` until SIGTERM or Ctrl-C stops the
    command (signals.run); prints ``announce`` with its address (``LISTENING
    http://HOST:PORT``) once it listens. Matches being played are shown
    ``delay`` plays behind."""
    import trio

    from arena.results.layout import Layout
    from arena.web.app import create_app
    from arena.web.local import LocalSource
    from arena.web.serve import serve_site, split_listen

    split_listen(listen)
    if not directory.is_dir():
        raise ConfigError(f"{directory}: not a directory")
    if not Layout.read(directory).store.exists():
        raise ConfigError(f"{directory}: no results.sqlite (a tournament's output directory)")
    if delay < 0:
        raise ConfigError("--spectator-delay must be 0 or more plays")
    source = LocalSource(directory, delay)
    try:
        source.warm()
    except BaseException:
        source.close()
        raise

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            address = await nursery.start(serve_site, create_app(source), listen)
            print(announce.format(address), flush=True)
            await trio.sleep_forever()  # until the command's stop cancels it

    try:
        signals.run(main)
    finally:
        source.close()


def cmd_web(args: argparse.Namespace) -> int:
    serve_directory(Path(args.directory), args.http, delay=args.spectator_delay)
    return exits.OK


def add_parsers(sub: Subparsers) -> None:
    web = sub.add_parser(
        "web",
        help="serve a read-only web site over a tournament's output directory",
        description=(
            "Serve the arena's web site (standings, crosstable, matches, replays) over a "
            "local tournament's output directory, until SIGTERM or Ctrl-C. Read-only: the "
            "tournament may still be running, in another process; its matches being played "
            "are followed live from their logs."
        ),
    )
    web.add_argument("directory", help="the tournament's output directory (with results.sqlite)")
    web.add_argument(
        "--http", default=DEFAULT_HTTP, metavar="HOST:PORT", help="address to serve on"
    )
    web.add_argument(
        "--spectator-delay",
        type=int,
        default=0,
        metavar="PLAYS",
        help="show matches being played this many plays behind (default %(default)s)",
    )
    web.set_defaults(func=cmd_web, server=True)
