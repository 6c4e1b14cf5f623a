"""Background work as plain async functions over a Runtime: one module per job.

Celery tasks (``workers/``) only carry ids in and call one of these; the CLI and the
benchmark call them directly. Every job is idempotent: a retried run finds its earlier
writes (deterministic ids, MERGE) and completes without duplicating anything.
"""
