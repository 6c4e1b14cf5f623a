"""Any user text as a safe full-text query, for each engine's syntax (the store's side of
hybrid search: app/features/search/repository.py).

Neither engine's query language is exposed: the text is cut into words (Unicode letters
and digits), each word is lowercased and escaped, and the words are joined as
alternatives. Lowercasing turns Lucene's operators (AND, OR, NOT, TO) into plain words;
escaping every character outside [a-z0-9] covers the rest of both syntaxes (Lucene's
``+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /`` and RediSearch's ``@ | - ~ * % ( ) { } [ ]
" ' : ; $ . , < > = !``), now and if a word ever carries one. Stopwords are left out
(app/domain/ranking/stopwords.py: "to" or "are" would match most thoughts). A text with no word left
gives None: the caller skips full-text search rather than sending an empty query.

RediSearch (FalkorDB) does not index single letters the way Lucene does and cannot match
accented words through its default tokenizer the same way, so matching differs a little
between the engines; safety does not.

Common words (Elasticsearch's "common terms" query, for an index that cannot prune): a
word in a large share of a namespace adds little to a text score, yet a union with it
makes the engine return every thought it matches before any LIMIT applies (RediSearch
ranks the whole match set; at 100,000 thoughts a union of common words is 80,000 rows
and most of a hybrid search's time). So the words are counted first, each up to
UNION_BUDGET + 1 matches (app/features/search/repository.py), and planned_query keeps
the union while its matches stay within UNION_BUDGET; past it, the rarest words that fit
are required (any of them) and the common ones only rank what those match; when every
word is common, all of them are required together. Words that match nothing are dropped,
and a query left with none is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from thoughtgraph.domain.ranking.keywords import query_words

MAX_TERMS = 32  # far below Lucene's clause limit (1024); more words add little
UNION_BUDGET = 1000  # matches a union may read before its common words are demoted
MAX_TERM_CHARS = 64  # a longer "word" is noise (hashes, base64)
# Characters kept bare; everything else in a term is backslash-escaped.
_PLAIN = re.compile(r"[a-z0-9]")


def query_terms(text: str) -> list[str]:
    """The query's words as the keyword side reads them (domain.ranking.keywords:
    distinct, lowercased, no stopwords, in order), none longer than MAX_TERM_CHARS, at
    most MAX_TERMS."""
    return [w for w in query_words(text) if len(w) <= MAX_TERM_CHARS][:MAX_TERMS]


def _escape_term(term: str) -> str:
    return "".join(ch if _PLAIN.match(ch) else "\\" + ch for ch in term)


def whole_value_query(value: str) -> str:
    """A query for one whole value, as written, of a keyword-analysed index (Neo4j's
    thought_tags: each tag one token): every character outside [a-z0-9] escaped, spaces
    and upper case included, so the query is one term and no operator."""
    return _escape_term(value)


def escaped_terms(text: str) -> list[str]:
    """The words of ``text`` as the full-text index is asked for them (both engines
    share the escaping): the keys planned_query expects counted."""
    return [_escape_term(t) for t in query_terms(text)]


def planned_query(
    matches: Mapping[str, int], engine: str, budget: int = UNION_BUDGET
) -> str | None:
    """The full-text query for escaped words and how many thoughts each matches (capped
    counts are fine: only whether they fit the budget matters), in the query's order.

    ``budget``: how many matches the union may hold before its common words only rank.
    A search passes the number of full-text candidates it takes, so that the words that
    bring candidates are the ones whose every match fits (then which candidates come
    does not hang on the engine's own scores, which move when a thought is touched); when
    not even the rarest word fits, the plan for UNION_BUDGET is used."""
    present = [(term, count) for term, count in matches.items() if count > 0]
    if not present:
        return None
    syntax = _SYNTAX[engine]
    if sum(count for _, count in present) <= budget:
        return syntax.any_of([term for term, _ in present])
    required: list[str] = []
    total = 0
    for term, count in sorted(present, key=lambda tc: tc[1]):
        if total + count > budget:
            break
        required.append(term)
        total += count
    if not required and budget < UNION_BUDGET:
        return planned_query(matches, engine)
    if not required:
        return syntax.all_of([term for term, _ in present])
    optional = [term for term, _ in present if term not in required]
    return syntax.ranked_by(required, optional)


@dataclass(frozen=True, slots=True)
class _Syntax:
    any_separator: str  # between alternatives
    all_prefix: str  # before each word when all are required (joined by spaces)
    optional_prefix: str  # before a word that only ranks
    any_group: str  # format string for a required group of alternatives

    def any_of(self, terms: Sequence[str]) -> str:
        return self.any_separator.join(terms)

    def all_of(self, terms: Sequence[str]) -> str:
        return " ".join(self.all_prefix + t for t in terms)

    def ranked_by(self, required: Sequence[str], optional: Sequence[str]) -> str:
        group = self.any_group.format(self.any_of(required))
        return " ".join([group, *(self.optional_prefix + t for t in optional)])


_SYNTAX = {
    # Lucene: + marks a required clause, bare clauses only add to the score.
    "neo4j": _Syntax(" OR ", "+", "", "+({})"),
    # RediSearch: space is intersection, ~ marks an optional term that only ranks.
    "falkordb": _Syntax(" | ", "", "~", "({})"),
}
