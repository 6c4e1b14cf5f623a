"""Names Neo4j gives a namespace: its own label and its own vector index.

``Ns_`` / ``thought_embedding_`` + the first 24 hex digits of the namespace's SHA-256
(96 bits: no two namespaces of a deployment collide in practice, and every statement
filters on the namespace property as well, so a collision could cost speed, never a leak).
"""

from __future__ import annotations

import hashlib


def namespace_digest(namespace: str) -> str:
    return hashlib.sha256(namespace.encode("utf-8")).hexdigest()[:24]


def namespace_label(namespace: str) -> str:
    return f"Ns_{namespace_digest(namespace)}"


def namespace_index(namespace: str) -> str:
    return f"thought_embedding_{namespace_digest(namespace)}"
