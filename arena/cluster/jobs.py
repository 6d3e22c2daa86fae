"""What the head hands its workers and what comes back: plain values, pickled
by Ray on the way."""

from __future__ import annotations

from dataclasses import dataclass

from arena.cluster.shipping import Archive
from arena.match.outcome import MatchEvent, MatchReport
from arena.match.settings import EngineSpec, MatchSettings, SandboxSettings


@dataclass(frozen=True)
class WarmSpec:
    """keep_warm on a cluster: each worker keeps its own warm pool."""

    startup_timeout: float
    sandbox: SandboxSettings


@dataclass(frozen=True)
class MatchJob:
    """One match as a worker gets it."""

    engines: tuple[EngineSpec, ...]
    settings: MatchSettings
    log_name: str | None  # the log's file name (bot output files are named after it)
    allow_shared_partners: bool
    working_dir: tuple[str, Archive] | None  # the head's path of it, and its archive
    archives: tuple[tuple[str, Archive], ...] = ()  # (engine name, its directory)
    followed: str = ""  # with spectators: the key its events are fetched by
    bot_output_shown: str = ""  # how faults name where the head keeps the bots' output


@dataclass(frozen=True)
class MatchOutcome:
    """What a worker sends back: the report, the log's bytes, the bots' output."""

    report: MatchReport
    log: bytes | None
    bot_output: tuple[tuple[str, bytes], ...]
    node: str
    events: tuple[MatchEvent, ...] = ()  # a followed match's public events, all of them
