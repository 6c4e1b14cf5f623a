"""Celery workers: the background half of thoughtgraph (contradiction scans after writes,
scheduled consolidation, scans and forgetting).

- ``names``: the one registry of task names (and the run limits they share);
- ``tasks``: thin module-level tasks, ids in, one feature job out (``features/*/jobs.py``);
- ``schedule``: the beat schedule, a named dict of expiring fan-out entries;
- ``queue``: the application's ``JobQueue`` port over Celery, publishing by name;
- ``locks``: the per-namespace single-flight lease; ``broker``: the broker's address;
- ``runtime_host``: one Runtime per worker process; ``app``: ``create_celery``, which binds
  the tasks and the schedule to an app; ``processes``: the worker and beat processes.

Imports go one way: ``names`` imports nothing of ours, ``queue`` and ``schedule`` import
``names`` (never the app), ``tasks`` imports ``names``, ``locks`` and ``runtime_host``,
and ``app`` imports them all.

Nothing here builds an app, a client or settings at import:
``thoughtgraph.workers.app.create_celery`` builds the Celery app from settings, and each
worker process opens one Runtime (``thoughtgraph.workers.runtime_host``) attached to the
service's store.
"""
