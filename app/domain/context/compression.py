"""One text per compression level: full, summary, compressed, index.

Offline and extractive (app/domain/language/extractive.py): the summary is the first sentences
within a word budget, the compressed form the first sentence within a line, the index a
few salient words. Lines are single-line: newlines would split an item in the rendering.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache

from thoughtgraph.domain.context.model import Level
from thoughtgraph.domain.language.extractive import compress, topic_name, truncate_chars

SUMMARY_WORDS = 40
COMPRESSED_CHARS = 100
INDEX_WORDS = 4
FULL_CHARS = 2_000  # one item never takes a whole tier: longer thoughts are cut


def one_line(text: str) -> str:
    return " ".join(text.split())


class Levels(Mapping[Level, str]):
    """A text at each level, each made when first asked for: the packer reads one or two
    levels of a candidate, and an assembly makes a hundred candidates or more (the index
    level's salient words cost most). A level whose text is empty is absent."""

    __slots__ = ("_made", "_make")

    def __init__(self, make: Callable[[Level], str]) -> None:
        self._make = make
        self._made: dict[Level, str] = {}

    def __getitem__(self, level: Level) -> str:
        text = self._made.get(level)
        if text is None:
            text = self._made[level] = self._make(level)
        if not text:
            raise KeyError(level)
        return text

    def __iter__(self) -> Iterator[Level]:
        return (level for level in Level if level in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def levels_of(text: str) -> Levels:
    """The four levels of one text; the same text may serve several levels."""
    flat = one_line(text)

    @cache
    def compressed() -> tuple[str, str]:
        return compress(flat, max_summary_words=SUMMARY_WORDS, max_line_chars=COMPRESSED_CHARS)

    def make(level: Level) -> str:
        if level is Level.FULL:
            return truncate_chars(flat, FULL_CHARS)
        if level is Level.SUMMARY:
            return compressed()[0] or flat
        if level is Level.COMPRESSED:
            return compressed()[1] or truncate_chars(flat, COMPRESSED_CHARS)
        return topic_name(flat, INDEX_WORDS)

    return Levels(make)


def labelled(label: str, texts: Mapping[Level, str]) -> Levels:
    """Each level as a line: ``- [label] text``."""
    return Levels(lambda level: f"- [{label}] {texts[level]}" if level in texts else "")


def pair_levels(left: str, right: str, joiner: str) -> Levels:
    """Two texts side by side at each level (a contradiction, an error and its fix)."""
    a, b = levels_of(left), levels_of(right)
    return Levels(lambda level: f"{a.get(level, '')} {joiner} {b.get(level, '')}")
