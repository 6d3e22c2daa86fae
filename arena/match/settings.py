"""What a match is played under: engines, clock, fault policy, and durations.

Pure values, standard library only (no trio, grpc or protobuf): the
tournament config parser, the command line and the server build these, and
importing this module must stay cheap.
"""

from __future__ import annotations

import contextlib
import enum
import math
import re
import shlex
import sys
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from arena.errors import ConfigError
from arena.players.strategies import BUILT_IN
from arena.rules import Game, Variant
from arena.rules.match import DeckSource

# A bot someone else runs: HOST:PORT, [IPV6]:PORT or unix:/PATH, with gRPC's
# optional scheme (ipv4:, ipv6:, dns:, dns:///).
_ADDRESS = re.compile(
    r"^(unix:.+|(ipv4:|ipv6:|dns:(//[^/]*/)?)?([A-Za-z0-9_.\-]+|\[[0-9a-fA-F:]+\]):\d{1,5})$"
)

# The one rule of names: engines in a tournament file or on the command line,
# and what the competition server keeps (participants, bots, competitions).
# Every character may come first: tournament files have always allowed it.
MAX_NAME_CHARS = 64
NAME_RULE = f"1-{MAX_NAME_CHARS} letters (a-z), digits or . _ + -"
_NAME = re.compile(r"[A-Za-z0-9_.+\-]{1,64}")


def checked_name(raw: str, what: str = "name", rule: str = NAME_RULE) -> str:
    """The name as kept, after Unicode NFKC normalization (a full-width "ａｌｉｃｅ"
    is "alice"); ConfigError with the reason when it breaks the rule. ``rule``
    is how the rule is told in the error (the server adds to it)."""
    name = unicodedata.normalize("NFKC", raw)
    article = "an" if what[:1] in "aeiou" else "a"
    if not name:
        raise ConfigError(f"give {article} {what}: {rule}")
    if name != name.strip():
        raise ConfigError(f"{article} {what} has no leading or trailing whitespace: {raw!r}")
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in name):
        raise ConfigError(f"{article} {what} has no control characters: {raw!r}")
    if len(name) > MAX_NAME_CHARS:
        raise ConfigError(f"{article} {what} is at most {MAX_NAME_CHARS} characters")
    if _NAME.fullmatch(name) is None:
        raise ConfigError(f"{article} {what} is {rule}, not {raw!r}")
    return name


def parse_duration(value: object) -> float:
    """Seconds from a number (seconds) or a text with a unit: "1s", "250ms", "2m",
    or a bare number as text ("1.5"). Never negative. The one parser for the
    command line and tournament files."""
    seconds: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        number, scale = value.strip().lower(), 1.0
        for suffix, unit in (("ms", 0.001), ("s", 1.0), ("m", 60.0)):
            if number.endswith(suffix):
                number, scale = number[: -len(suffix)], unit
                break
        with contextlib.suppress(ValueError):
            seconds = float(number) * scale
    if seconds is None or not math.isfinite(seconds):
        raise ConfigError(f'{value!r} is not a duration like "1s" or "250ms"')
    if seconds < 0:
        raise ConfigError(f"{value!r} cannot be negative")
    return seconds


def read_duration(value: object, key: str) -> float:
    """A duration from a settings file, the error naming its key."""
    try:
        return parse_duration(value)
    except ConfigError as e:
        raise ConfigError(f"{key}: {e}") from None


def read_limit(value: object, key: str) -> float | None:
    """A duration from a settings file where 0 means no limit (None)."""
    return read_duration(value, key) or None


@dataclass(frozen=True)
class Key:
    """How a settings file's key is read into the field of the same name where
    the field's type does not say it all: tournament/config.py reads every
    other key by its field's type, and a key not given is the field's default."""

    read: Callable[[Any, str], Any] | None = None  # (the file's value, key) -> the field's
    least: int | None = None  # the smallest number allowed
    positive: bool = False  # a number above zero
    directory: bool = False  # a directory that exists, relative to the file's folder
    missing: str = ""  # the error when a key whose field has no default is not given
    name: str = ""  # the file's key, when it is not the field's name


KEY = "key"  # the entry of a field's metadata holding its Key


def _probe_seats(value: object, key: str) -> ProbeSeats:
    if isinstance(value, ProbeSeats):
        return value
    try:
        return ProbeSeats(value)
    except ValueError:
        choices = ", ".join(repr(s.value) for s in ProbeSeats)
        raise ConfigError(f"{key} must be one of {choices}, not {value!r}") from None


@dataclass(frozen=True)
class ClockSettings:
    """Time control, in seconds. ``move_time``: the limit per decision (None:
    none). ``bank``/``increment``: a chess-style time bank per seat, charged
    with each decision's measured time and topped up by the increment (None:
    no bank). ``grace``: network allowance added to every deadline."""

    move_time: float | None = field(default=1.0, metadata={KEY: Key(read=read_limit)})
    bank: float | None = field(default=None, metadata={KEY: Key(read=read_duration)})
    increment: float = field(default=0.0, metadata={KEY: Key(read=read_duration)})
    grace: float = field(default=0.05, metadata={KEY: Key(read=read_duration)})

    def __post_init__(self) -> None:
        if self.move_time is None and self.bank is None:
            raise ConfigError("a clock needs a move time, a bank, or both")
        for name in ("move_time", "bank"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ConfigError(f"{name.replace('_', ' ')} must be positive, not {value}")
        if self.increment < 0 or self.grace < 0:
            raise ConfigError("increment and grace cannot be negative")

    def deadline(self, bank_left: float | None) -> float:
        """Seconds a seat has for its next decision, given what is left in its bank."""
        limits = [t for t in (self.move_time, bank_left) if t is not None]
        return max(0.0, min(limits))


class OnFault(enum.Enum):
    LOSE = "lose"  # the faulting seat's side loses the match at once
    SUBSTITUTE = "substitute"  # a legal move is played for it; forfeit after N strikes


class Substitute(enum.StrEnum):
    """Which legal move is played for a faulting seat under ``OnFault.SUBSTITUTE``
    (its value is what logs and stores keep)."""

    RANDOM = "random"  # drawn from the match's seed, so that replays are exact
    FIRST = "first"  # the first legal move in the rules' order

    @classmethod
    def parse(cls, text: str) -> Substitute:
        try:
            return cls(text)
        except ValueError:
            raise ConfigError(f"substitute must be random or first, not {text!r}") from None


@dataclass(frozen=True)
class FaultPolicy:
    on_fault: OnFault = OnFault.LOSE
    strikes: int = 3  # with SUBSTITUTE: the N-th fault of a seat forfeits the match
    substitute: Substitute = Substitute.RANDOM  # which legal move is played instead

    def __post_init__(self) -> None:
        if self.strikes < 1:
            raise ConfigError("strikes must be at least 1")
        # A script may write substitute="first": kept as the enum it names.
        object.__setattr__(self, "substitute", Substitute.parse(self.substitute))


class SandboxMode(enum.Enum):
    """Whether launched bots run in a sandbox (bubblewrap)."""

    AUTO = "auto"  # when bubblewrap is usable here; otherwise unconfined, with a warning
    ON = "on"  # always: refuse to launch a bot without it
    OFF = "off"  # never (a bot you trust, or a machine without user namespaces)


@dataclass(frozen=True)
class SandboxSettings:
    """How a launched bot is confined: the mode and the limits it runs under.
    Address (remote) and built-in engines are not launched, so not sandboxed."""

    mode: SandboxMode = SandboxMode.AUTO
    memory_mib: int = 1024  # data memory of each process (RLIMIT_DATA)
    processes: int = 64  # processes and threads together (RLIMIT_NPROC)
    disk_mib: int = 64  # each of the private /tmp and HOME, and the largest file

    def __post_init__(self) -> None:
        for name in ("memory_mib", "processes", "disk_mib"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"sandbox {name} must be a whole number of at least 1")
        if self.memory_mib < 64 or self.processes < 4:
            raise ConfigError("a bot needs a memory limit of 64 MiB and 4 processes at least")

    def describe(self) -> str:
        return (
            f"{self.memory_mib} MiB memory, {self.processes} processes, "
            f"{self.disk_mib} MiB /tmp and HOME"
        )


_RAY_ADDRESS = 'address must be HOST:PORT of a Ray cluster, "local" or "processes"'
_CLUSTER_NAMES = ("local", "processes", "auto")


@dataclass(frozen=True)
class ClusterSettings:
    """Where a tournament's matches run (arena/cluster/): ``address`` of a Ray
    cluster (``HOST:PORT``), ``"local"`` (a Ray instance of this machine using
    every core) or ``"processes"`` (worker processes of this machine, one per
    core, without Ray); ``workers``: match workers (default one per CPU of the cluster);
    ``attempts``: how often a match is played from scratch when its worker or
    node is lost; ``working_dir``: a directory shipped to every node, where
    launched engines' paths under it are found; ``node``: the IP address of
    the Ray node of this machine the arena joins the cluster through (Ray's
    choice when unset: the head, when it runs here). Ray ends a process
    whose own node stops, whatever the arena does: a server that must
    outlive its cluster's head joins through another node."""

    address: str = field(metadata={KEY: Key(missing=_RAY_ADDRESS)})
    workers: int | None = field(default=None, metadata={KEY: Key(least=1)})
    attempts: int = field(default=3, metadata={KEY: Key(least=1)})
    working_dir: Path | None = field(default=None, metadata={KEY: Key(directory=True)})
    node: str | None = None

    def __post_init__(self) -> None:
        address = self.address.strip()
        # A word that is none of the names (a typo of "processes") is an error
        # here, not a Ray cluster that cannot be reached; Ray's own "auto" is one.
        if not address or (":" not in address and address not in _CLUSTER_NAMES):
            raise ConfigError(
                f"cluster {_RAY_ADDRESS}, not {address!r}" if address else _RAY_ADDRESS
            )
        object.__setattr__(self, "address", address)
        if self.node is not None and address in ("local", "processes"):
            raise ConfigError(f"cluster node is for a Ray cluster's address, not {address!r}")


class ProbeSeats(enum.Enum):
    """Which seats of a team game are probed (docs/audit.md)."""

    REMOTE = "remote"  # seats whose partner the arena reaches by address: it cannot confine them
    ALL = "all"  # every seat (to measure honest engines, which probes never flag)


@dataclass(frozen=True)
class ProbeSettings:
    """Probe decisions (docs/audit.md): at a sampled share ``rate`` of a probed
    seat's decisions, the same request is asked ``repeats`` more times of the
    same bot under fresh match ids, after its real answer and on no clock."""

    rate: float = 0.25
    repeats: int = 2
    seats: ProbeSeats = field(default=ProbeSeats.REMOTE, metadata={KEY: Key(read=_probe_seats)})

    def __post_init__(self) -> None:
        if not 0 < self.rate <= 1:
            raise ConfigError(f"probe rate must be above 0 and at most 1, not {self.rate}")
        if not 1 <= self.repeats <= 4:
            raise ConfigError(f"probe repeats must be 1 to 4, not {self.repeats}")
        object.__setattr__(self, "seats", _probe_seats(self.seats, "seats"))


@dataclass(frozen=True)
class MatchSettings:
    """Everything that decides how one match is played, except who plays it."""

    variant: Variant = field(default_factory=lambda: Variant(Game.SCOPA))
    seed: int = 0
    first_dealer: int | None = None
    clock: ClockSettings = field(default_factory=ClockSettings)
    policy: FaultPolicy = field(default_factory=FaultPolicy)
    match_id: str = "match"  # what the bots are told
    schedule_id: str = ""  # the match in its tournament's schedule (only in the log)
    startup_timeout: float = 10.0  # a launched bot: from start to ready
    handshake_timeout: float = 5.0
    notify_timeout: float = 1.0
    # Explicit deck orders (deal index, attempt) -> deck; None: drawn from the seed.
    decks: DeckSource | None = None
    # How launched engines run (an engine's own setting, if any, wins).
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    # A seat's own clock, where it has one (a person's bank and increment),
    # by seat; None or a missing entry: the match's ``clock``.
    seat_clocks: tuple[ClockSettings | None, ...] = ()
    # Probe decisions of partner seats (docs/audit.md); None: none.
    probes: ProbeSettings | None = None

    def clock_of(self, seat: int) -> ClockSettings:
        """The clock seat ``seat`` plays under."""
        own = self.seat_clocks[seat] if seat < len(self.seat_clocks) else None
        return own or self.clock


@dataclass(frozen=True)
class BuiltinEngine:
    """A strategy of arena.players.strategies played in-process (``builtin:greedy``)."""

    name: str
    strategy: str  # its key in arena.players.strategies.BUILT_IN
    options: tuple[str, ...] = ()  # its options, as words: ("--think", "0.1")

    def describe(self) -> str:
        return shlex.join([f"builtin:{self.strategy}", *self.options])


@dataclass(frozen=True)
class AddressEngine:
    """A bot someone else runs, reached at ``HOST:PORT``, ``[IPV6]:PORT`` or
    ``unix:/PATH``: the arena neither launches nor sandboxes it."""

    name: str
    address: str

    def describe(self) -> str:
        return self.address


@dataclass(frozen=True)
class CommandEngine:
    """A bot the arena launches from a command line (``python bot.py``)."""

    name: str
    command: tuple[str, ...]
    sandbox: SandboxSettings | None = None  # this engine's own; None: the match's
    # A launched engine's own directory (an uploaded bot's files): its current
    # directory, which relative paths in its command refer to; in a sandbox it
    # is shown read-only at /bot and nothing else of the arena's directory is.
    workdir: Path | None = None

    def describe(self) -> str:
        return " ".join(self.command) + (f" (in {self.workdir})" if self.workdir else "")


# A person's clock, unless the engine's options say otherwise: generous, as a
# person reads the table and moves a mouse (Board Game Arena gives a bank and
# a credit per turn the same way).
HUMAN_BANK = 300.0
HUMAN_INCREMENT = 10.0
HUMAN_JOIN = 600.0  # how long a seat waits for its person to sit down


@dataclass(frozen=True)
class HumanEngine:
    """A person at the table, playing in a browser (``me=human``): a seat
    whose decisions come from the page at its secret address. It plays on a
    bank of its own, topped up by an increment after each move."""

    name: str
    bank: float = HUMAN_BANK
    increment: float = HUMAN_INCREMENT
    join_timeout: float = HUMAN_JOIN  # from the match's start to the person sitting down

    def clock(self, grace: float) -> ClockSettings:
        """The seat's clock: its bank and increment, no limit per move."""
        return ClockSettings(move_time=None, bank=self.bank, increment=self.increment, grace=grace)

    def describe(self) -> str:
        return f"human --bank {self.bank:g}s --increment {self.increment:g}s"


def human_engine(name: str, words: Sequence[str]) -> HumanEngine:
    """``human [--bank D] [--increment D] [--join D]``: ConfigError naming a bad option."""
    values = {"--bank": HUMAN_BANK, "--increment": HUMAN_INCREMENT, "--join": HUMAN_JOIN}
    rest = list(words)
    while rest:
        option = rest.pop(0)
        key, sep, value = option.partition("=")
        if key not in values:
            known = ", ".join(values)
            raise ConfigError(f"engine {name}: human takes {known}, not {option!r}")
        if not sep:
            if not rest:
                raise ConfigError(f"engine {name}: {key} needs a duration, e.g. {key} 5m")
            value = rest.pop(0)
        try:
            values[key] = parse_duration(value)
        except ConfigError as e:
            raise ConfigError(f"engine {name}: {key}: {e}") from None
    bank, increment, join = values["--bank"], values["--increment"], values["--join"]
    if bank <= 0 or join <= 0:
        raise ConfigError(f"engine {name}: a person's bank and join time must be positive")
    return HumanEngine(name, bank, increment, join)


# How one engine is reached: match on the type to tell the kinds apart.
EngineSpec: TypeAlias = BuiltinEngine | AddressEngine | CommandEngine | HumanEngine


def parse_engine(text: str) -> EngineSpec:
    """``NAME=SPEC``, the one parser of an engine: SPEC is ``builtin:NAME`` (an
    in-process strategy), ``human`` (a person in a browser), an address of a
    bot someone runs, or else a command line the arena launches. ConfigError
    saying what is wrong otherwise."""
    name, sep, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    if not sep or not spec:
        raise ConfigError(f"engine {text!r}: expected NAME=SPEC, e.g. greedy=builtin:greedy")
    return engine_spec(name, spec)


def engine_spec(name: str, spec: str) -> EngineSpec:
    """The engine ``name`` reached by ``spec`` (the SPEC of ``NAME=SPEC``)."""
    name = checked_name(name, "engine name")
    if spec == "human" or spec.startswith("human "):
        try:
            words = shlex.split(spec)
        except ValueError as e:
            raise ConfigError(f"engine {name}: cannot read {spec!r}: {e}") from None
        return human_engine(name, words[1:])
    if spec.startswith("builtin:"):
        try:
            words = shlex.split(spec)
        except ValueError as e:
            raise ConfigError(f"engine {name}: cannot read {spec!r}: {e}") from None
        which = words[0].split(":", 1)[1]
        if which not in BUILT_IN:
            known = ", ".join(f"builtin:{k}" for k in BUILT_IN)
            raise ConfigError(f"engine {name}: unknown {words[0]!r}; known: {known}")
        try:
            BUILT_IN[which].check(words[1:])
        except ConfigError as e:
            raise ConfigError(f"engine {name}: {e}") from None
        return BuiltinEngine(name, which, tuple(words[1:]))
    if _ADDRESS.match(spec):
        return AddressEngine(name, spec)
    try:
        words = shlex.split(spec)
    except ValueError as e:
        raise ConfigError(f"engine {name}: cannot read command {spec!r}: {e}") from None
    return command_engine(name, words)


def command_engine(name: str, words: Sequence[str], workdir: Path | None = None) -> CommandEngine:
    """A launched engine from its command's words, ``python`` being the arena's
    own interpreter (``name`` as checked by ``engine_spec``)."""
    if not words:
        raise ConfigError(f"engine {name}: empty command")
    command = tuple(words)
    if command[0] in ("python", "python3"):
        command = (sys.executable, *command[1:])
    return CommandEngine(name, command, workdir=workdir)
