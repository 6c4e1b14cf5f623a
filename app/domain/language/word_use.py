"""How the texts of a topic use a word: as a verb or an adjective, or as a noun that can
name the topic. Plain rules over lemminflect's lexicon (word classes, shipped in its wheel)
and the words around each use; no model, no downloads. Used by topic names
(thoughtgraph.domain.language.keyphrases).
"""

from __future__ import annotations

import re

from thoughtgraph.domain.language import lexicon as lx


def lemmas_of(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's lemmas of ``word`` by word class ("VERB": ("make",), ...)."""
    from lemminflect import getAllLemmas

    found: dict[str, tuple[str, ...]] = getAllLemmas(word.lower())
    return found


def word_classes(word: str) -> frozenset[str]:
    return frozenset(lemmas_of(word))


def participle(word: str) -> bool:
    """An -ing or -ed form of a verb ("camping", "glazed"; not "bring", "red")."""
    lower = word.lower()
    lemmas = lemmas_of(lower).get("VERB", ())
    return lower.endswith(("ing", "ed")) and any(lemma != lower for lemma in lemmas)


# Before a verb's base form ("to make", "we can dance", "let's paint", "can't wait",
# "I won't quit", "we'll see").
_VERB_LEAD = lx.words(
    "to can could will would should must might may i you we they don't didn't let's "
    "gonna wanna never always can't cannot won't wouldn't couldn't shouldn't doesn't "
    "mustn't i'll you'll we'll they'll he'll she'll it'll i'd you'd we'd they'd"
)
# Before a verb's -ing form in the progressive ("I'm working on", "we were painting") or
# as an adjective ("so inspiring", "really amazing"); a gerund after other words stays a
# noun ("I love painting").
_PROGRESSIVE_LEAD = lx.words(
    "am is are was were be been i'm you're we're they're he's she's it's that's "
    "so really very too pretty truly super incredibly quite"
)
# Before a noun only ("some work", "more dreams").
_QUANTIFIERS = lx.words("some any no more most many much few several lots all both")
# After a verb, its complement rather than its object ("sounds like", "looks so good").
_COMPLEMENT_WORDS = lx.words("like so really very too great good nice")
# Before a verb's third-person form ("that sounds", "it works"; "that" and "this" do not
# determine a plural noun).
_THIRD_PERSON_LEAD = lx.words("it he she that this everything something which who")


def single_word_not_a_name(word: str, text: str) -> bool:
    """One word that is an adjective ("positive"), that the texts mostly use as a verb
    ("make a difference", "to make"), or that can be a verb or a noun and is never used
    after a determiner ("moments make life awesome": no "the make" anywhere, where a noun
    has "the show", "my dreams"): it names no topic on its own. A gerund is exempt ("we
    love camping")."""
    tags = word_classes(word)
    if "ADJ" in tags:
        return True
    return "VERB" in tags and (mostly_a_verb(word, text) or used_as_a_verb(word, text))


def used_as_a_verb(word: str, text: str) -> bool:
    """A word that can be a noun or a verb (not a gerund) and that ``text`` never uses
    after a determiner or a possessive."""
    tags = word_classes(word)
    return (
        "NOUN" in tags
        and "VERB" in tags
        and not word.endswith("ing")
        and not in_noun_position(word, text)
    )


def in_noun_position(words: str, text: str) -> bool:
    """Whether ``text`` has ``words`` at least once where only a noun phrase goes: after
    a determiner, a possessive, a quantifier, a preposition other than "to" ("at work"),
    or an adjective or a participle ("inspiring work", "hard work")."""
    pattern = r"(?<![\w'])([a-z][\w']*)\s+" + re.escape(words) + r"(?![\w'])"
    return any(_noun_lead(lead) for lead in re.findall(pattern, text))


def _noun_lead(word: str) -> bool:
    if word in lx.DETERMINERS or word in _QUANTIFIERS or word.endswith("'s"):
        return True
    if word in lx.PREPOSITIONS and word not in {"to", "and", "or"}:
        return True
    tags = word_classes(word)
    return "ADJ" in tags or (word.endswith(("ing", "ed")) and participle(word))


def mostly_a_verb(word: str, text: str) -> bool:
    """Most of the word's uses in ``text`` follow "to", a modal or a subject pronoun, take
    a determiner or a pronoun after them, open a sentence with its subject left out
    ("Sounds great!", "Looks like rain": a verb's -s form before an adjective or "like"),
    or (an -ing form) follow "be" or a degree adverb ("is working", "so inspiring")."""
    third_person = word.endswith("s") and any(
        lemma != word for lemma in lemmas_of(word).get("VERB", ())
    )
    uses = verbs = 0
    for match in re.finditer(r"(?<![\w'])" + re.escape(word) + r"(?![\w'])", text):
        uses += 1
        before = re.findall(r"[a-z][\w']*", text[max(0, match.start() - 20) : match.start()])
        after = re.match(r"\s+([a-z][\w']*)", text[match.end() :])
        following = after.group(1) if after else ""
        lead = before[-1] if before else ""
        opens = _opens_a_sentence(text, match.start())
        if (
            (third_person and opens and _complement(following))
            or lead in _VERB_LEAD
            or (third_person and lead in _THIRD_PERSON_LEAD)
            or (word.endswith("ing") and lead in _PROGRESSIVE_LEAD)
            or following in lx.DETERMINERS | lx.PRONOUNS
        ):
            verbs += 1
    return uses > 0 and verbs * 2 > uses


def _opens_a_sentence(text: str, start: int) -> bool:
    """Whether ``start`` begins a sentence: the text before it ends a sentence or is empty.
    A few characters back suffice (topic texts are joined with one separator), so a
    frequent word costs no copy of the whole text per use."""
    before = text[max(0, start - 8) : start].rstrip()
    return before[-1:] in (".", "!", "?") or (not before and start <= 8)


def _complement(word: str) -> bool:
    """An adjective or "like" after a verb ("sounds great", "looks like")."""
    tags = word_classes(word)
    return word in _COMPLEMENT_WORDS or ("ADJ" in tags and "NOUN" not in tags)


def head_is_a_verb(phrase: str, text: str) -> bool:
    """The last word is a verb of the words before it where the text goes on with an
    object or a complement: "pottery class sounds relaxing", "the teacher fires the kiln"
    (not "hiking boots and water")."""
    head = phrase.rsplit(" ", 1)[-1]
    if not head.endswith("s") or head.endswith("ss") or "VERB" not in word_classes(head):
        return False
    for match in re.finditer(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text):
        following = re.match(r"\s+([a-z][\w'-]*)", text[match.end() :])
        if following is None:
            continue
        word = following.group(1)
        tags = word_classes(word)
        if (
            word in lx.DETERMINERS
            or word in lx.PRONOUNS
            or word.endswith("ing")
            or (tags and not tags & {"NOUN", "PROPN"})
            or word in _COMPLEMENT_WORDS
        ):
            return True
    return False
