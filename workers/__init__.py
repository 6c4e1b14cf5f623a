"""Celery workers (scheduled consolidation and contradiction scans) arrive with the next issue.

The embedded engine is itself a Redis server, so it can serve as the broker on a
machine where no Redis runs.
"""
