"""Where a clause's subject starts and ends: after a fronted phrase, and before the
predicate's first word."""

from __future__ import annotations

import re

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.words import Word

NUMBER = re.compile(r"^[$€£]?\d+(?:\.\d+)*%?$")


def subject_start(words: list[Word]) -> int:
    """Index of the subject's first word: after a fronted clause or phrase closed by a comma
    ("Since the storage upgrade in March, Prometheus keeps ..."), else 0. A comma before
    "and", "but", "or" or "so" joins two clauses; what follows it is no subject."""
    if not words or words[0].lower not in lx.FRONTING:
        return 0
    comma = next((i for i, w in enumerate(words) if w.raw == ","), None)
    if comma is None or comma + 2 >= len(words) or words[comma + 1].lower in lx.COORDINATORS:
        return 0
    return comma + 1


def predicate_start(words: list[Word]) -> int:
    """Index of the word where the predicate starts: the word after a pronoun subject ("I
    knit", whether or not the verb lists know "knit"), the first auxiliary, or the first
    word that is a verb where it stands (not after "the", not a plural noun before a verb)."""
    if len(words) > 1 and words[0].lower in lx.PRONOUNS and not words[1].punct:
        return 1
    described = name_description(words)
    if described is not None:
        return described[1]
    for index in range(1, len(words)):
        word, before = words[index], _before(words, index)
        after = words[index + 1] if index + 1 < len(words) else None
        if word.punct:
            continue
        if word.lower in lx.AUXILIARIES and not (word.lower == "may" and word.raw[0].isupper()):
            return index
        if before.lower in lx.DETERMINERS or before.possessive:
            continue  # "the deploy window", "Jane's preferred editor": a modifier
        if word.lower in lx.IRREGULAR_VERBS:
            return index
        base = lx.VERB_FORM_BASE.get(word.lower)
        if base is None or word.lower.endswith("ing"):
            continue
        if word.lower == base:
            # A base form is a verb after a pronoun or a plural subject ("we use", "pull
            # requests need", "deploys to production require").
            pronoun = before.lower in lx.PRONOUNS or before.lower in lx.CONTRACTED_PRONOUNS
            if pronoun or _plural_subject(words[:index]):
                return index
        elif word.lower.endswith("s"):
            # "the team tracks work", not "dark launches are" or "the tests run nightly"
            if after is None or not (
                after.lower in lx.AUXILIARIES or lx.VERB_FORM_BASE.get(after.lower) == after.lower
            ):
                return index
        else:
            return index  # a past form
    # No known verb: take an -s or -ed word that a preposition or a number follows
    # ("the contract renews on 1 March").
    for index in range(1, len(words) - 1):
        word, before, after = words[index], _before(words, index), words[index + 1]
        if before.lower in lx.DETERMINERS or before.possessive:
            continue
        verb_like = word.lower.endswith(("s", "ed")) and word.lower not in lx.FUNCTION_WORDS
        if verb_like and (after.lower in lx.PREPOSITIONS or NUMBER.match(after.lower)):
            return index
    return len(words)


def name_description(words: list[Word]) -> tuple[range, int] | None:
    """In "My partner Leo smokes", "our little brother Sam is": the words describing the
    name ("partner", "little brother") and the index after the name. A relation noun after
    "my", "our" & co. and the name it precedes make the whole subject, so the predicate
    starts after the name, known verb or not; "the staging Postgres" names a thing."""
    if not words or words[0].lower not in lx.OWNING_DETERMINERS:
        return None
    relation = next((i for i, w in enumerate(words) if w.lower in lx.RELATION_NOUNS), None)
    if relation is None or any(w.punct or w.raw[:1].isupper() for w in words[1:relation]):
        return None
    end = relation + 1
    while end < len(words) and _is_name(words[end]):
        end += 1
    if end == relation + 1 or end >= len(words) or words[end].punct:
        return None
    return range(1, relation + 1), end


def _is_name(word: Word) -> bool:
    """A capitalised word that is not an acronym ("Mia", not "VPN")."""
    return word.raw[:1].isupper() and not word.raw.isupper() and word.raw.isalpha()


def _plural_subject(words: list[Word]) -> bool:
    """Whether the words before a base-form verb start with a plural noun phrase."""
    for word in words:
        if word.punct or word.lower in lx.FUNCTION_WORDS or word.lower in lx.ADVERBS:
            continue
        if word.lower.endswith("s") and not word.lower.endswith(("ss", "us", "is")):
            return True
    return False


def _before(words: list[Word], index: int) -> Word:
    """The word before ``index``, looking past adverbs ("we now keep")."""
    for previous in range(index - 1, 0, -1):
        if words[previous].lower not in lx.ADVERBS:
            return words[previous]
    return words[0]
