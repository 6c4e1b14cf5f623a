"""The GraphQL API: schema, per-request context and the ASGI app mounted at /graphql.

Laid out per domain (``thoughts/``, ``lineage/``, ``changes/``), each with ``types``,
``queries`` and, where it writes, ``mutations``. Resolvers are thin: argument, service
call, type conversion. Only the dataloaders talk to the store, through its batch methods.
"""
