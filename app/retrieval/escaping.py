"""Any user text as a safe full-text query, for each engine's syntax.

Neither engine's query language is exposed: the text is cut into words (Unicode letters
and digits), each word is lowercased and escaped, and the words are joined as
alternatives. Lowercasing turns Lucene's operators (AND, OR, NOT, TO) into plain words;
escaping every character outside [a-z0-9] covers the rest of both syntaxes (Lucene's
``+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /`` and RediSearch's ``@ | - ~ * % ( ) { } [ ]
" ' : ; $ . , < > = !``), now and if a word ever carries one. Stopwords are left out
(app/retrieval/stopwords.py: "to" or "are" would match most thoughts). A text with no word left
gives None: the caller skips full-text search rather than sending an empty query.

RediSearch (FalkorDB) does not index single letters the way Lucene does and cannot match
accented words through its default tokenizer the same way, so matching differs a little
between the engines; safety does not.
"""

from __future__ import annotations

import re

from app.retrieval.stopwords import STOPWORDS

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_TERMS = 32  # far below Lucene's clause limit (1024); more words add little
MAX_TERM_CHARS = 64  # a longer "word" is noise (hashes, base64)
# Characters kept bare; everything else in a term is backslash-escaped.
_PLAIN = re.compile(r"[a-z0-9]")


def query_terms(text: str) -> list[str]:
    """The distinct lowercased words of ``text`` but stopwords, in order, at most
    MAX_TERMS."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.lower()):
        word = match.group(0)
        if len(word) <= MAX_TERM_CHARS and word not in STOPWORDS:
            seen.setdefault(word, None)
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)


def _escape_term(term: str) -> str:
    return "".join(ch if _PLAIN.match(ch) else "\\" + ch for ch in term)


def lucene_query(text: str) -> str | None:
    """Neo4j full-text (Lucene): the words as optional clauses (any may match)."""
    terms = query_terms(text)
    return " OR ".join(_escape_term(t) for t in terms) if terms else None


def redisearch_query(text: str) -> str | None:
    """FalkorDB full-text (RediSearch): the words as a union (any may match)."""
    terms = query_terms(text)
    return " | ".join(_escape_term(t) for t in terms) if terms else None


def fulltext_query(text: str, engine: str) -> str | None:
    if engine == "neo4j":
        return lucene_query(text)
    if engine == "falkordb":
        return redisearch_query(text)
    raise ValueError(f"unknown engine {engine!r}")
