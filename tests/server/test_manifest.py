"""An upload's manifest: read once into the engine that runs it."""

import sys

import pytest

from arena.errors import ConfigError
from arena.match.settings import CommandEngine, SandboxMode
from arena.server.submissions import MANIFEST, read_manifest
from arena.tournament.config import config_from_dict


def write(root, text):
    (root / MANIFEST).write_text(text, encoding="utf-8")
    return root


def test_a_manifest_gives_the_engine_launched_in_the_bot_s_directory(tmp_path):
    root = write(tmp_path, 'name = "alice-up"\nversion = "1"\ncommand = "python bot.py"\n')
    manifest = read_manifest(root)
    assert manifest.command == ("python", "bot.py")  # as written: kept with the submission
    assert manifest.engine == CommandEngine("alice-up", (sys.executable, "bot.py"), workdir=root)


def test_a_competition_runs_an_upload_as_its_manifest_says(tmp_path):
    """The [[engine]] table of an uploaded bot reads back as the manifest's engine,
    always in the sandbox."""
    from arena.server.submissions import SubmissionFiles

    root = write(tmp_path, 'name = "bob-up"\nversion = "2"\ncommand = ["./bot", "--x y"]\n')
    files = SubmissionFiles(tmp_path / "data")
    stored = files.directory("f" * 64)
    (stored / "files").mkdir(parents=True)
    (stored / "files" / MANIFEST).write_text((root / MANIFEST).read_text(), encoding="utf-8")
    (stored / "root").write_text(".", encoding="utf-8")
    (stored / "size").write_text("1 1", encoding="utf-8")
    table = files.engine_table("bob-up", "f" * 64)
    other = {"name": "r", "spec": "builtin:random"}
    (engine, _) = config_from_dict({"engine": [table, other], "duplicate": False}).engines
    manifest = files.stored("f" * 64).manifest
    assert isinstance(engine, CommandEngine) and engine.sandbox is not None
    assert engine.sandbox.mode is SandboxMode.ON
    assert engine.command == manifest.engine.command == ("./bot", "--x y")
    assert engine.workdir == manifest.engine.workdir


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "-x"\nversion = "1"\ncommand = "./b"\n', "starting with a letter or digit"),
        ('name = "a"\nversion = "1"\ncommand = []\n', "command must be a list of strings"),
        ('name = "a"\nversion = "1"\n', "command is missing"),
        ('name = "a"\nversion = "1"\ncommand = "./b"\ngame = []\n', "unknown key 'game'"),
    ],
)
def test_a_bad_manifest_says_what_is_wrong(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        read_manifest(write(tmp_path, text))
