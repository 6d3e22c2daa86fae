"""Tournament configuration: a TOML file, checked key by key.

A typo is an error that names the key and suggests the nearest known one;
nothing is silently ignored. Durations are written like "1s" or "250ms".
See examples/tournament.toml for a commented example.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ConfigError, RulesError
from arena.layout import Layout
from arena.rules import Game, Variant
from arena.settings import (
    AddressEngine,
    ClockSettings,
    ClusterSettings,
    CommandEngine,
    EngineSpec,
    FaultPolicy,
    OnFault,
    SandboxMode,
    SandboxSettings,
    Substitute,
    parse_engine,
)
from arena.settings import parse_duration as settings_duration

FORMATS = ("round-robin", "gauntlet", "teams", "partnership", "sprt")


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


@dataclass(frozen=True)
class TournamentConfig:
    name: str
    variant: Variant
    format: str
    engines: tuple[EngineSpec, ...]
    rounds: int = 1  # duplicate sets (or single matches) per pairing
    duplicate: bool = True
    seed: str | None = None  # the master seed; None: a fresh random one, kept in the store
    concurrency: int = 1
    output: Path = Path("out/tournament")
    store: Path | None = None  # default: output / results.sqlite
    keep_warm: bool = False  # True: one process per engine and slot serves every match
    challenger: str | None = None
    clock: ClockSettings = field(default_factory=ClockSettings)
    policy: FaultPolicy = field(default_factory=FaultPolicy)
    suspend_after: int | None = None
    startup_timeout: float = 10.0
    sprt: SprtSettings | None = None
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    # Duplicate deals with remote bots: a remote bot can remember a deal and
    # recognise its twin later; the organiser must say that this is accepted.
    acknowledge_remote_twins: bool = False
    elo_k: float = 16.0  # K of the live Elo: small, since a bot version never changes
    # An engine that fails to start in this many matches in a row stops the run
    # (0: never); a match whose seat never started is a no contest.
    stop_after_startup_failures: int = 3
    # True: a seat that never started forfeits its match instead, and the run goes on.
    startup_failure_forfeits: bool = False
    # One remote bot may serve two partner seats (it sees both hands): only when
    # the organiser says so, as `arena match --allow-shared-partners` does.
    allow_shared_partners: bool = False
    # Plays a live spectator is shown behind (the competition server's watch
    # streams and web site); None: the server's --spectator-delay.
    spectator_delay: int | None = None
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
        if (
            self.duplicate
            and self.keep_warm
            and any(isinstance(e, CommandEngine) for e in self.engines)
        ):
            return [
                "keep_warm with duplicate deals: a warm bot process plays both matches of a "
                "duplicate set (never at once) and can remember the first deal's cards when its "
                "twin comes; launch per match (the default) to rule that out"
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
            "engines": [e.name for e in self.engines],
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
        for e in self.engines:
            data[f"engine.{e.name}.spec"] = e.describe()  # with its workdir, if any
            if isinstance(e, CommandEngine):
                data.update(_sandbox_keys(f"engine.{e.name}.sandbox", e.sandbox or self.sandbox))
        if self.allow_shared_partners:  # absent when false: older stores still resume
            data["allow_shared_partners"] = True
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


def parse_duration(value: Any, where: str) -> float:
    try:
        return settings_duration(value)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None


def _check_keys(table: dict[str, Any], known: set[str], where: str) -> None:
    for key in table:
        if key not in known:
            near = difflib.get_close_matches(key, sorted(known), n=1)
            hint = (
                f"; did you mean {near[0]!r}?" if near else f"; known: {', '.join(sorted(known))}"
            )
            raise ConfigError(f"{where}: unknown key {key!r}{hint}")


def _get(
    table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any
) -> Any:
    if key not in table:
        return default
    value = table[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        number = set(kinds) == {int, float}
        name = "a number" if number else " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
        raise ConfigError(f"{where}: {key} must be {name}, not {value!r}")
    return value


# How a type is named in an error, with its article: "rounds must be an integer".
_KIND_NAMES = {
    int: "an integer",
    float: "a number",
    str: "a string",
    bool: "true or false",
    dict: "a table",
    list: "a list",
}


def _number(table: dict[str, Any], key: str, where: str, default: float) -> float:
    """A float or an integer from the file (never a string or a boolean)."""
    return float(_get(table, key, (int, float), where, default))


def _at_least(value: int | None, key: str, where: str, least: int) -> int | None:
    """``value`` unchanged when it is at least ``least``; the same one-line error otherwise."""
    if value is not None and value < least:
        raise ConfigError(f"{where}: {key} must be at least {least}, not {value}")
    return value


TOP_KEYS = {
    "elo_k",
    "name",
    "variant",
    "target",
    "deal_limit",
    "fewest_cards",
    "leftovers_to_last_player",
    "format",
    "rounds",
    "duplicate",
    "seed",
    "concurrency",
    "output",
    "store",
    "keep_warm",
    "challenger",
    "suspend_after",
    "startup_timeout",
    "clock",
    "policy",
    "engine",
    "sprt",
    "sandbox",
    "acknowledge_remote_twins",
    "stop_after_startup_failures",
    "startup_failure_forfeits",
    "allow_shared_partners",
    "spectator_delay",
    "cluster",
}
CLUSTER_KEYS = {"address", "workers", "attempts", "working_dir"}
SANDBOX_KEYS = {"mode", "memory_mib", "processes", "disk_mib"}


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
    _check_keys(raw, TOP_KEYS, where)
    sandbox = sandbox_settings(raw.get("sandbox", {}), f"{where}: [sandbox]", SandboxSettings())
    try:
        variant = Variant(
            game=Game.parse(_get(raw, "variant", str, where, "scopa")),
            target=_get(raw, "target", int, where, 11) or None,
            deal_limit=_get(raw, "deal_limit", int, where, None),
            fewest_cards=_get(raw, "fewest_cards", bool, where, False),
            leftovers_to_last_player=_get(raw, "leftovers_to_last_player", bool, where, False),
        )
    except RulesError as e:
        raise ConfigError(f"{where}: {e}") from None
    fmt = _get(raw, "format", str, where, "round-robin")
    if fmt not in FORMATS:
        raise ConfigError(f"{where}: format {fmt!r} is not one of {', '.join(FORMATS)}")
    entries = raw.get("engine", [])
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{where}: no engines; add [[engine]] tables with name and spec")
    engines = []
    for i, entry in enumerate(entries):
        here = f"{where}: engine {i + 1}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{here}: must be a table with name and spec")
        _check_keys(entry, {"name", "spec", "sandbox", "workdir"}, here)
        if "name" not in entry or "spec" not in entry:
            raise ConfigError(f"{here}: needs both name and spec")
        if "workdir" in entry:
            engine = parse_engine(f"{entry['name']}={entry['spec']}")
            if not isinstance(engine, CommandEngine):
                raise ConfigError(f"{here}: only a launched engine (a command) has a workdir")
            engine = dataclasses.replace(engine, workdir=_workdir(entry["workdir"], base, here))
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
    clock_raw = _get(raw, "clock", dict, where, {})
    _check_keys(clock_raw, {"move_time", "bank", "increment", "grace"}, f"{where}: [clock]")
    clock = ClockSettings(
        move_time=parse_duration(clock_raw.get("move_time", "1s"), f"{where}: clock.move_time")
        or None,
        bank=parse_duration(clock_raw["bank"], f"{where}: clock.bank")
        if "bank" in clock_raw
        else None,
        increment=parse_duration(clock_raw.get("increment", 0), f"{where}: clock.increment"),
        grace=parse_duration(clock_raw.get("grace", "50ms"), f"{where}: clock.grace"),
    )
    policy_raw = _get(raw, "policy", dict, where, {})
    _check_keys(policy_raw, {"on_fault", "strikes", "substitute"}, f"{where}: [policy]")
    here = f"{where}: [policy]"
    try:
        on_fault = OnFault(_get(policy_raw, "on_fault", str, here, "lose"))
    except ValueError:
        raise ConfigError(f"{where}: policy.on_fault must be lose or substitute") from None
    strikes = _get(policy_raw, "strikes", int, here, 3)
    substitute = _get(policy_raw, "substitute", str, here, "random")
    try:
        policy = FaultPolicy(on_fault, strikes=strikes, substitute=Substitute.parse(substitute))
    except ConfigError as e:
        raise ConfigError(f"{here}: {e}") from None
    sprt = None
    if fmt == "sprt":
        s = _get(raw, "sprt", dict, where, None)
        if s is None:
            raise ConfigError(
                f"{where}: format sprt needs an [sprt] table (test, base, elo0, elo1)"
            )
        _check_keys(
            s,
            {"test", "base", "elo0", "elo1", "alpha", "beta", "max_sets", "count_faults"},
            f"{where}: [sprt]",
        )
        here = f"{where}: [sprt]"
        sprt = SprtSettings(
            test=_get(s, "test", str, here, ""),
            base=_get(s, "base", str, here, ""),
            elo0=_number(s, "elo0", here, 0.0),
            elo1=_number(s, "elo1", here, 20.0),
            alpha=_number(s, "alpha", here, 0.05),
            beta=_number(s, "beta", here, 0.05),
            max_sets=_get(s, "max_sets", int, here, 5000),
            count_faults=_get(s, "count_faults", bool, here, False),
        )
        for key in ("alpha", "beta"):
            if not 0 < getattr(sprt, key) < 0.5:
                raise ConfigError(f"{here}: {key} must be between 0 and 0.5")
        if not all(map(math.isfinite, (sprt.elo0, sprt.elo1))):
            raise ConfigError(f"{here}: elo0 and elo1 must be finite numbers")
        _at_least(sprt.max_sets, "max_sets", here, 1)
        for role in (sprt.test, sprt.base):
            if role not in names:
                raise ConfigError(f"{where}: sprt engine {role!r} is not among the engines")
        if sprt.elo0 >= sprt.elo1:
            raise ConfigError(f"{where}: sprt needs elo0 < elo1")
    challenger = _get(raw, "challenger", str, where, None)
    if fmt == "gauntlet" and challenger not in names:
        raise ConfigError(f"{where}: a gauntlet needs challenger = one of {', '.join(names)}")
    if fmt in ("teams", "partnership") and variant.seats != 4:
        raise ConfigError(
            f"{where}: format {fmt} needs a 4-seat game (scopa4, scopone, scientifico)"
        )
    if fmt == "partnership" and len(engines) < 4:
        raise ConfigError(f"{where}: partnership needs at least 4 engines")
    if len(engines) < 2:
        raise ConfigError(f"{where}: a tournament needs at least 2 engines")
    output = Path(_get(raw, "output", str, where, "out/tournament"))
    store = _get(raw, "store", str, where, None)
    rounds = _get(raw, "rounds", int, where, 1)
    concurrency = _get(raw, "concurrency", int, where, 1)
    if rounds < 1 or concurrency < 1:
        raise ConfigError(f"{where}: rounds and concurrency must be at least 1")
    suspend_after = _at_least(
        _get(raw, "suspend_after", int, where, None), "suspend_after", where, 1
    )
    duplicate = _get(raw, "duplicate", bool, where, True)
    acknowledged = _get(raw, "acknowledge_remote_twins", bool, where, False)
    remote = [e.name for e in engines if isinstance(e, AddressEngine)]
    if duplicate and remote and not acknowledged:
        what = "is a remote bot" if len(remote) == 1 else "are remote bots"
        raise ConfigError(
            f"{where}: {', '.join(remote)} {what}: with duplicate deals a remote bot can "
            "remember a deal and recognise its twin later (its first hand and the table "
            "give it away), which no schedule prevents; "
            "set duplicate = false, or acknowledge_remote_twins = true to accept it"
        )
    return TournamentConfig(
        name=_get(raw, "name", str, where, "tournament"),
        variant=variant,
        format=fmt,
        engines=tuple(engines),
        rounds=rounds,
        duplicate=duplicate,
        acknowledge_remote_twins=acknowledged,
        seed=_seed(raw, where),
        concurrency=concurrency,
        output=output,
        store=Path(store) if store else None,
        keep_warm=_get(raw, "keep_warm", bool, where, False),
        challenger=challenger,
        clock=clock,
        policy=policy,
        suspend_after=suspend_after,
        startup_timeout=parse_duration(
            raw.get("startup_timeout", "10s"), f"{where}: startup_timeout"
        ),
        sprt=sprt,
        sandbox=sandbox,
        elo_k=_elo_k(raw, where),
        stop_after_startup_failures=_count(raw, "stop_after_startup_failures", where, 3),
        startup_failure_forfeits=_get(raw, "startup_failure_forfeits", bool, where, False),
        spectator_delay=_at_least(
            _get(raw, "spectator_delay", int, where, None), "spectator_delay", where, 0
        ),
        allow_shared_partners=_get(raw, "allow_shared_partners", bool, where, False),
        cluster=_cluster(raw, where, base),
    )


def _cluster(raw: dict[str, Any], where: str, base: Path) -> ClusterSettings | None:
    """The [cluster] table: ``address`` (HOST:PORT of a Ray cluster, or "local"),
    ``workers``, ``attempts``, ``working_dir`` (relative to the file's folder)."""
    table = _get(raw, "cluster", dict, where, None)
    if table is None:
        return None
    here = f"{where}: [cluster]"
    _check_keys(table, CLUSTER_KEYS, here)
    address = _get(table, "address", str, here, "")
    if not address.strip():
        raise ConfigError(f'{here}: address must be HOST:PORT of a Ray cluster, or "local"')
    workers = _at_least(_get(table, "workers", int, here, None), "workers", here, 1)
    attempts = _at_least(_get(table, "attempts", int, here, 3), "attempts", here, 1)
    working_dir = None
    if "working_dir" in table:
        value = table["working_dir"]
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{here}: working_dir must be a directory's path")
        working_dir = (base / value).resolve()
        if not working_dir.is_dir():
            raise ConfigError(f"{here}: working_dir {value!r} is not a directory")
    return ClusterSettings(
        address.strip(), workers=workers, attempts=attempts or 3, working_dir=working_dir
    )


def sandbox_settings(value: Any, where: str, base: SandboxSettings) -> SandboxSettings:
    """Sandbox settings from a mode ("auto", "on", "off") or a table of mode and
    limits; what is not given comes from ``base`` (the file's [sandbox])."""
    if isinstance(value, str):
        value = {"mode": value}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a mode (auto, on, off) or a table")
    _check_keys(value, SANDBOX_KEYS, where)
    fields: dict[str, Any] = {}
    if "mode" in value:
        try:
            fields["mode"] = SandboxMode(value["mode"])
        except ValueError:
            raise ConfigError(f"{where}: mode must be auto, on or off") from None
    for key in SANDBOX_KEYS - {"mode"}:
        if key in value:
            fields[key] = _get(value, key, int, where, None)
    try:
        return dataclasses.replace(base, **fields)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None


def _seed(raw: dict[str, Any], where: str) -> str | None:
    """The master seed as text (an integer is its decimal text); None: not given."""
    value = _get(raw, "seed", (int, str), where, None)
    if value is None:
        return None
    text = str(value)
    if not text or len(text) > 200 or not text.isprintable():
        raise ConfigError(f"{where}: seed must be 1 to 200 printable characters")
    return text


def _count(raw: dict[str, Any], key: str, where: str, default: int) -> int:
    value = int(_get(raw, key, int, where, default))
    if value < 0:
        raise ConfigError(f"{where}: {key} must be 0 or more")
    return value


def _elo_k(raw: dict[str, Any], where: str) -> float:
    k = _get(raw, "elo_k", (int, float), where, 16.0)
    if isinstance(k, bool) or k <= 0:
        raise ConfigError(f"{where}: elo_k must be a positive number")
    return float(k)


def _workdir(value: Any, base: Path, where: str) -> Path:
    """An engine's own directory (relative to the config file's folder): it
    must exist, and only a launched engine can have one."""
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: workdir must be a directory's path")
    path = (base / value).resolve()
    if not path.is_dir():
        raise ConfigError(f"{where}: workdir {value!r} is not a directory")
    return path


def _resolve(spec: str, base: Path) -> str:
    """Engine commands name scripts relative to the config file's folder when they exist there."""
    parts = spec.split()
    if (
        len(parts) >= 2
        and parts[0] in ("python", "python3", "node")
        and not Path(parts[1]).is_absolute()
    ):
        candidate = base / parts[1]
        if candidate.exists():
            parts[1] = str(candidate.resolve())
            return " ".join(parts)
    return spec
