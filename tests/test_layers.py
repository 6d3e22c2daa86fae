"""Imports point one way (docs/architecture.md): each check imports a module in a
fresh interpreter and lists what got loaded."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.process


def loaded(module: str) -> set[str]:
    """The top-level packages and arena modules that importing ``module`` loads."""
    code = (
        f"import sys, {module};"
        "print(' '.join(m for m in sys.modules if '.' not in m or m.startswith('arena.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("module", ["arena.settings", "arena.tournament.config"])
def test_settings_and_the_config_parser_load_neither_trio_nor_grpc(module):
    modules = loaded(module)
    assert not modules & {"trio", "grpc", "google"}, modules & {"trio", "grpc", "google"}


def test_the_transport_and_the_arena_side_never_import_the_bot_sdk():
    for module in ("arena.transport.seats", "arena.play", "arena.tournament.runner"):
        assert "arena.sdk" not in loaded(module), module


def test_the_bot_sdk_loads_no_trio():
    modules = loaded("arena.sdk")
    assert "grpc" in modules  # the check can fail: it sees what the SDK does load
    assert "trio" not in modules


def test_the_package_ships_its_types():
    from pathlib import Path

    import arena

    assert (Path(arena.__file__).parent / "py.typed").exists()
