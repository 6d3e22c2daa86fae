"""Matches on a Ray cluster: the head process schedules and writes, the nodes play.

    async with open_cluster(ClusterSettings("local")) as cluster:
        report = await cluster.play(engines, settings, log=path, bot_output=out / "bots")

The head process (the tournament, the SPRT or the competition server) keeps
its one results store and writes every log; it sends each match to a worker
on some node and gets back the match's report, its log's bytes and its bots'
output. A lost worker or node is the cluster's fault, never a bot's: that
match is played again from scratch on another worker (``attempts`` in all)
and recorded once, by the head, only when a whole match came back.

One module per job:

- ``session``: this process's one Ray connection, and waiting for Ray from trio;
- ``worker``: the actor on each CPU and its trio loop, which plays the matches;
- ``shipping``: how a launched engine's files reach a node that lacks them;
- ``jobs``: what the head sends a worker and what comes back;
- ``pool``: the head's workers, started, picked by load, replaced when lost;
- ``scheduler``: ``Cluster.play`` and ``open_cluster``, and following live matches.

Ray is an optional dependency (``pip install scopa-arena[cluster]``): it is
imported only when a cluster is used.
"""

from arena.cluster.jobs import MatchJob, MatchOutcome, WarmSpec
from arena.cluster.scheduler import Cluster, open_cluster
from arena.cluster.session import LOCAL, ClusterError, ray_module
from arena.cluster.shipping import Archive, pack_directory
from arena.cluster.worker import WORKER_DIR_PREFIX, MatchWorker

__all__ = [
    "LOCAL",
    "WORKER_DIR_PREFIX",
    "Archive",
    "Cluster",
    "ClusterError",
    "MatchJob",
    "MatchOutcome",
    "MatchWorker",
    "WarmSpec",
    "open_cluster",
    "pack_directory",
    "ray_module",
]
