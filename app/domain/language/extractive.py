"""The deterministic, offline stand-ins for the LLM prompts: extractive topic summaries,
compression, transcript splitting, topic names and episode extraction.

Same input, same output, no model: what every feature falls back to without ``llm_model``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from thoughtgraph.domain.judgement import ExtractedThought
from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.subject_bounds import predicate_start
from thoughtgraph.domain.language.words import split_words

DEFAULT_SUMMARY_WORDS = 60
DEFAULT_LINE_CHARS = 100
DUPLICATE_SIMILARITY = 0.92  # cosine of embeddings
DUPLICATE_OVERLAP = 0.8  # word overlap, when there are no embeddings
ELLIPSIS = "…"

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# "User: ...", "Assistant: ...", "[10:02] Alice: ...", "**Bob**: ..."
_TURN = re.compile(
    r"^\s*(?:\[[^\]]{1,20}\]\s*)?\**(?P<speaker>[A-Za-z][\w .'-]{0,30}?)\**\s*:\s+(?P<text>\S.*)$"
)
_WORD = re.compile(r"[\w][\w.'/+#-]*[\w+#]|\w")
_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|thanks?(?: you)?(?: so much)?|"
    r"thx|ty|ok(?:ay)?|sure|great|cool|nice|perfect|awesome|got it|sounds good|"
    r"you're welcome|no problem|np|bye|goodbye|see you|cheers|yes|yeah|yep|no|nope|"
    r"understood|will do|makes sense|right|how can i help(?: you)?(?: today)?|"
    r"(?:is there )?anything else(?: i can help with)?|happy to help|let me know)"
    r"\b[\s!.,:)?]*(?:\w+[\s!.?]*)?$",
    re.IGNORECASE,
)
# Words that make a poor topic name: function words, "now", and verbs.
_NOT_TOPIC = (
    lx.FUNCTION_WORDS
    | lx.ADVERBS
    | lx.NEGATIONS
    | frozenset({"let", "lets", "please", "remember", "note", "noted", "think", "guess"})
)


def sentences(text: str) -> list[str]:
    """Sentences and list items, whitespace collapsed; blank lines and bullets split too."""
    found: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)", text):
        flat = " ".join(_BULLET.sub("", block).split())
        found.extend(part.strip() for part in _SENTENCE_END.split(flat) if part.strip())
    return found


def word_count(text: str) -> int:
    return len(text.split())


def truncate_words(text: str, max_words: int) -> str:
    words = text.split()
    if len(words) <= max_words:
        return " ".join(words)
    return " ".join(words[: max(1, max_words)]).rstrip(",;:") + ELLIPSIS


def truncate_chars(text: str, max_chars: int) -> str:
    """At most ``max_chars`` characters, cut at a word boundary, "…" when cut."""
    flat = " ".join(text.split())
    if len(flat) <= max_chars:
        return flat
    cut = flat[: max(1, max_chars - 1)]
    if " " in cut and flat[len(cut)] != " ":
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:.") + ELLIPSIS


def summarise(
    texts: Sequence[str],
    embeddings: Sequence[Sequence[float]] | None = None,
    *,
    scores: Sequence[float] | None = None,
    max_words: int = 150,
    duplicate_similarity: float = DUPLICATE_SIMILARITY,
) -> str:
    """An extractive summary of a topic's thoughts (``texts`` oldest first).

    The most central thoughts, in order of centrality while they fit in ``max_words``,
    shown oldest first. Centrality
    is the mean cosine similarity to the others (``embeddings``, one per text), or the
    given ``scores``, or, with neither, the mean word overlap. Of two near-duplicates
    (cosine >= ``duplicate_similarity``) only the newer is kept: newer wins.
    """
    items = [" ".join(text.split()) for text in texts]
    if embeddings is not None and len(embeddings) != len(items):
        raise ValueError(f"{len(items)} texts but {len(embeddings)} embeddings")
    if scores is not None and len(scores) != len(items):
        raise ValueError(f"{len(items)} texts but {len(scores)} scores")
    similarity = _similarities(items, embeddings)
    duplicate = duplicate_similarity if embeddings is not None else DUPLICATE_OVERLAP
    alive = [
        i
        for i, text in enumerate(items)
        if text and not any(similarity[i][j] >= duplicate for j in range(i + 1, len(items)))
    ]
    if not alive:
        return ""
    if scores is not None:
        centrality = {i: float(scores[i]) for i in alive}
    else:
        centrality = {
            i: sum(similarity[i][j] for j in alive if j != i) / max(1, len(alive) - 1)
            for i in alive
        }
    ranked = sorted(alive, key=lambda i: (-centrality[i], -i))  # ties: the newer first
    chosen: list[int] = []
    used = 0
    for index in ranked:
        # Stop at the first that does not fit: filling the rest of the budget with less
        # central thoughts would let outliers in.
        words = word_count(items[index])
        if used + words > max_words:
            break
        chosen.append(index)
        used += words
    if not chosen:  # even the most central thought is too long: cut it
        return truncate_words(_sentence(items[ranked[0]]), max_words)
    return " ".join(_sentence(items[i]) for i in sorted(chosen))


def compress(
    text: str,
    *,
    max_summary_words: int = DEFAULT_SUMMARY_WORDS,
    max_line_chars: int = DEFAULT_LINE_CHARS,
) -> tuple[str, str]:
    """(summary, line): the first sentences within ``max_summary_words``, and the first
    sentence within ``max_line_chars`` characters."""
    found = sentences(text)
    if not found:
        return "", ""
    kept: list[str] = []
    used = 0
    for sentence in found:
        words = word_count(sentence)
        if kept and used + words > max_summary_words:
            break
        kept.append(sentence)
        used += words
    summary = truncate_words(" ".join(kept), max_summary_words)
    return summary, truncate_chars(found[0], max_line_chars)


def split_transcript(transcript: str) -> list[str]:
    """Speaker turns ("User: ...", continuation lines joined) when the transcript has at
    least two, else its sentences."""
    turns: list[str] = []
    for line in transcript.splitlines():
        match = _TURN.match(line)
        if match is not None:
            turns.append(f"{match['speaker'].strip()}: {match['text'].strip()}")
        elif line.strip() and turns:
            turns[-1] = f"{turns[-1]} {line.strip()}"
    if len(turns) >= 2:
        return [" ".join(turn.split()) for turn in turns]
    return sentences(transcript)


def topic_name(text: str, max_words: int = 4) -> str:
    """A short name for what a thought is about: its first few salient words (no function
    words, verbs or bare numbers), names kept as written, the rest lower-cased."""
    words = [w for w in split_words(_strip_speaker(text)) if not w.punct]
    verb_at = predicate_start(words)
    picked: list[str] = []
    seen: set[str] = set()
    for index, word in enumerate(words):
        lower = word.lower.strip(".'")
        if not lower or lower in seen or lower in _NOT_TOPIC or lower in lx.AUXILIARIES:
            continue
        # A verb form names a thing before the verb or as -ing ("deploys happen", "billing").
        verb = lower in lx.VERB_FORM_BASE or lower in lx.IRREGULAR_VERBS
        if verb and index >= verb_at and not lower.endswith("ing"):
            continue
        if re.fullmatch(r"[\d.,:%$€£]+", lower):
            continue
        seen.add(lower)
        picked.append(word.raw if _is_name(word.raw, first=index == 0) else lower)
        if len(picked) >= max_words:
            break
    return " ".join(picked) or "untitled"


def extract_offline(transcript: str) -> list[ExtractedThought]:
    """Transcript -> memory cells without a model: each turn (or sentence) that is not
    small talk becomes a ``fact`` of salience 0.5, its topic hint from :func:`topic_name`."""
    thoughts: list[ExtractedThought] = []
    seen: set[str] = set()
    for piece in split_transcript(transcript):
        match = _TURN.match(piece)
        speaker, body = (match["speaker"], match["text"]) if match else (None, piece)
        # Greetings and acknowledgements go, sentence by sentence ("Got it. The port is...").
        kept = [s for s in sentences(body) if not _SMALL_TALK.match(s)]
        body = " ".join(kept)
        content = f"{speaker}: {body}" if speaker else body
        if word_count(body) < 3 or content.lower() in seen:
            continue
        seen.add(content.lower())
        thoughts.append(
            ExtractedThought(
                kind="fact", content=content, salience=0.5, topic_hint=topic_name(body)
            )
        )
    return thoughts


def _strip_speaker(text: str) -> str:
    match = _TURN.match(text)
    return match["text"] if match is not None else text


def _is_name(raw: str, *, first: bool) -> bool:
    """Written as a name: an acronym, inner capitals (GitHub), or a capital mid-sentence."""
    if raw.isupper() and len(raw) > 1:
        return True
    return raw[:1].isupper() and (not first or any(c.isupper() for c in raw[1:]))


def _sentence(text: str) -> str:
    return text if text[-1:] in ".!?…" else text + "."


def _similarities(
    texts: list[str], embeddings: Sequence[Sequence[float]] | None
) -> list[list[float]]:
    """Pairwise cosine of the embeddings, or word overlap (Jaccard) without them."""
    if embeddings is not None:
        if not embeddings:
            return []
        matrix = np.asarray(embeddings, dtype=np.float64)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        unit = matrix / np.where(norms == 0.0, 1.0, norms)
        cosines: list[list[float]] = (unit @ unit.T).tolist()
        return cosines
    bags = [{w.lower() for w in _WORD.findall(text)} - lx.FUNCTION_WORDS for text in texts]
    return [[len(a & b) / len(a | b) if a | b else 0.0 for b in bags] for a in bags]
