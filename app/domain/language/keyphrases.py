"""Topic names a person would write: key phrases that are noun phrases.

Candidates are YAKE's key phrases (statistical, no model; its English stop-word list ships
in its wheel) over the topic's thoughts, speaker prefixes off. A candidate is kept only as
a noun phrase: 1-4 words, none a stop word, an adverb or a vague word ("thing", "today"),
its last word able to be a noun (lemminflect's lexicon, shipped in its wheel: "trip",
"pottery", a gerund like "camping", or a name it does not know) and no modifier that can
only be a verb or an adverb ("recommend", "definitely"). Not kept either: a phrase of
nothing but the speakers' names (in a conversation they greet and thank each other by
name in most turns: "Hi Maria!", "Thanks, John"), a single adjective ("positive"), and a
word the texts use as a verb ("make a difference", "that sounds great", "can't wait",
"I'm working on it", "moments make life awesome"; word_use.py). The kept ones are ranked by the
local embedder: a phrase weighs what the thoughts that say it weigh, each by its cosine to
the topic's centroid, so the phrase of the topic's core beats one of an outlier.

Same input, same output; no downloads, no I/O beyond the two libraries' own data files.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from collections.abc import Collection, Sequence

import numpy as np

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.word_use import (
    head_is_a_verb,
    in_noun_position,
    mostly_a_verb,
    participle,
    single_word_not_a_name,
    used_as_a_verb,
    word_classes,
)

MAX_NAME_WORDS = 4
MAX_NAME_CHARS = 60
UNTITLED = "Untitled"
CANDIDATES = 30  # YAKE phrases looked at per topic
MAX_TEXT_CHARS = 20_000  # of the joined thoughts: YAKE's cost grows with the text

# "Caroline: ...", "[10:02] Bob: ..."
_SPEAKER = re.compile(r"^\s*(?:\[[^\]]{1,20}\]\s*)?\**[A-Za-z][\w .'-]{0,30}?\**\s*:\s+(?=\S)")
_TOKEN = re.compile(r"^[A-Za-z][\w.+#'/-]*$|^\d[\w.+-]*$")
_NAME_WORD = re.compile(r"[A-Za-z][\w'-]*")


# Words a person would not name a topic with, though no stop-word list has them.
_VAGUE = lx.words(
    "thing things stuff lot lots way ways kind sort bit bits time times day days today "
    "tonight tomorrow yesterday morning evening night week weekend month year moment "
    "yeah yes wow haha lol omg hey hi hello bye goodbye thanks thank okay ok sure cool nice great "
    "awesome amazing glad happy fun really totally super pretty so monday tuesday "
    "wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays "
    "fridays saturdays sundays "
    # Spoken contractions of function words, which no lexicon lists as words.
    "gonna wanna gotta kinda sorta lemme gimme dunno ya y'all ain't"
)
# Leading modifiers that judge rather than name ("good hiking boots" is "Hiking Boots").
_WEAK_MODIFIERS = lx.words(
    "good bad new old long short big small little great nice lovely real whole own other "
    "same next last first many few several favorite favourite huge tiny"
)
_ADJECTIVE_HEADS = lx.words("good bad best better worse worst first last lovely")
_ADJECTIVE_ENDS = ("ly", "ous", "ful", "able", "ible")
# Inside a name (never first or last): "Bill of Materials", "Rock and Roll".
_CONNECTORS = frozenset({"of", "and", "for", "in", "on", "&"})


@functools.cache
def stop_words() -> frozenset[str]:
    """YAKE's English list and the project's function words, adverbs and negations."""
    path = importlib.resources.files("yake") / "core" / "StopwordsList" / "stopwords_en.txt"
    shipped = path.read_bytes().decode("utf-8", errors="replace").lower().split()
    return frozenset(shipped) | lx.FUNCTION_WORDS | lx.ADVERBS | lx.NEGATIONS | lx.AUXILIARIES


def _is_name_like(word: str) -> bool:
    """Written as a name or a term: a capital or a digit ("Biscuit", "LGBTQ", "Python3")."""
    return any(c.isupper() or c.isdigit() for c in word)


def _can_head(word: str) -> bool:
    tags = word_classes(word)
    lower = word.lower()
    if not tags:  # a name or a term the lexicon does not know ("LGBTQ", "Kubernetes")
        return len(word) >= 2 and not word.isdigit()
    if "ADJ" in tags and (lower in _ADJECTIVE_HEADS or lower.endswith(_ADJECTIVE_ENDS)):
        return False  # "sounds lovely", "really good"
    if "NOUN" in tags or "PROPN" in tags:
        return True
    return lower.endswith("ing") and participle(word)  # a gerund: "camping"


def _can_modify(word: str) -> bool:
    tags = word_classes(word)
    lower = word.lower()
    if "VERB" in tags and lower.endswith("s") and not lower.endswith("ss"):
        return False  # "pottery sounds relaxing": a verb after its subject
    if not tags or tags & {"NOUN", "PROPN", "ADJ"}:
        return True
    return participle(word)  # "running shoes", "used car"


def is_noun_phrase(phrase: str, *, connectors: bool = True) -> bool:
    """1-4 words a topic can be named with: see the module's doc. ``connectors``: "of",
    "and", "for", "in", "on" allowed inside (an LLM's "Bill of Materials"); offline
    candidates have none ("appointment on Tuesday" is a fragment, not a name)."""
    words = phrase.split()
    if not 1 <= len(words) <= MAX_NAME_WORDS or len(phrase) > MAX_NAME_CHARS:
        return False
    stops = stop_words()
    for index, word in enumerate(words):
        lower = word.lower()
        inner = 0 < index < len(words) - 1
        if connectors and inner and lower in _CONNECTORS:
            continue
        if not _TOKEN.match(word) or lower in stops or lower in _VAGUE:
            return False
    content = [w for w in words if w.lower() not in _CONNECTORS]
    if all(w.replace(".", "").isdigit() for w in content):
        return False
    if not _can_head(words[-1]):
        return False
    return all(_can_modify(w) for w in words[:-1] if w.lower() not in _CONNECTORS)


def title(phrase: str) -> str:
    """Title-like: each word capitalised, names and terms kept as written."""
    words = phrase.split()
    shown = []
    for index, word in enumerate(words):
        if _is_name_like(word):
            shown.append(word)
        elif 0 < index < len(words) - 1 and word.lower() in _CONNECTORS:
            shown.append(word.lower())
        else:
            shown.append(word[:1].upper() + word[1:].lower())
    return " ".join(shown)


def valid_name(name: str | None) -> str | None:
    """A name from elsewhere (an LLM) as a topic name, or None when it is not one."""
    if not name:
        return None
    flat = " ".join(name.strip().strip("\"'.:;!?").split())
    return title(flat) if flat and is_noun_phrase(flat) else None


def strip_speaker(text: str) -> str:
    return _SPEAKER.sub("", text, count=1)


def speaker_words(texts: Sequence[str]) -> frozenset[str]:
    """The words of the speaker prefixes of ``texts``, lower-cased ("caroline")."""
    found: set[str] = set()
    for text in texts:
        prefix = _SPEAKER.match(text)
        if prefix is not None:
            found.update(w.lower() for w in _NAME_WORD.findall(prefix.group(0)))
    return frozenset(found)


def candidates(texts: Sequence[str]) -> list[str]:
    """YAKE's key phrases of the texts that are noun phrases, best first."""
    import yake

    joined = "\n".join(_sentence(strip_speaker(t)) for t in texts if t.strip())
    joined = joined[:MAX_TEXT_CHARS]
    if not joined.strip():
        return []
    extractor = yake.KeywordExtractor(
        lan="en", n=MAX_NAME_WORDS, top=CANDIDATES, dedup_lim=0.9, stopwords=set(stop_words())
    )
    found = [_trim(str(phrase)) for phrase, _ in extractor.extract_keywords(joined)]
    lowered = joined.lower().replace("\u2019", "'")  # a curly apostrophe as a straight one
    speakers = speaker_words(texts)
    kept: list[str] = []
    seen: set[str] = set()
    for phrase in found:
        key = phrase.lower()
        if key in seen or not is_noun_phrase(phrase, connectors=False):
            continue
        if all(_possessor(word) in speakers for word in key.split()):
            continue  # only who is talking
        if len(phrase.split()) > 1 and head_is_a_verb(key, lowered):
            continue
        first = key.split()[0]
        if " " not in key and single_word_not_a_name(key, lowered):
            continue
        if " " in key and "VERB" in word_classes(first) and mostly_a_verb(first, lowered):
            continue  # a verb and its object: "make progress"
        if (
            " " in key
            and not in_noun_position(key, lowered)
            and any(used_as_a_verb(word, lowered) for word in key.split())
        ):
            continue  # "moments make life": never "the make", nor "the moments make life"
        seen.add(key)
        kept.append(phrase)
    return kept


def _possessor(word: str) -> str:
    """ "maria's" -> "maria"."""
    return word[:-2] if word.endswith(("'s", "\u2019s")) else word


def _trim(phrase: str) -> str:
    """Without leading modifiers that judge ("good", "new", "long")."""
    words = phrase.split()
    while len(words) > 1 and words[0].lower() in _WEAK_MODIFIERS:
        words = words[1:]
    return " ".join(words)


def topic_name(
    texts: Sequence[str],
    embeddings: Sequence[Sequence[float]] | None = None,
    centroid: Sequence[float] | None = None,
    *,
    taken: Collection[str] = (),
) -> str:
    """The name of a topic whose thoughts are ``texts`` (``embeddings`` one per text,
    ``centroid`` the topic's direction; without them every thought weighs the same).
    ``taken``: other topics' names (lower case); the best phrase that names none of them
    wins, so that a namespace's topics read apart, and the best of all when every phrase
    is taken."""
    found = candidates(texts)
    if not found:
        return UNTITLED
    weights = _weights(len(texts), embeddings, centroid)
    lowered = [strip_speaker(t).lower() for t in texts]
    scored = []
    for rank, phrase in enumerate(found):
        pattern = re.compile(r"(?<!\w)" + re.escape(phrase.lower()) + r"(?!\w)")
        support = sum(w for w, text in zip(weights, lowered, strict=True) if pattern.search(text))
        # YAKE's order breaks ties and keeps a phrase of the core ahead of a stray word.
        score = support * (1.0 + 0.25 * (len(phrase.split()) - 1)) / (1.0 + 0.1 * rank)
        scored.append((-score, rank, title(phrase)))
    ranked = [name for _, _, name in sorted(scored)]
    return next((name for name in ranked if name.lower() not in taken), ranked[0])


def _weights(
    count: int,
    embeddings: Sequence[Sequence[float]] | None,
    centroid: Sequence[float] | None,
) -> list[float]:
    if not embeddings or len(embeddings) != count:
        return [1.0] * count
    matrix = np.asarray(embeddings, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0.0, 1.0, norms)
    direction = np.asarray(centroid, dtype=np.float64) if centroid is not None else unit.sum(0)
    length = float(np.linalg.norm(direction))
    if length == 0.0:
        return [1.0] * count
    return [max(0.0, float(x)) for x in unit @ (direction / length)]


def _sentence(text: str) -> str:
    flat = " ".join(text.split())
    return flat if flat[-1:] in ".!?" else flat + "."
