"""Celery workers: the background half of thoughtgraph (contradiction scans after writes,
scheduled consolidation, scans and forgetting).

Nothing here builds an app, a client or settings at import:
``thoughtgraph.workers.app.create_celery`` builds the Celery app from settings, and each
worker process opens one Runtime (``thoughtgraph.workers.runtime_host``) attached to the
service's store.
"""
