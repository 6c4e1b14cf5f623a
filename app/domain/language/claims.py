"""Is a text a claim worth judging? Sentence by sentence, by linguistic structure.

Maintenance (the contradiction scan, supersession, merges) changes what is current; it
should only act on statements of fact. Conversation is mostly other things: questions,
greetings and farewells, thanks and acknowledgements, suggestions ("let's ..."), and
opinions, compliments and feelings ("that sounds awesome", "you'll be a great mom",
"I'm so proud of you"). None of those can be contradicted or outdated by a later turn.

A text is a claim when at least one of its sentences is: declarative (not a question,
not an imperative), not a social formula, and not a pure evaluation, i.e. a subject with
a predicate that says something about the world rather than how the speaker feels about
it. Pure functions of the text, no I/O, no model: a tokenizer, closed word classes and
positional rules (sentence mood, interrogative inversion, formulae, evaluative
predicates, second-person address). Precision first: a sentence that mixes a feeling and
a fact ("this necklace is so special to me, a gift from my grandma") may be read as an
opinion; missing a claim costs a missed maintenance step, judging chit-chat invents
knowledge.
"""

from __future__ import annotations

import enum
import functools
import re

from thoughtgraph.domain.language.words import TEXT_CACHE_SIZE, rejoin_titles


class Kind(enum.StrEnum):
    CLAIM = "claim"
    QUESTION = "question"
    GREETING = "greeting"
    ACKNOWLEDGEMENT = "acknowledgement"  # thanks, agreement, interjections, suggestions
    OPINION = "opinion"  # evaluations, compliments, feelings


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# "Speaker: text" (one to three capitalised words before a colon) and shared photos.
_SPEAKER = re.compile(r"^\s*[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}:\s+")
_PHOTO = re.compile(r"\[shared an? (?:photo|image|picture)[^\]]*\]", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CURLY = str.maketrans({"\u2019": "'", "\u2018": "'"})

# Words that open a sentence or fill a comma-chunk without saying anything of the world.
INTERJECTIONS = _set(
    """
    hi hey hello hiya howdy yo bye goodbye thanks thank thx ty cheers wow whoa woah oh ooh
    ah aw aww awww yay yeah yea yep yup yes no nope nah ok okay k alright sure cool awesome
    great nice neat sweet lovely amazing wonderful fantastic perfect indeed totally
    absolutely definitely exactly true right agreed haha hahaha lol lmao omg gosh geez
    congrats congratulations hmm hm um uh well so anyway oops ugh phew damn dang hooray
    welcome bravo kudos sorry please really seriously man dude girl friend buddy pal
    there everyone everybody guys folks all y'all
    """
)
# Formula openings (the first words of a sentence, interjections and names stripped).
GREETINGS = (
    "good morning", "good afternoon", "good evening", "good night", "good to see",
    "good to hear from", "great to see", "nice to see", "nice to meet", "nice to hear from",
    "long time", "see you", "see ya", "talk soon", "talk to you", "catch you", "take care",
    "hope you're", "hope you are", "hope you", "hope all", "hope things", "hope your",
    "how's it going", "how are you", "how have you been", "what's up", "whats up",
    "it's been a while", "been a while", "bye for now", "have a good", "have a great",
    "have a nice", "have fun", "enjoy your", "until next time", "speak to you",
    "speak soon", "chat soon", "chat later", "see you soon",
)  # fmt: skip
ACKNOWLEDGEMENTS = (
    "thanks", "thank you", "appreciate", "i appreciate", "glad you", "glad to hear",
    "glad it", "so glad", "no worries", "no problem", "you're welcome", "my pleasure",
    "sounds", "that sounds", "it sounds", "me too", "same here", "i agree", "i totally agree",
    "agreed", "good luck", "best of luck", "keep it up", "keep up", "keep going",
    "congrats", "congratulations", "i hear you", "i know what you mean", "i get it",
    "i feel you", "i understand", "makes sense", "that makes sense", "fingers crossed",
    "you got this", "you've got this", "well done", "good job", "great job", "way to go",
    "i can't wait", "can't wait", "i bet", "bet it", "i'm sure", "for sure", "of course",
    "tell me more", "let me know", "i'd love to", "i would love to", "would love to",
    "i'm here for you", "here for you", "i'm rooting for you", "rooting for you",
    "way to", "sorry to hear", "you can do it", "you rock", "happy for you", "proud of you",
)  # fmt: skip
# Imperatives and suggestions: a base verb first.
IMPERATIVE_VERBS = _set(
    """
    let let's lets keep take check look go have enjoy try don't do stay remember hang
    give tell send share come see imagine guess wish hold stop be feel make count
    believe trust follow chase embrace focus dream listen never treat show reach
    """
)
# Proposals and advice: "we should plan a session", "you could try the coast road" (a
# first- or second-person plural or listener subject and a modal of suggestion).
PROPOSING_SUBJECTS = _set("we you")
PROPOSING_MODALS = _set("should could ought shall")
# Subjects that name nothing in particular: "a lot has happened", "so much has changed",
# "things have been busy", "everything's fine". Small talk: no entity a later turn can
# update (a noun after them, "everything in the repo", makes a subject again).
VAGUE_SUBJECTS = ("a lot", "lots", "so much", "much", "something", "everything", "nothing",
                  "things", "stuff", "it all", "all of it")  # fmt: skip
VAGUE_PREDICATES = _set(
    """
    has have had is are was were been be will would can could may might must should
    happened happens happen changed changes change went goes going seems seemed feels
    felt looks looked
    """
)
# Evaluative and affective words: the predicate of an opinion or a feeling.
EVALUATIVE = _set(
    """
    amazing awesome great good nice lovely beautiful cool fun special wonderful fantastic
    incredible sweet cute gorgeous stunning impressive inspiring inspired important tough
    hard awful terrible sad happy glad proud excited bad best worst perfect interesting
    fascinating exciting brave strong kind thoughtful priceless meaningful powerful
    peaceful calming relaxing delicious tasty yummy fabulous brilliant adorable stoked
    thrilled blessed grateful thankful lucky sorry rough crazy wild epic neat super
    unforgettable magical incredible admirable beautifully wonderfully lovely touching
    heartwarming rewarding fulfilling empowering uplifting refreshing cozy
    comforting soothing therapeutic memorable remarkable fantastic excellent outstanding
    superb terrific marvelous marvellous splendid phenomenal spectacular breathtaking
    worth worthwhile valuable precious dear fortunate hopeful optimistic motivated
    motivating encouraging supportive caring loving compassionate generous talented
    skilled creative smart clever wise funny hilarious scary frightening stressful
    exhausting overwhelming overwhelmed stressed tired exhausted bummed upset worried
    nervous anxious scared lonely frustrated frustrating annoying disappointing
    disappointed bittersweet emotional intense surreal unreal insane huge tremendous
    """
)
FEELING_VERBS = _set("feel feels felt feeling love loved loving adore adored hate hated miss")
THANKING_VERBS = _set("appreciate appreciated thank")
# What is said to the listener about the listener: praise, reassurance, encouragement.
ADDRESSED = EVALUATIVE | _set("right got deserve deserved awe")
COPULA_FORMS = _set(
    """
    is are was were be been am being 's 're 'm it's that's this's what's you're i'm we're
    they're he's she's there's looks look looked seems seem seemed sounds sound sounded
    feels feel felt must would could can will
    """
)
SECOND_PERSON = _set("you you're you'll you've you'd your yours yourself")
INTERROGATIVE_AUX = _set(
    """
    do does did is are was were have has had can could would will should shall may might
    am isn't aren't wasn't weren't don't doesn't didn't haven't hasn't won't wouldn't
    couldn't shouldn't
    """
)
WH_WORDS = _set("what who whom whose which when where why how")
SUBJECT_PRONOUNS = _set("you i we they he she it that this there")
# Modifiers that sit between a copula and its evaluative word: "is so very", "a really".
EXCLAIMING = _set("so such")  # degree words that make a predicate an exclamation
DEGREE = _set(
    """
    so very really just such a an the quite pretty totally super truly too most more
    absolutely incredibly extremely kinda kind of sort always definitely honestly simply
    all still even mighty bit little lot bunch of one
    """
)


def _normal(text: str) -> str:
    return text.translate(_CURLY)


def body(text: str) -> str:
    """The text without its "Speaker: " prefix and shared-photo captions."""
    return _PHOTO.sub(" ", _SPEAKER.sub("", _normal(text), count=1)).strip()


def sentences(text: str) -> list[str]:
    parts = rejoin_titles(_SENTENCE_END.split(body(text)))
    return [s.strip() for s in parts if s.strip(" .!?\"'")]


def _starts(words: list[str], phrases: tuple[str, ...]) -> bool:
    head = " ".join(words[:6])
    return any(head == p or head.startswith(p + " ") for p in phrases)


# Discourse markers that announce a statement without being one: "Guess what, ...".
OPENERS = (
    "guess what", "fun fact", "good news", "bad news", "great news", "big news", "btw",
    "by the way", "oh and", "and btw", "anyway", "also", "update", "fyi", "heads up",
    "quick update", "so", "well", "funny thing", "you know what", "in other news",
    "honestly", "frankly", "apparently", "basically", "turns out",
    "as it turns out", "just so you know", "for the record", "just a heads up", "news",
    "note", "quick note", "side note", "reminder", "psa", "change of plans", "ok so",
    "okay so", "so yeah", "oh by the way", "small update", "quick heads up",
)  # fmt: skip
_OPENING_CHUNK = re.compile(r"\s*([^,:;]{1,40}?)\s*[,:]\s+(?=\S)")


def _strip_openers(sentence: str) -> str:
    """The sentence without leading interjections and vocatives ("Thanks, Mel!", "Wow,
    Caroline,")."""
    chunks = re.split(r"\s*[,:]\s*", sentence)
    while len(chunks) > 1:
        chunk = chunks[0].strip(" !.-")
        words = _TOKEN.findall(chunk.lower())
        names = chunk.split()
        bare = [n.strip("!.?'\"") for n in names]
        interjection = bool(words) and all(
            n.lower() in INTERJECTIONS or (n[:1].isupper() and n != "I") for n in bare if n
        )
        vocative = (
            0 < len(names) <= 2
            and all(n[:1].isupper() for n in names)
            and not (words and words[0] in SUBJECT_PRONOUNS)
        )
        opener = " ".join(words) in OPENERS
        if not (interjection or vocative or opener):
            break
        chunks = chunks[1:]
    return ", ".join(chunks).strip()


def without_openers(text: str) -> str:
    """``text`` without the interjections and discourse markers that open it ("Ugh, the
    evening got pushed" says "the evening got pushed"). Names stay: "Redis, Kafka and
    ZooKeeper are ..." opens with its subject, not with a vocative."""
    rest = text
    while (found := _OPENING_CHUNK.match(rest)) is not None:
        words = _TOKEN.findall(_normal(found[1]).lower())
        if not words or not (all(w in INTERJECTIONS for w in words) or " ".join(words) in OPENERS):
            break
        rest = rest[found.end() :]
    return rest


def _evaluative_predicate(words: list[str]) -> bool:
    """A copula (or looks/sounds/seems) followed, past degree words, by an evaluative
    word: "that's so awesome", "painting's a fun way", "it looks great"."""
    for i, w in enumerate(words):
        if w in COPULA_FORMS or w.endswith("'s") or w.endswith("'re") or w.endswith("'m"):
            j = i + 1
            while j < len(words) and (words[j] in DEGREE or words[j] in ("not", "n't")):
                j += 1
            if j < len(words) and words[j] in EVALUATIVE:
                return True
            if j < len(words) and words[i + 1] in EXCLAIMING:
                return True  # "dance is so expressive": "so" and "such" exclaim
            if j > i + 1 and j == len(words):
                return False
    return False


def sentence_kind(sentence: str) -> Kind:
    """What one sentence does."""
    text = _normal(sentence).strip()
    if text.rstrip(" \"')").endswith("?"):
        return Kind.QUESTION
    rest = _strip_openers(text)
    words = _TOKEN.findall(rest.lower())
    if not words or all(w in INTERJECTIONS for w in words):
        first = _TOKEN.findall(text.lower())[:1]
        if first and first[0] in ("hi", "hey", "hello", "hiya", "howdy", "bye", "goodbye"):
            return Kind.GREETING
        return Kind.ACKNOWLEDGEMENT
    if _starts(words, GREETINGS) or _greeting_with_names(rest):
        return Kind.GREETING
    if (
        words[0] in ("what", "how")
        and len(words) > 1
        and (words[1] in ("a", "an") or words[1] in EVALUATIVE or words[1] in DEGREE)
    ):
        return Kind.OPINION  # an exclamative: "what a view!", "how lovely"
    if words[0] in INTERROGATIVE_AUX and len(words) > 1 and words[1] in SUBJECT_PRONOUNS:
        return Kind.QUESTION  # inversion without a question mark: "did you go there"
    if words[0] in WH_WORDS and len(words) > 1 and words[1] in INTERROGATIVE_AUX:
        return Kind.QUESTION
    if _starts(words, ACKNOWLEDGEMENTS):
        return Kind.ACKNOWLEDGEMENT
    if words[0] in IMPERATIVE_VERBS and (len(words) == 1 or words[1] not in ("is", "was")):
        return Kind.ACKNOWLEDGEMENT  # a suggestion or a request, not a statement
    if len(words) > 2 and words[0] in PROPOSING_SUBJECTS and words[1] in PROPOSING_MODALS:
        return Kind.ACKNOWLEDGEMENT  # a proposal or advice, not a statement
    if _vague_subject(words):
        return Kind.ACKNOWLEDGEMENT  # small talk about nothing in particular
    if words[0] in SECOND_PERSON and any(w in ADDRESSED for w in words):
        return Kind.OPINION  # about the listener: a compliment, a wish
    if "means a lot" in rest.lower() or "mean a lot" in rest.lower():
        return Kind.OPINION
    if _undegreed(words)[:1] and _undegreed(words)[0] in EVALUATIVE:
        return Kind.OPINION  # a verbless evaluation: "Happy for you!", "Tough decision."
    if _evaluative_predicate(words):
        return Kind.OPINION
    if _feeling(words):
        return Kind.OPINION
    if _ellipsis(words):
        return Kind.ACKNOWLEDGEMENT  # "I definitely will", "we did too", "me neither"
    if len(words) + sum("'" in w for w in words) < 3:
        return Kind.ACKNOWLEDGEMENT  # a fragment: "Totally worth it", "Same!"
    return Kind.CLAIM


def _vague_subject(words: list[str]) -> bool:
    """The subject is an indefinite pronoun or quantifier and a verb follows it at once:
    "a lot has happened since then", "things have been crazy", "everything's fine"."""
    for phrase in VAGUE_SUBJECTS:
        head = phrase.split()
        n = len(head)
        if words[:n] == head and len(words) > n and words[n] in VAGUE_PREDICATES:
            return True
        contracted = [*head[:-1], head[-1] + "'s"]
        if words[:n] == contracted:
            return True  # "everything's fine", "something's up"
    return False


_ADVERBS = DEGREE - _set("a an the one of kind sort all bunch lot bit little")


def _undegreed(words: list[str]) -> list[str]:
    """The words after leading degree adverbs ("really cool idea" -> "cool idea")."""
    i = 0
    while i < len(words) and words[i] in _ADVERBS:
        i += 1
    return words[i:]


_GREETING_WORDS = frozenset(("hi", "hey", "hello", "hiya", "howdy", "bye", "goodbye"))


def _greeting_with_names(rest: str) -> bool:
    """A greeting word and names or interjections only: "Hi Tomás!", "Hey there"."""
    names = re.findall(r"[\w']+", rest)
    if not names or names[0].lower() not in _GREETING_WORDS:
        return False
    return all(n[:1].isupper() or n.lower() in INTERJECTIONS for n in names[1:])


_ELLIPSIS_TAIL = _set("too either neither also as well so")


def _ellipsis(words: list[str]) -> bool:
    """A subject and an auxiliary with nothing after it (verb-phrase ellipsis)."""
    core = [w for w in words if w not in _ADVERBS and w not in _ELLIPSIS_TAIL]
    return (
        2 <= len(core) <= 3
        and core[0] in SUBJECT_PRONOUNS | _set("me")
        and core[-1] in INTERROGATIVE_AUX | _set("won't can't not")
    )


def _feeling(words: list[str]) -> bool:
    """First-person feelings: "I love that!", "I feel so inspired", "I'm feeling great",
    "I miss you", "I really appreciate it"."""
    head = words[:4]
    if not head or head[0] not in ("i", "we", "i'm", "we're", "i've", "we've"):
        return False
    if any(w in THANKING_VERBS for w in head[1:]):
        return True
    # "I love the theme", "we miss you", "I feel great": how the speaker feels, whatever
    # the object (a preference that changes is rare; judging feelings invents changes)
    return any(w in FEELING_VERBS for w in head[1:])


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def claim_sentences(text: str) -> tuple[str, ...]:
    """The sentences of ``text`` that are claims, in order."""
    return tuple(s for s in sentences(text) if sentence_kind(s) is Kind.CLAIM)


def claims_without_openers(text: str) -> tuple[str, ...]:
    """The claim sentences of ``text``, each without its opening interjections and
    discourse markers (see ``without_openers``)."""
    return tuple(without_openers(s) for s in claim_sentences(text))


def is_claim(text: str) -> bool:
    """True when the text states at least one fact (see the module's docstring)."""
    return bool(claim_sentences(text))


def same_words(a: str, b: str) -> bool:
    """The same words in the same order (case and punctuation aside): a true duplicate."""
    return _TOKEN.findall(_normal(a).lower()) == _TOKEN.findall(_normal(b).lower())


def subject_word(sentence: str) -> str:
    """The first word after openers and connectives ("Plus, I'm going" -> "i'm")."""
    words = _TOKEN.findall(_strip_openers(_normal(sentence)).lower())
    while words and words[0] in _CONNECTIVES:
        words = words[1:]
    return words[0] if words else ""


_CONNECTIVES = _set("plus and but so also oh anyway actually honestly now still then")
