"""Imports point one way (docs/architecture.md): each rule the document states
is checked here, by reading every import a module writes (at its top or
inside a function), or by importing a module in a fresh interpreter and
listing what got loaded."""

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ARENA = Path(__file__).resolve().parents[1] / "arena"


@functools.cache
def written_imports(path: Path) -> frozenset[str]:
    """Every arena module ``path`` imports, wherever the import is written."""
    found: set[str] = set()
    package = ".".join(path.relative_to(ARENA.parent).with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(name for name in found if name == "arena" or name.startswith("arena."))


def modules_in(package: str) -> list[Path]:
    return sorted((ARENA / package).rglob("*.py"))


def importers(target: str, package: str) -> list[str]:
    """The modules of ``package`` that import anything of ``target``."""
    return [
        str(path.relative_to(ARENA.parent))
        for path in modules_in(package)
        if any(n == target or n.startswith(target + ".") for n in written_imports(path))
    ]


def test_the_site_imports_nothing_of_the_server():
    assert importers("arena.server", "web") == []


def test_the_server_imports_the_site_only_to_start_it():
    assert importers("arena.web", "server") == ["arena/server/site.py"]


def test_the_site_reads_no_tournament_internals():
    """It reads stores, standings and the SPRT statistic; it never runs a tournament."""
    for internal in ("runner", "lifecycle", "schedule"):
        assert importers(f"arena.tournament.{internal}", "web") == [], internal
        assert "arena.cluster" not in {n for p in modules_in("web") for n in written_imports(p)}


@pytest.mark.process
def test_the_standings_worker_loads_neither_trio_nor_grpc():
    """The cache's worker process imports the module that holds its function."""
    modules = loaded("arena.tournament.standings_cache")
    assert not modules & {"trio", "grpc", "google"}, modules & {"trio", "grpc", "google"}
    assert not {m for m in modules if m.startswith("arena.server")}


def loaded(module: str) -> set[str]:
    """The top-level packages and arena modules that importing ``module`` loads."""
    code = (
        f"import sys, {module};"
        "print(' '.join(m for m in sys.modules if '.' not in m or m.startswith('arena.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.process
@pytest.mark.parametrize(
    "module", ["arena.match.settings", "arena.tournament.config", "arena.wire.protocol"]
)
def test_settings_and_the_config_parser_load_neither_trio_nor_grpc(module):
    modules = loaded(module)
    assert not modules & {"trio", "grpc", "google"}, modules & {"trio", "grpc", "google"}
    # Nor a player: the built-in engines load when one is played.
    assert not modules & {"arena.players.traditional", "arena.players.search"}, modules


@pytest.mark.process
def test_the_values_a_bot_is_reached_through_are_plain():
    """arena.match.engine, below the wire: the referee speaks to every bot in them."""
    modules = loaded("arena.match.engine")
    assert not modules & {"trio", "grpc", "google"}, modules & {"trio", "grpc", "google"}
    assert not {m for m in modules if m.startswith(("arena.wire", "arena.transport"))}


@pytest.mark.process
def test_the_transport_and_the_arena_side_never_import_the_bot_sdk():
    for module in ("arena.transport.seats", "arena.play", "arena.tournament.runner"):
        assert "arena.sdk" not in loaded(module), module


@pytest.mark.process
def test_the_bot_sdk_loads_no_trio():
    modules = loaded("arena.sdk")
    assert "grpc" in modules  # the check can fail: it sees what the SDK does load
    assert "trio" not in modules


def test_the_package_ships_its_types():
    from pathlib import Path

    import arena

    assert (Path(arena.__file__).parent / "py.typed").exists()


# Each layer, and the arena modules above it that it must never import
# (docs/architecture.md's picture, read from the bottom). The root's modules
# are named as modules (referee, play, broker, check, archive, sdk).
EDGES = ("tournament", "cluster", "server", "web", "cli")
ABOVE = {
    "players": (
        "match",
        "logs",
        "audit",
        "results",
        "wire",
        "transport",
        "referee",
        "play",
        *EDGES,
    ),
    "match": ("logs", "audit", "results", "wire", "transport", "referee", "play", *EDGES),
    "results": ("players", "logs", "audit", "wire", "transport", "referee", "play", *EDGES),
    "wire": ("logs", "audit", "results", "transport", "referee", "play", *EDGES),
    "logs": ("audit", "results", "transport", "referee", "play", *EDGES),
    "audit": ("wire", "results", "transport", "referee", "play", *EDGES),
    "transport": ("logs", "audit", "results", "referee", "play", *EDGES),
    "cluster": ("tournament", "server", "web", "cli"),
    "tournament": ("server", "web", "cli"),
    "web": ("server", "cli"),
    "server": ("cli",),
}


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_no_layer_imports_one_above_it(layer):
    assert modules_in(layer), f"no package arena/{layer}: the table is out of date"
    for above in ABOVE[layer]:
        assert importers(f"arena.{above}", layer) == [], f"{layer} imports {above}"


def test_only_play_builds_a_referee():
    """Commands, tournaments, the cluster, the server and the site run a match
    through play.run_match; nothing else reaches the referee."""
    assert importers("arena.referee", "") == ["arena/play.py"]


def test_the_site_runs_a_match_only_at_a_persons_table():
    assert importers("arena.play", "web") == ["arena/web/table.py"]


def test_the_root_holds_only_what_has_no_better_home():
    """The ground floor and the edges; everything else lives in a package."""
    root = sorted(p.stem for p in ARENA.glob("*.py") if p.stem != "__init__")
    assert root == [
        "archive",
        "broker",
        "check",
        "errors",
        "files",
        "play",
        "referee",
        "sdk",
        "testing",
        "timestamps",
    ]


def private_names_used(path: Path) -> list[str]:
    """Another arena module's private names ``path`` uses: imported by name
    (``from arena.x import _y``) or read from an imported module (``x._y``).
    Generated code (arena/wire/v1) is protobuf's, not checked."""
    tree = ast.parse(path.read_text())
    modules: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").startswith("arena")
        ):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                else:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if alias.name.startswith("arena")
            )
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names():
    """A name with a leading underscore is its module's own: what another
    module needs is given a public name where it is defined."""
    used = {
        str(path.relative_to(ARENA.parent)): names
        for path in sorted(ARENA.rglob("*.py"))
        if "v1" not in path.relative_to(ARENA).parts
        for names in [private_names_used(path)]
        if names
    }
    assert used == {}


LONG = 600  # lines: a module longer says at its top why it is one module


def test_a_long_module_says_why_it_is_one():
    long = {
        str(path.relative_to(ARENA.parent)): lines
        for path in sorted(ARENA.rglob("*.py"))
        if "v1" not in path.relative_to(ARENA).parts
        and (lines := len(path.read_text().splitlines())) > LONG
    }
    assert long, "no module is long: the check can no longer fail"
    unexplained = {
        path: lines
        for path, lines in long.items()
        if "Why one module"
        not in (ast.get_docstring(ast.parse((ARENA.parent / path).read_text())) or "")
    }
    assert unexplained == {}
