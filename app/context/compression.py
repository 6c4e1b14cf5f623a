"""One text per compression level (seed 002): full, summary, compressed, index.

Offline and extractive (app/knowledge/extractive.py): the summary is the first sentences
within a word budget, the compressed form the first sentence within a line, the index a
few salient words. Lines are single-line: newlines would split an item in the rendering.
"""

from __future__ import annotations

from app.context.model import Level
from app.knowledge.extractive import compress, topic_name, truncate_chars

SUMMARY_WORDS = 40
COMPRESSED_CHARS = 100
INDEX_WORDS = 4
FULL_CHARS = 2_000  # one item never takes a whole tier: longer thoughts are cut


def one_line(text: str) -> str:
    return " ".join(text.split())


def levels_of(text: str) -> dict[Level, str]:
    """The four levels of one text; the same text may serve several levels."""
    flat = one_line(text)
    summary, line = compress(flat, max_summary_words=SUMMARY_WORDS, max_line_chars=COMPRESSED_CHARS)
    return {
        Level.FULL: truncate_chars(flat, FULL_CHARS),
        Level.SUMMARY: summary or flat,
        Level.COMPRESSED: line or truncate_chars(flat, COMPRESSED_CHARS),
        Level.INDEX: topic_name(flat, INDEX_WORDS),
    }


def labelled(label: str, texts: dict[Level, str]) -> dict[Level, str]:
    """Each level as a line: ``- [label] text``."""
    return {level: f"- [{label}] {text}" for level, text in texts.items() if text}


def pair_levels(left: str, right: str, joiner: str) -> dict[Level, str]:
    """Two texts side by side at each level (a contradiction, an error and its fix)."""
    a, b = levels_of(left), levels_of(right)
    return {level: f"{a[level]} {joiner} {b[level]}" for level in a}
