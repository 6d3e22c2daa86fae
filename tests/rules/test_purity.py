"""The rules package must stay pure: standard library only."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.process


def test_rules_import_loads_no_protobuf_grpc_or_trio():
    code = (
        "import sys, arena.rules, arena.players.strategies;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('grpc', 'google', 'trio')];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    # The check can fail: the wire layer does load protobuf.
    code2 = code.replace("import sys, arena.rules", "import sys, arena.wire.convert, arena.rules")
    out2 = subprocess.run([sys.executable, "-c", code2], capture_output=True, text=True, check=True)
    assert "google" in out2.stdout
