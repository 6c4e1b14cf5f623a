"""Every task the workers run, by name: the one registry the tasks, the queue that
publishes them, the beat schedule and the tests all use."""

from __future__ import annotations

QUEUE = "thoughtgraph"
# Every task's name starts so; nothing else that Celery runs does (its own are "celery.*").
PREFIX = "thoughtgraph."

PING = "thoughtgraph.ping"
CONSOLIDATE = "thoughtgraph.consolidate"
SCAN_THOUGHTS = "thoughtgraph.scan_thoughts"
SCAN_NEW = "thoughtgraph.scan_new"
SCAN_NAMESPACE = "thoughtgraph.scan_namespace"
FORGET_AND_PURGE = "thoughtgraph.forget_and_purge"
EXPIRE_CONSENT = "thoughtgraph.expire_consent"
EXTRACT_FACTS = "thoughtgraph.extract_facts"
WRITE_INSIGHTS = "thoughtgraph.write_insights"
# Store-wide, one at a time (REEMBED_LOCK): every vector made again by another embedder.
REEMBED = "thoughtgraph.reembed"
SCHEDULED_CONSOLIDATION = "thoughtgraph.scheduled_consolidation"
SCHEDULED_CONTRADICTION_SCAN = "thoughtgraph.scheduled_contradiction_scan"
SCHEDULED_DECAY = "thoughtgraph.scheduled_decay"
SCHEDULED_SCAN_SWEEP = "thoughtgraph.scheduled_scan_sweep"
SCHEDULED_CONSENT_EXPIRY = "thoughtgraph.scheduled_consent_expiry"
SCHEDULED_INSIGHTS = "thoughtgraph.scheduled_insights"

# Work on one namespace: what the API's queue publishes and the fan-outs queue.
PER_NAMESPACE = (
    CONSOLIDATE,
    SCAN_NEW,
    SCAN_THOUGHTS,
    SCAN_NAMESPACE,
    FORGET_AND_PURGE,
    EXPIRE_CONSENT,
    WRITE_INSIGHTS,
    EXTRACT_FACTS,
)
# What beat publishes: each lists the active namespaces and queues one task per namespace.
SCHEDULED = (
    SCHEDULED_CONSOLIDATION,
    SCHEDULED_CONTRADICTION_SCAN,
    SCHEDULED_DECAY,
    SCHEDULED_SCAN_SWEEP,
    SCHEDULED_CONSENT_EXPIRY,
    SCHEDULED_INSIGHTS,
)
ALL = (PING, REEMBED, *PER_NAMESPACE, *SCHEDULED)


def short(task_name: str) -> str:
    """The task's name without the prefix: the op of its operational event."""
    return task_name.removeprefix(PREFIX)


# The longest a maintenance run (consolidation, forgetting, a namespace scan) may take:
# the soft limit cancels the job, the hard one kills the pool process.
RUN_SOFT_LIMIT_S = 3600.0
RUN_HARD_LIMIT_S = RUN_SOFT_LIMIT_S + 60.0
# A namespace's run lock is a lease its run renews (workers/locks.py): a worker killed
# mid-run frees the namespace within this long.
LOCK_TIMEOUT_S = 30.0
# Scans of new thoughts hold a lock of their own (not the run lock: a scan never waits
# for an hour-long consolidation), leased the same way.
SCAN_LOCK = "scan"
# The store-wide lock of re-embedding, held under the key of this pseudo-namespace.
REEMBED_LOCK = "reembed"
STORE_WIDE = "*"
# A re-embed is bounded by the store's size, not by a namespace's: hours for millions of
# vectors. A run stopped by the limit resumes where it stopped when it runs again.
REEMBED_SOFT_LIMIT_S = 12 * 3600.0
