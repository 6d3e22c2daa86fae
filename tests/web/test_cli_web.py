"""The site's command-line options: refused early and clearly when wrong."""

from __future__ import annotations

import signal
import subprocess

import pytest

from arena.cli import main
from tests.support.paths import ARENA
from tests.support.processes import ended
from tests.support.sites import start_web


def test_arena_web_refuses_what_is_no_tournament_output(tmp_path, capsys):
    assert main(["web", str(tmp_path / "missing"), "--http", "127.0.0.1:0"]) != 0
    assert "not a directory" in capsys.readouterr().err
    assert main(["web", str(tmp_path), "--http", "127.0.0.1:0"]) != 0
    assert "no results.sqlite" in capsys.readouterr().err
    assert main(["web", str(tmp_path), "--http", "nonsense"]) != 0
    assert "HOST:PORT" in capsys.readouterr().err


def test_demo_and_serve_refuse_a_bad_web_address_before_doing_anything(capsys):
    assert main(["demo", "--web", "no-port"]) != 0
    assert "HOST:PORT" in capsys.readouterr().err
    assert main(["serve", "--http", "127.0.0.1:http"]) != 0
    assert "HOST:PORT" in capsys.readouterr().err


@pytest.mark.process
@pytest.mark.parametrize(
    ("stop", "status"), [(signal.SIGINT, 0), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_arena_web_stops_cleanly_on_ctrl_c_and_sigterm(stop, status, tournament):
    site = start_web(tournament)
    assert site.get("/")[0] == 200
    site.proc.send_signal(stop)
    assert ended(site.proc, 20) == status
    help_text = subprocess.run([ARENA, "demo", "--help"], capture_output=True, text=True).stdout
    assert "--web" in help_text


@pytest.mark.process
def test_a_taken_port_is_one_clear_line(tournament, local_site):
    port = local_site.base.rsplit(":", 1)[1]
    done = subprocess.run(
        [ARENA, "web", str(tournament), "--http", f"127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode != 0
    assert done.stderr.strip() == (
        f"arena: error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )
