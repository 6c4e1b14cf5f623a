"""Input limits and checks. Every check runs before any write, so bad input writes nothing.

The rules, which README documents:

* Free text (content, context, reason, queries) may hold any character except those no
  engine or embedder can take: NUL and the other C0 controls except tab, newline and
  carriage return, DEL, lone UTF-16 surrogates (not encodable as UTF-8) and the
  noncharacters U+FFFE and U+FFFF. (FalkorDB's client writes parameters into the query
  text, where a NUL ends it; a lone surrogate fails every encoder.)
* Names (agentName) are one line of such text: no tab, newline or carriage return either.
* Identifiers are ASCII: namespaces ``[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}``, agent and
  session ids ``[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}``, thought ids UUIDs.
* Tags are a word character and then up to 63 word characters, spaces or ``.:/#+-``.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence

from thoughtgraph.domain.errors import InvalidInputError, MinConsolidationError

MAX_CONTENT_CHARS = 10_000
MAX_CONTEXT_CHARS = 10_000
MAX_REASON_CHARS = 2_000
MAX_NOTE_CHARS = 2_000  # a decision's note (a contradiction's, a consent request's)
MAX_QUERY_CHARS = 2_000
MAX_NAME_CHARS = 200
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_SOURCES = 50
MIN_CONSOLIDATION_SOURCES = 2
MAX_K = 100
MAX_LINEAGE_DEPTH = 10  # the traversal statements are bounded at depth 11
MAX_PAGE_SIZE = 100
MAX_CHANGES = 500
# What a list gives when the caller names no size (every interface: the services apply it).
DEFAULT_PAGE_SIZE = 20
DEFAULT_CHANGES = 100
MAX_REFINEMENTS = 50  # a thought's `refinements` lists its newest 50
MAX_HISTORY = 500  # `history` lists a thought's first 500 events
MAX_LINEAGE_NODES = 200  # `lineage` stops, truncated, after this many thoughts

MAX_IDENTIFIER_CHARS = 128
MAX_CURSOR_CHARS = 256

# Patterns are used with fullmatch: `$` would also accept a trailing newline.
_NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")
_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}")
_TAG = re.compile(r"\w[\w .:/#+-]{0,63}")
_FORBIDDEN_IN_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
_FORBIDDEN_IN_NAME = re.compile("[\x00-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _refuse_characters(field: str, text: str, forbidden: re.Pattern[str]) -> None:
    found = forbidden.search(text)
    if found is not None:
        raise InvalidInputError(
            f"{field} holds a character the service cannot store: "
            f"U+{ord(found.group()):04X} at position {found.start()}",
            field=field,
        )


def require_text(field: str, value: str, max_chars: int) -> str:
    text = value.strip()
    if not text:
        raise InvalidInputError(f"{field} must not be empty", field=field)
    if len(text) > max_chars:
        raise InvalidInputError(
            f"{field} is {len(text)} characters; the limit is {max_chars}", field=field
        )
    _refuse_characters(field, text, _FORBIDDEN_IN_TEXT)
    return text


def require_name(field: str, value: str, max_chars: int = MAX_NAME_CHARS) -> str:
    text = require_text(field, value, max_chars)
    _refuse_characters(field, text, _FORBIDDEN_IN_NAME)
    return text


def require_identifier(field: str, value: str) -> str:
    if not _IDENTIFIER.fullmatch(value):
        raise InvalidInputError(
            f"{field} must be 1-{MAX_IDENTIFIER_CHARS} characters of ASCII letters, digits, "
            "'_', '.', ':', '@' or '-', starting with a letter or digit",
            field=field,
        )
    return value


def optional_identifier(field: str, value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    return require_identifier(field, value.strip())


def require_tag(field: str, value: str) -> str:
    text = value.strip()
    if not _TAG.fullmatch(text):
        raise InvalidInputError(
            f"{field} must be 1-{MAX_TAG_CHARS} characters: a letter, digit or '_', then "
            "letters, digits, spaces or '_.:/#+-'",
            field=field,
        )
    return text


def optional_text(field: str, value: str | None, max_chars: int) -> str | None:
    if value is None or not value.strip():
        return None
    return require_text(field, value, max_chars)


def require_namespace(value: str) -> str:
    # fullmatch: `$` would also accept a trailing newline, and a namespace names a graph
    # (FalkorDB) and a label (Neo4j).
    if not _NAMESPACE.fullmatch(value):
        raise InvalidInputError(
            "namespace must be 1-64 characters of letters, digits, '_', '.', ':' or '-'",
            field="namespace",
        )
    return value


def require_thought_id(field: str, value: str) -> str:
    try:
        parsed = uuid.UUID(value)
    except (ValueError, AttributeError, TypeError):
        raise InvalidInputError(
            f"{field} is not a valid thought id: {value!r}", field=field
        ) from None
    return str(parsed)


def require_tags(tags: Sequence[str]) -> tuple[str, ...]:
    if len(tags) > MAX_TAGS:
        raise InvalidInputError(f"at most {MAX_TAGS} tags are allowed", field="tags")
    cleaned: list[str] = []
    for tag in tags:
        text = require_tag("tags", tag)
        if text not in cleaned:
            cleaned.append(text)
    return tuple(cleaned)


def require_source_ids(
    ids: Sequence[str], *, minimum: int, field: str = "sourceIds"
) -> tuple[str, ...]:
    parsed = [require_thought_id(field, value) for value in ids]
    if len(parsed) < minimum:
        if minimum >= MIN_CONSOLIDATION_SOURCES:
            raise MinConsolidationError(
                f"a consolidation needs at least {minimum} source thoughts, got {len(parsed)}",
                field=field,
            )
        raise InvalidInputError("at least one source thought is required", field=field)
    if len(parsed) > MAX_SOURCES:
        raise InvalidInputError(
            f"at most {MAX_SOURCES} source thoughts are allowed, got {len(parsed)}",
            field=field,
        )
    if len(set(parsed)) != len(parsed):
        raise InvalidInputError("source ids must not repeat", field=field)
    return tuple(parsed)


def page_size(field: str, value: int | None, default: int, high: int) -> int:
    """A list's size: ``default`` when the caller gave none, else 1 to ``high``."""
    return require_int_range(field, default if value is None else value, 1, high)


def require_int_range(field: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise InvalidInputError(f"{field} must be between {low} and {high}", field=field)
    return value


def require_float_range(field: str, value: float, low: float, high: float) -> float:
    if not low <= value <= high:
        raise InvalidInputError(f"{field} must be between {low} and {high}", field=field)
    return value
