"""The keyword side of search, scored by the service: BM25 (Robertson and Zaragoza 2009)
of the query's words over a search's candidates, on one scale for both engines.

The engines find the full-text candidates, but their own scores do not compare (Lucene's
BM25 on Neo4j, RediSearch's TF-IDF on the embedded engine, each with its own analyser),
so the service scores every candidate of either list the same way:

    bm25(d)  = sum over query words w of  idf(w) x tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))
    idf(w)   = ln(1 + (N - df(w) + 0.5) / (df(w) + 0.5))          tf = tf(w, d), k1 1.2, b 0.75

Words are lowercased, stop words left out (``stopwords.py``) and reduced to their
Snowball (Porter 2) English stem on both sides, so "painting" in a question finds
"paints". ``df`` is how many thoughts of the namespace the engine matched for the word
(counted up to a cap, app/features/search/repository.py: a capped count weighs a word as
common, which it is); ``N`` is the namespace's size (counted up to a cap as well);
``avgdl`` is the mean length of the candidates scored, the only documents at hand.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from thoughtgraph.domain.ranking.stopwords import STOPWORDS

K1 = 1.2
B = 0.75
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def words(text: str) -> list[str]:
    """Every word of ``text``, lowercased and stemmed (stop words kept: they count
    toward a document's length)."""
    return [stem(word) for word in _WORD.findall(text.lower())]


@lru_cache(maxsize=16_384)
def _counted(text: str) -> Counter[str]:
    """A text's stemmed words and their counts (read only: shared between searches)."""
    return Counter(words(text))


def query_words(text: str) -> list[str]:
    """The distinct words of a query but stop words, lowercased, in order (unstemmed:
    the engine counts each as it is written)."""
    return list(dict.fromkeys(w for w in _WORD.findall(text.lower()) if w not in STOPWORDS))


@dataclass(frozen=True)
class KeywordStatistics:
    """What BM25 needs from the namespace: its size and each query word's match count."""

    namespace_size: int
    matches: Mapping[str, int]  # query word (as query_words gives it) -> thoughts matched


def idf(matches: int, namespace_size: int) -> float:
    size = max(namespace_size, matches, 1)
    return math.log(1.0 + (size - matches + 0.5) / (matches + 0.5))


def bm25_scores(
    query: str, documents: Mapping[str, str], statistics: KeywordStatistics
) -> dict[str, float]:
    """Each document's (id -> text) BM25 for the query; 0 for one sharing no word."""
    weights: dict[str, float] = {}
    for word in query_words(query):
        matched = statistics.matches.get(word, 0)
        if matched > 0:  # a word the namespace lacks is in no candidate either
            key = stem(word)
            weights[key] = max(weights.get(key, 0.0), idf(matched, statistics.namespace_size))
    counted = {doc_id: _counted(text) for doc_id, text in documents.items()}
    if not weights or not counted:
        return dict.fromkeys(documents, 0.0)
    lengths = {doc_id: sum(c.values()) for doc_id, c in counted.items()}
    average = max(1.0, sum(lengths.values()) / len(lengths))
    scores: dict[str, float] = {}
    for doc_id, counts in counted.items():
        norm = K1 * (1.0 - B + B * lengths[doc_id] / average)
        scores[doc_id] = sum(
            weight * counts[key] * (K1 + 1.0) / (counts[key] + norm)
            for key, weight in weights.items()
            if counts[key]
        )
    return scores


def normalised(scores: Sequence[float]) -> list[float]:
    """Scores divided by the largest (all 0 when none is positive)."""
    top = max(scores, default=0.0)
    return [max(0.0, s) / top if top > 0 else 0.0 for s in scores]
