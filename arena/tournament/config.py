"""Tournament configuration: a TOML file, checked key by key.

Each key is read into the dataclass field of its name, by the field's type or
as the field's Key says (arena.match.settings.Key), and a key not given is the
field's default: keys and defaults are written once, on the fields. A typo is
an error that names the key and suggests the nearest known one; nothing is
silently ignored. Durations are written like "1s" or "250ms". See
examples/tournament.toml for a commented example.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import functools
import math
import tomllib
import types
import typing
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from arena.errors import ConfigError, RulesError
from arena.match.settings import (
    KEY,
    AddressEngine,
    ClockSettings,
    ClusterSettings,
    CommandEngine,
    EngineSpec,
    FaultPolicy,
    Key,
    ProbeSettings,
    SandboxSettings,
    parse_engine,
    read_duration,
)
from arena.results.layout import Layout
from arena.rules import Game, Variant
from arena.rules.variants import REGIONAL_OPTIONS
from arena.transport.commands import Command

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    Table = TypeVar("Table", bound=DataclassInstance)


class TournamentFormat(enum.StrEnum):
    """How the engines of a tournament are paired (its value is what files,
    stores and outputs say)."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"  # the challenger against each of the others
    TEAMS = "teams"
    PARTNERSHIP = "partnership"
    SPRT = "sprt"  # the engine under test against the base until the test decides
    # Open on a competition server: versions of bots enter while it runs, the
    # server picks each set (arena/server/ladder.py, docs/ladder.md).
    LADDER = "ladder"


# How a type is named in an error, with its article: "rounds must be an integer".
_KIND_NAMES = {
    int: "an integer",
    float: "a number",
    str: "a string",
    bool: "true or false",
    dict: "a table",
    list: "a list",
}


def _typed(value: Any, kind: type | tuple[type, ...], key: str) -> Any:
    """``value`` when it is of ``kind`` (a boolean is never a number); the
    same one-line error otherwise."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        number = set(kinds) == {int, float}
        name = "a number" if number else " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
        raise ConfigError(f"{key} must be {name}, not {value!r}")
    return value


def _format(value: Any, key: str) -> TournamentFormat:
    try:
        return TournamentFormat(_typed(value, str, key))
    except ValueError:
        known = ", ".join(TournamentFormat)
        raise ConfigError(f"{key} {value!r} is not one of {known}") from None


def _seed(value: Any, key: str) -> str:
    """The master seed as text (an integer is its decimal text)."""
    text = str(_typed(value, (int, str), key))
    if not text or len(text) > 200 or not text.isprintable():
        raise ConfigError(f"{key} must be 1 to 200 printable characters")
    return text


def _store(value: Any, key: str) -> Path | None:
    text = _typed(value, str, key)
    return Path(text) if text else None


@dataclass(frozen=True)
class SprtSettings:
    test: str  # the engine under test ("is it stronger?")
    base: str
    elo0: float = 0.0  # normalized Elo bounds
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    max_sets: int = 5000
    # False: a duplicate set with any fault (a forfeit, a substituted move, a
    # seat that never started) is left out of the test; True: counted as played.
    count_faults: bool = False


@dataclass(frozen=True, kw_only=True)
class TournamentConfig:
    """A tournament file, checked. Besides the keys named after fields:
    ``[[engine]]`` tables are the engines, and ``variant`` (its game),
    ``target``, ``deal_limit``, ``fewest_cards``, ``leftovers_to_last_player``,
    and every option of ``arena.rules.OPTIONS`` (``re_bello``, ``napola``,
    ``fifteen``, ...) at the top of the file are the variant."""

    name: str = "tournament"
    variant: Variant = field(default_factory=Variant)
    format: TournamentFormat = field(
        default=TournamentFormat.ROUND_ROBIN, metadata={KEY: Key(read=_format)}
    )
    engines: tuple[EngineSpec, ...] = field(metadata={KEY: Key(name="engine")})
    # Duplicate sets (or single matches) per pairing.
    rounds: int = field(default=1, metadata={KEY: Key(least=1)})
    duplicate: bool = True
    # True: round R of every pairing plays the same decks (set ids deals#R:PAIRING),
    # so that results of different pairings compare deck by deck; False: each
    # pairing's own (docs/seeds.md).
    shared_decks: bool = False
    # The master seed; None: a fresh random one, kept in the store.
    seed: str | None = field(default=None, metadata={KEY: Key(read=_seed)})
    concurrency: int = field(default=1, metadata={KEY: Key(least=1)})
    output: Path = Path("out/tournament")
    # Default: output / results.sqlite.
    store: Path | None = field(default=None, metadata={KEY: Key(read=_store)})
    keep_warm: bool = False  # True: one process per engine and slot serves every match
    challenger: str | None = None
    clock: ClockSettings = field(default_factory=ClockSettings)
    policy: FaultPolicy = field(default_factory=FaultPolicy)
    suspend_after: int | None = field(default=None, metadata={KEY: Key(least=1)})
    startup_timeout: float = field(default=10.0, metadata={KEY: Key(read=read_duration)})
    sprt: SprtSettings | None = None
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    # Duplicate deals with remote bots: a remote bot can remember a deal and
    # recognise its twin later; the organiser must say that this is accepted.
    acknowledge_remote_twins: bool = False
    # K of the live Elo: small, since a bot version never changes.
    elo_k: float = field(default=16.0, metadata={KEY: Key(positive=True)})
    # An engine that fails to start in this many matches in a row stops the run
    # (0: never); a match whose seat never started is a no contest.
    stop_after_startup_failures: int = field(default=3, metadata={KEY: Key(least=0)})
    # True: a seat that never started forfeits its match instead, and the run goes on.
    startup_failure_forfeits: bool = False
    # One remote bot may serve two partner seats (it sees both hands): only when
    # the organiser says so, as `arena match --allow-shared-partners` does.
    allow_shared_partners: bool = False
    # Plays a live spectator is shown behind (the competition server's watch
    # streams and web site); None: the server's --spectator-delay.
    spectator_delay: int | None = field(default=None, metadata={KEY: Key(least=0)})
    # Probe decisions of partner seats (docs/audit.md): a [probes] table; None: none.
    probes: ProbeSettings | None = None
    # None: every match in this process; else on a Ray cluster (arena/cluster/).
    # Not part of the fingerprint: where matches run changes no result.
    cluster: ClusterSettings | None = None

    @property
    def store_path(self) -> Path:
        return self.layout.store

    @property
    def layout(self) -> Layout:
        """Where the run's store, logs and bots' output are."""
        return Layout.of(self.output, self.store)

    def cautions(self) -> list[str]:
        """What the organiser should know before this runs (printed, not refused)."""
        if not self.keep_warm or not any(isinstance(e, CommandEngine) for e in self.engines):
            return []
        if self.duplicate:
            return [
                "keep_warm with duplicate deals: a warm bot process plays both matches of a "
                "duplicate set (never at once) and can remember the first deal's cards when its "
                "twin comes; launch per match (the default) to rule that out"
            ]
        if self.shared_decks:
            return [
                "keep_warm with shared decks: a warm bot process meets each round's decks again "
                "in its other pairings and can remember them; launch per match (the default) to "
                "rule that out"
            ]
        return []

    def engine(self, name: str) -> EngineSpec:
        for e in self.engines:
            if e.name == name:
                return e
        raise ConfigError(f"no engine named {name!r}")

    def fingerprint(self) -> dict[str, Any]:
        """Every setting that can change a result or its fairness, by name: a
        resumed run must match it key by key (concurrency, output paths and
        how results are shown may change between runs)."""
        data: dict[str, Any] = {
            "variant": self.variant.game.value,
            "target": self.variant.target,
            "deal_limit": self.variant.deal_limit,
            "fewest_cards": self.variant.fewest_cards,
            "leftovers_to_last_player": self.variant.leftovers_to_last_player,
            "format": self.format,
            "engines": []
            if self.format is TournamentFormat.LADDER
            else [e.name for e in self.engines],
            "rounds": self.rounds,
            "duplicate": self.duplicate,
            "seed": self.seed,
            "challenger": self.challenger,
            "keep_warm": self.keep_warm,
            "acknowledge_remote_twins": self.acknowledge_remote_twins,
            "clock.move_time": self.clock.move_time,
            "clock.bank": self.clock.bank,
            "clock.increment": self.clock.increment,
            "clock.grace": self.clock.grace,
            "policy.on_fault": self.policy.on_fault.value,
            "policy.strikes": self.policy.strikes,
            "policy.substitute": self.policy.substitute,
            "suspend_after": self.suspend_after,
            "startup_timeout": self.startup_timeout,
            "stop_after_startup_failures": self.stop_after_startup_failures,
            "startup_failure_forfeits": self.startup_failure_forfeits,
            **_sandbox_keys("sandbox", self.sandbox),
        }
        # Regional options only when on: the files of runs made before they
        # existed keep their fingerprint, and so their resume.
        for option in REGIONAL_OPTIONS:
            if getattr(self.variant, option):
                data[option] = True
        # A ladder's players join as it runs: each is kept in its engines table.
        for e in self.engines if self.format is not TournamentFormat.LADDER else ():
            data[f"engine.{e.name}.spec"] = e.describe()  # with its workdir, if any
            if isinstance(e, CommandEngine):
                data.update(_sandbox_keys(f"engine.{e.name}.sandbox", e.sandbox or self.sandbox))
        if self.allow_shared_partners:  # absent when false: older stores still resume
            data["allow_shared_partners"] = True
        if self.shared_decks:
            data["shared_decks"] = True
        if self.probes is not None:  # absent when off: older stores still resume
            data["probes.rate"] = self.probes.rate
            data["probes.repeats"] = self.probes.repeats
            data["probes.seats"] = self.probes.seats.value
        if self.sprt is not None:
            data["sprt.test"] = self.sprt.test
            data["sprt.base"] = self.sprt.base
        return data


def _sandbox_keys(prefix: str, sandbox: SandboxSettings) -> dict[str, Any]:
    return {
        f"{prefix}.mode": sandbox.mode.value,
        f"{prefix}.memory_mib": sandbox.memory_mib,
        f"{prefix}.processes": sandbox.processes,
        f"{prefix}.disk_mib": sandbox.disk_mib,
    }


def _game(value: Any, key: str) -> Game:
    return Game.parse(_typed(value, str, key))


def _target(value: Any, key: str) -> int | None:
    return _typed(value, int, key) or None  # 0: no target score


_NO_KEYS: Mapping[str, Key] = types.MappingProxyType({})
# Variant (in arena.rules) is read from the top of the file, its game as `variant`.
_VARIANT_KEYS = {"game": Key(name="variant", read=_game), "target": Key(read=_target)}
_SPRT_KEYS = {"max_sets": Key(least=1)}
# An [[engine]] table: NAME=SPEC in two keys, and what only a launched engine has.
_ENGINE_KEYS = {"name", "spec", "sandbox", "workdir"}
# Fields of TournamentConfig read apart: the variant from keys at the top, the
# engines with the file's sandbox and folder, the sandbox as a mode or a table,
# and the [sprt] table only for format sprt, checked against the engines.
_READ_APART = {"variant", "engines", "sandbox", "sprt"}


def _key(f: dataclasses.Field[Any], keys: Mapping[str, Key]) -> Key:
    how = keys.get(f.name) or f.metadata.get(KEY)
    return how if isinstance(how, Key) else Key()


def _file_keys(cls: type[DataclassInstance], keys: Mapping[str, Key] = _NO_KEYS) -> set[str]:
    """The keys of a table read into ``cls``: its fields' names, or their Keys' own."""
    return {_key(f, keys).name or f.name for f in dataclasses.fields(cls)}


TOP_KEYS = (_file_keys(TournamentConfig) - {"variant"}) | _file_keys(Variant, _VARIANT_KEYS)


def load_config(path: Path, overrides: dict[str, Any] | None = None) -> TournamentConfig:
    """Read and check a tournament file; ``overrides`` (from the command line) win."""
    try:
        raw = tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    for key, value in (overrides or {}).items():
        if isinstance(value, dict) and isinstance(raw.get(key), dict):
            raw[key] = {**raw[key], **value}  # e.g. [sandbox] limits given on the command line
        elif value is not None:
            raw[key] = value
    return config_from_dict(raw, str(path), base=Path(path).parent)


def config_from_dict(
    raw: dict[str, Any], where: str = "config", base: Path = Path(".")
) -> TournamentConfig:
    """The tournament a file's table describes; ConfigError naming ``where``
    and the key at fault. Relative directories are in ``base``."""
    _check_keys(raw, TOP_KEYS, where)
    sandbox = sandbox_settings(raw.get("sandbox", {}), f"{where}: [sandbox]", SandboxSettings())
    variant = _construct(Variant, _read_fields(Variant, raw, where, base, _VARIANT_KEYS), where)
    given = _read_fields(TournamentConfig, raw, where, base, skip=_READ_APART)
    engines = _engines(raw.get("engine", []), where, base, sandbox)
    cfg = TournamentConfig(variant=variant, engines=engines, sandbox=sandbox, **given)
    if cfg.format is TournamentFormat.SPRT:
        cfg = dataclasses.replace(cfg, sprt=_sprt(raw, where, [e.name for e in engines]))
    _refuse_unplayable(cfg, where)
    return cfg


def _check_keys(table: dict[str, Any], known: set[str], where: str) -> None:
    for key in table:
        if key not in known:
            near = difflib.get_close_matches(key, sorted(known), n=1)
            hint = (
                f"; did you mean {near[0]!r}?" if near else f"; known: {', '.join(sorted(known))}"
            )
            raise ConfigError(f"{where}: unknown key {key!r}{hint}")


def _read_fields(
    cls: type[DataclassInstance],
    table: dict[str, Any],
    where: str,
    base: Path,
    keys: Mapping[str, Key] = _NO_KEYS,
    skip: Collection[str] = (),
) -> dict[str, Any]:
    """The fields of ``cls`` that ``table`` gives, by name, each read by its
    type or as its Key (from ``keys``, else the field's metadata) says."""
    hints = _hints(cls)
    given: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        how = _key(f, keys)
        key = how.name or f.name
        if key not in table:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ConfigError(f"{where}: {how.missing or f'{key} is missing'}")
            continue
        given[f.name] = _value(table[key], key, hints[f.name], how, where, base)
    return given


@functools.cache
def _hints(cls: type[DataclassInstance]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _value(value: Any, key: str, hint: Any, how: Key, where: str, base: Path) -> Any:
    """One key's value as its field holds it; ConfigError naming ``where`` and the key."""
    kind = _without_none(hint)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind) and how.read is None:
        try:
            table = _typed(value, dict, key)
        except ConfigError as e:
            raise ConfigError(f"{where}: {e}") from None
        return _read_table(kind, table, f"{where}: [{key}]", base)
    try:
        if how.read is not None:
            read = how.read(value, key)
        elif how.directory:
            read = _directory(value, key, base)
        else:
            read = _by_type(value, kind, key)
        if how.least is not None and read is not None and read < how.least:
            raise ConfigError(f"{key} must be at least {how.least}, not {read}")
        if how.positive and read <= 0:
            raise ConfigError(f"{key} must be a positive number")
    except (ConfigError, RulesError) as e:
        raise ConfigError(f"{where}: {e}") from None
    return read


def _without_none(hint: Any) -> Any:
    """X of an optional ``X | None`` (a file gives a value or leaves the key out)."""
    if isinstance(hint, types.UnionType):
        (kind,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return kind
    return hint


def _by_type(value: Any, kind: Any, key: str) -> Any:
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        text = _typed(value, str, key)
        try:
            return kind(text)
        except ValueError:
            *others, last = (str(member.value) for member in kind)
            choices = f"{', '.join(others)} or {last}"
            raise ConfigError(f"{key} must be {choices}, not {text!r}") from None
    if kind is Path:
        return Path(_typed(value, str, key))
    if kind is float:
        return float(_typed(value, (int, float), key))
    if kind in (bool, int, str):
        return _typed(value, kind, key)
    raise TypeError(f"a file's {key} cannot be read as {kind}")  # a field without its Key


def _read_table(
    cls: type[Table],
    table: dict[str, Any],
    where: str,
    base: Path,
    keys: Mapping[str, Key] = _NO_KEYS,
) -> Table:
    """A table of the file read into ``cls``, every key of it known."""
    _check_keys(table, _file_keys(cls, keys), where)
    return _construct(cls, _read_fields(cls, table, where, base, keys), where)


def _construct(cls: type[Table], given: dict[str, Any], where: str) -> Table:
    """``cls(**given)``, its own checks' errors naming ``where``."""
    try:
        return cls(**given)
    except (ConfigError, RulesError) as e:
        raise ConfigError(f"{where}: {e}") from None


def _directory(value: Any, key: str, base: Path) -> Path:
    """A directory given relative to the config file's folder: it must exist."""
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{key} must be a directory's path")
    path = (base / value).resolve()
    if not path.is_dir():
        raise ConfigError(f"{key} {value!r} is not a directory")
    return path


def sandbox_settings(value: Any, where: str, base: SandboxSettings) -> SandboxSettings:
    """Sandbox settings from a mode ("auto", "on", "off") or a table of mode and
    limits; what is not given comes from ``base`` (the file's [sandbox])."""
    if isinstance(value, str):
        value = {"mode": value}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a mode (auto, on, off) or a table")
    _check_keys(value, _file_keys(SandboxSettings), where)
    given = _read_fields(SandboxSettings, value, where, Path("."))
    try:
        return dataclasses.replace(base, **given)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None


def _engines(
    entries: Any, where: str, base: Path, sandbox: SandboxSettings
) -> tuple[EngineSpec, ...]:
    """The [[engine]] tables: each NAME=SPEC through the one engine parser, a
    launched engine with its own directory and sandbox if it says so."""
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{where}: no engines; add [[engine]] tables with name and spec")
    engines: list[EngineSpec] = []
    for i, entry in enumerate(entries):
        here = f"{where}: engine {i + 1}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{here}: must be a table with name and spec")
        _check_keys(entry, _ENGINE_KEYS, here)
        if "name" not in entry or "spec" not in entry:
            raise ConfigError(f"{here}: needs both name and spec")
        if "workdir" in entry:
            engine = parse_engine(f"{entry['name']}={entry['spec']}")
            if not isinstance(engine, CommandEngine):
                raise ConfigError(f"{here}: only a launched engine (a command) has a workdir")
            try:
                workdir = _directory(entry["workdir"], "workdir", base)
            except ConfigError as e:
                raise ConfigError(f"{here}: {e}") from None
            engine = dataclasses.replace(engine, workdir=workdir)
        else:
            engine = parse_engine(f"{entry['name']}={_resolve(str(entry['spec']), base)}")
        if "sandbox" in entry:
            own = sandbox_settings(entry["sandbox"], f"{here}: sandbox", sandbox)
            if isinstance(engine, CommandEngine):  # only what the arena launches is sandboxed
                engine = dataclasses.replace(engine, sandbox=own)
        engines.append(engine)
    names = [e.name for e in engines]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: engine names must be unique ({', '.join(names)})")
    return tuple(engines)


def _sprt(raw: dict[str, Any], where: str, names: list[str]) -> SprtSettings:
    if "sprt" not in raw:
        raise ConfigError(f"{where}: format sprt needs an [sprt] table (test, base, elo0, elo1)")
    try:
        table = _typed(raw["sprt"], dict, "sprt")
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None
    here = f"{where}: [sprt]"
    sprt = _read_table(SprtSettings, table, here, Path("."), _SPRT_KEYS)
    for key in ("alpha", "beta"):
        if not 0 < getattr(sprt, key) < 0.5:
            raise ConfigError(f"{here}: {key} must be between 0 and 0.5")
    if not all(map(math.isfinite, (sprt.elo0, sprt.elo1))):
        raise ConfigError(f"{here}: elo0 and elo1 must be finite numbers")
    for role in (sprt.test, sprt.base):
        if role not in names:
            raise ConfigError(f"{where}: sprt engine {role!r} is not among the engines")
    if sprt.elo0 >= sprt.elo1:
        raise ConfigError(f"{where}: sprt needs elo0 < elo1")
    return sprt


def _refuse_unplayable(cfg: TournamentConfig, where: str) -> None:
    """What no key alone says is wrong: a format the engines or the game cannot
    play, and remote bots in duplicate deals nobody accepted."""
    names = [e.name for e in cfg.engines]
    if cfg.variant.sides > 2:
        raise ConfigError(
            f"{where}: {cfg.variant.game.value} is a game of three players, which arena match "
            "plays; tournaments, their standings and ratings are of two sides only for now"
        )
    if cfg.format is TournamentFormat.GAUNTLET and cfg.challenger not in names:
        raise ConfigError(f"{where}: a gauntlet needs challenger = one of {', '.join(names)}")
    if cfg.format is TournamentFormat.TEAMS and not cfg.variant.game.is_team_game:
        raise ConfigError(f"{where}: format teams needs a team game (scopa4, scopone, scopa6, ...)")
    if cfg.format is TournamentFormat.PARTNERSHIP and cfg.variant.seats != 4:
        raise ConfigError(
            f"{where}: format {cfg.format} needs a 4-seat game (scopa4, scopone, scientifico)"
        )
    if cfg.format is TournamentFormat.PARTNERSHIP and len(names) < 4:
        raise ConfigError(f"{where}: partnership needs at least 4 engines")
    if len(names) < 2 and cfg.format is not TournamentFormat.LADDER:
        raise ConfigError(f"{where}: a tournament needs at least 2 engines")
    if cfg.shared_decks and cfg.format in (TournamentFormat.SPRT, TournamentFormat.LADDER):
        raise ConfigError(
            f"{where}: shared_decks is for round robin, gauntlet, teams and partnership "
            f"tournaments, not format {cfg.format}"
        )
    remote = [e.name for e in cfg.engines if isinstance(e, AddressEngine)]
    if (cfg.duplicate or cfg.shared_decks) and remote and not cfg.acknowledge_remote_twins:
        what = "is a remote bot" if len(remote) == 1 else "are remote bots"
        dealt = "duplicate deals" if cfg.duplicate else "shared decks"
        off = " and shared_decks = false" if cfg.duplicate and cfg.shared_decks else ""
        key = "duplicate" if cfg.duplicate else "shared_decks"
        raise ConfigError(
            f"{where}: {', '.join(remote)} {what}: with {dealt} a remote bot can "
            "remember a deal and recognise its twin later (its first hand and the table "
            "give it away), which no schedule prevents; "
            f"set {key} = false{off}, or acknowledge_remote_twins = true to accept it"
        )


def _resolve(spec: str, base: Path) -> str:
    """Engine commands name scripts relative to the config file's folder when
    they exist there: the script any interpreter runs, as the sandbox reads
    the command (``python -u bot.py``, ``ruby bot.rb``, ``java -jar bot.jar``)."""
    parts = spec.split()
    script = Command(tuple(parts)).effective().script() if parts else None
    if script is None or Path(script).is_absolute() or not (base / script).exists():
        return spec
    parts[parts.index(script, 1)] = str((base / script).resolve())
    return " ".join(parts)
