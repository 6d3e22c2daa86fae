"""A local Ray instance that misses Ray's fixed 30 s start-up wait on a loaded
machine is started once more; a second miss is the cluster's fault (a
ClusterError, which pauses a competition until a later try); any other
error is not retried. (Making a real raylet that slow on demand is not
possible, so ray.init is replaced here by one that fails as Ray does; a real
Ray that fails to start is in test_cluster_faults.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from arena.cluster import session
from arena.cluster.session import LOCAL, ClusterError


class SlowRay:
    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.inits: list[dict[str, Any]] = []
        self.shutdowns = 0

    def init(self, **options: Any) -> None:
        self.inits.append(options)
        if self.failures:
            raise self.failures.pop(0)

    def shutdown(self) -> None:
        self.shutdowns += 1


def timeout() -> Exception:
    return Exception(
        "The current node timed out during startup. This could happen because some of "
        "the raylet failed to startup or the GCS has become overloaded."
    )


def gcs_timeout() -> Exception:
    return RuntimeError(
        "Timed out waiting for file /tmp/ray/session_x/gcs_server_port_16e6f9a726618a76"
    )


@pytest.fixture(autouse=True)
def ray_settings(monkeypatch):
    """What _init sets in this process's environment is undone after each test."""
    for name, _ in (session.GCS_PORT_WAIT, session.HEAD_LOSS_WAIT):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("failure", [timeout, gcs_timeout])
def test_a_local_instance_that_timed_out_starting_is_started_once_more(failure):
    ray = SlowRay([failure()])
    session._init(ray, LOCAL, None)
    assert len(ray.inits) == 2 and ray.shutdowns == 1 and ray.inits[0] == ray.inits[1]
    # and the GCS server is given longer than Ray's 30 s to publish its port
    assert session.os.environ[session.GCS_PORT_WAIT[0]] == "120"


def test_a_second_timeout_or_another_error_is_reported():
    # The cluster's fault, which a competition waits out (tests/cluster/test_cluster_faults.py).
    slow = SlowRay([timeout(), timeout()])
    with pytest.raises(ClusterError, match="did not start: The current node timed out"):
        session._init(slow, LOCAL, None)
    assert slow.shutdowns == 2  # nothing it half started is left
    ray = SlowRay([ValueError("bad option")])
    with pytest.raises(ValueError, match="bad option"):
        session._init(ray, LOCAL, None)
    assert len(ray.inits) == 1 and ray.shutdowns == 0
