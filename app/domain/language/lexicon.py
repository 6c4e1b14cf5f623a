"""Word lists of the rule-based contradiction judge (English only).

Small and closed on purpose: each list is a grammatical class (function words, auxiliaries,
units, time words) or a list of phrases that signal a change, an addition or a negation.
"""

from __future__ import annotations

import re


def words(text: str) -> frozenset[str]:
    """A word list written as one string."""
    return frozenset(text.split())


# Words that carry no subject or value: compared texts ignore them.
FUNCTION_WORDS = words(
    """
    a an the of for to in on at by with from into onto through via per as than and or but
    so that which who whom whose this these those there here it its we our us they them
    their i me my you your he him his she her be is are was were been being am has have
    had having do does did will would shall should can could may might must each every all
    any some just only very really still yet again about behind up down out off within
    upon under over after before across around while during if then else when where what
    how why such same other
    """
)

DETERMINERS = words("the a an our my your their its his her this that these those each every")
PRONOUNS = words("we they i you he she it")
# "I've", "we're": a pronoun subject with its auxiliary ("it's" reads as "it" already).
CONTRACTED_PRONOUNS = {
    f"{pronoun}'{ending}": pronoun
    for pronoun, endings in (
        ("i", ("m", "ve", "d", "ll")),
        ("we", ("re", "ve", "d", "ll")),
        ("you", ("re", "ve", "d", "ll")),
        ("they", ("re", "ve", "d", "ll")),
        ("he", ("d", "ll")),
        ("she", ("d", "ll")),
        ("it", ("d", "ll")),
    )
    for ending in endings
}
AUXILIARIES = words(
    """
    is are was were be been am has have had do does did will would shall should can could
    may might must
    """
)
COPULAS = words("is are was were be been am")
# What a bag-of-words comparison skips: words that name nothing the statement is about.
STOP_WORDS = FUNCTION_WORDS | DETERMINERS | PRONOUNS | AUXILIARIES | COPULAS
# Skipped when looking for the word before a verb: "we now keep", "Alice also owns".
ADVERBS = words("now also still just only never not no longer always currently already too")

NEGATIONS = words("not no never without cannot")

# Nouns that name a person or an animal by their relation to the speaker; before a name
# they describe it ("my daughter Mia", "our cat Miso"): the name is what is talked about.
RELATION_NOUNS = words(
    """
    daughter son child kid baby partner wife husband spouse boyfriend girlfriend fiance
    fiancee brother sister sibling mother father mom mum dad parent stepmother stepfather
    grandmother grandfather grandma grandpa granny aunt uncle cousin nephew niece friend
    colleague coworker boss manager neighbour neighbor roommate flatmate housemate
    landlord landlady tenant doctor dentist therapist physiotherapist physio coach tutor
    teacher mentor assistant cat dog puppy kitten pet horse rabbit hamster parrot
    """
)
# Determiners that make a relation noun the speaker's or someone's ("my sister Ana").
OWNING_DETERMINERS = words("my our your his her their")

# Words that open a clause or phrase put before the subject and closed by a comma
# ("Since the upgrade, Prometheus keeps ...", "After Dmitri left, Keiko ..."): the subject
# starts after the comma. A fronted "On weekends, ..." stays part of what is talked about.
FRONTING = words("since after before once when because until while as following from")
COORDINATORS = words("and but or so")
# A fronted phrase that dates a state from an event ("Since the upgrade, ...", "After the
# reorg, ...") is a change cue in the newer of two statements, and not a detail of it.
CHANGE_FRONTING = words("since after following from")
# A trailing clause or phrase opened by one of these says when or why, not what.
ADJUNCTS = words("since after following because until once")
CONTRACTED_NOT = {
    "can't": ("can", "not"),
    "won't": ("will", "not"),
    "shan't": ("shall", "not"),
}

# Base forms; inflections are generated (see verb_forms). Enough to find where a short
# statement's subject ends; a missed verb only blurs that boundary.
VERBS = words(
    """
    accept access add adopt allocate allow answer apply approve archive ask assign attach
    average
    attend audit authenticate authorize back become bill block book break bring build buy
    call cap change charge check choose clean close collect commit compile compress
    configure connect consume contain cost cover crash create cut debug decide default
    define delete deliver depend deploy describe design detect disable drop email emit
    enable encrypt end enforce ensure escalate evaluate exceed expect expire export expose
    fail fetch fix flag follow forward generate give go grant grow handle hand happen hate
    hire host ignore implement import include install integrate join keep know launch
    lead leave like list listen live load lock look love maintain manage mean measure meet
    merge migrate mirror monitor move need notify offer open operate own page pass pay pin
    plan point poll post prefer prepare process produce protect provide provision publish
    pull purge push queue read receive reduce refresh reject release rely remove rename
    renew replace reply report require reschedule reset resolve respond restart restore
    retain retry return review rotate route run save scale schedule scan send serve set
    share ship show sign sit sort speak spend split start stay stop store stream submit
    support switch sync take talk target test throttle track train transfer trigger trust
    turn update upload use validate verify wait want watch work write
    arrive belong borrow cancel celebrate climb commute depart earn eat enjoy feed
    graduate learn lend lose marry owe postpone prescribe quit recommend relocate resign
    resize retire sell smoke specify suggest swim teach weigh win
    """
)
IRREGULAR_VERBS = words(
    """
    went gone goes took taken did done made became begun began ran sat sent kept held left
    led met paid said spoke spoken split set put wrote written rewritten built chose chosen
    gave given got knew known
    quit ate eaten fed taught swam swum drove driven flew flown wore worn slept sold won
    lost bought brought caught found told stood grew grown threw shown drew forgot withdrew
    reset cut
    """
)

# Verbs that set a value to what follows ("was turned down to 3 degrees", "started third
# grade"): with the same unit on both sides, they restate one slot, unlike "hired 2".
SETTING_VERBS = words(
    "set turn resize reset cut start adjust change raise lower increase reduce bump drop "
    "move switch push postpone reschedule"
)

# One holder at a time: "Alice owns X" / "Bob owns X" conflict, "Alice likes X" does not.
EXCLUSIVE_VERBS = words("own lead manage head chair maintain")
# Many values at once: "likes tea" and "likes coffee" are both true.
MULTI_VALUED_VERBS = words("like love enjoy know speak visit read watch play support")

# Read in the newer text only, and only when the older one lacks them.
CHANGE_CUES: tuple[str, ...] = (
    "no longer",
    "not anymore",
    "any more",
    "anymore",
    "no more",
    "from now on",
    "going forward",
    "nowadays",
    "these days",
    "as of",
    "now",
    "moved",
    "switched",
    "switch",
    "switching",
    "migrated",
    "migrating",
    "replaced",
    "replaces",
    "replacing",
    "instead of",
    "rather than",
    "deprecated",
    "renamed",
    "changed",
    "updated",
    "upgraded",
    "downgraded",
    "bumped",
    "raised",
    "lowered",
    "reduced",
    "increased",
    "decreased",
    "went up",
    "went down",
    "dropped",
    "stopped",
    "postponed",
    "rescheduled",
    "delayed",
    "pushed back",
    "brought forward",
    "relocated",
    "took over",
    "taken over",
    "handed",
    "transferred",
    "reverted",
    "rolled back",
    "after all",
    "reversed",
    "retired",
    "discontinued",
    "removed",
    "rewritten",
    "became",
    "has become",
    "used to",
    "cut to",
    # A quantity or extent moving to a new value ("has grown to 185 employees").
    "grew to",
    "grown to",
    "rose to",
    "risen to",
    "fell to",
    "fallen to",
    "climbed to",
    "extended to",
    "shortened to",
    "reset to",
    "swapped",
    # Giving something up (not "quit": "I won't quit" is encouragement as often).
    "cancelled",
    "canceled",
    "gave up",
    "given up",
    "sold",
    # Corrections: the newer says the older was wrong.
    "actually",
    "in fact",
    "correction",
)
# A trailing phrase naming a new regime ("under the new handbook", "with the revised
# plan") says why a value changed: a change cue, and (like ADJUNCTS) no detail of the value.
# Not "for" or "in": "for the new hires", "in the new design" name a scope as often.
NOVELTY_CUES = tuple(
    f"{preposition} {determiner} {novelty}"
    for preposition in ("under", "with", "per", "following", "after")
    for determiner in ("the", "a", "our", "my", "its", "their", "his", "her")
    for novelty in ("new", "revised", "updated", "amended", "latest")
)
CHANGE_CUES += NOVELTY_CUES
# "Seven years now", "a while now": "now" after a duration says how long, not what changed.
DURATIONS = words(
    "second seconds minute minutes hour hours day days week weeks month months year years "
    "decade decades while ages"
)
# Change cues that also negate what they apply to ("we dropped X" = "we no longer X").
NEGATING_CUES = frozenset(
    {
        "no longer",
        "not anymore",
        "no more",
        "dropped",
        "stopped",
        "removed",
        "discontinued",
        "retired",
        "deprecated",
        "cancelled",
        "canceled",
        "gave up",
        "given up",
        "sold",
    }
)
ADDITIVE_CUES = (
    "as well as",
    "as well",
    "in addition",
    "additionally",
    "also",
    "too",
    "another",
    "besides",
    "alongside",
    "on top of",
)

# Values that exclude each other: the same subject cannot be both.
ANTONYMS: tuple[tuple[str, str], ...] = (
    ("on", "off"),  # only as a verb's particle ("turned on"); see PARTICLES
    ("enabled", "disabled"),
    ("enable", "disable"),
    ("true", "false"),
    ("allowed", "forbidden"),
    ("allowed", "blocked"),
    ("allow", "deny"),
    ("public", "private"),
    ("required", "optional"),
    ("mandatory", "optional"),
    ("sync", "async"),
    ("synchronous", "asynchronous"),
    ("open", "closed"),
    ("active", "inactive"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("supported", "unsupported"),
    ("server", "client"),
    ("internal", "external"),
    ("manual", "automatic"),
    ("manually", "automatically"),
    ("remote", "onsite"),
    ("online", "offline"),
    ("include", "exclude"),
    ("included", "excluded"),
    ("increase", "decrease"),
    ("read-only", "writable"),
    ("stable", "experimental"),
)
ANTONYM_OF: dict[str, frozenset[str]] = {}
for _left, _right in ANTONYMS:
    ANTONYM_OF[_left] = ANTONYM_OF.get(_left, frozenset()) | {_right}
    ANTONYM_OF[_right] = ANTONYM_OF.get(_right, frozenset()) | {_left}
STATE_WORDS = frozenset(ANTONYM_OF)
# "on"/"off" right after a verb are a state ("turned off"), not a preposition.
PARTICLES = frozenset({"on", "off"})
# Words that end a "for ..." phrase: the next preposition or conjunction.
PREPOSITIONS = words("of in on at to with by from into via through and or")

_CARDINALS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"
NUMBER_WORDS = {word: str(value) for value, word in enumerate(_CARDINALS.split(" "))} | {
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "hundred": "100",
    "thousand": "1000",
}
ORDINAL_WORDS = {word: f"{value}th" for value, word in enumerate(_ORDINALS.split(" "), start=1)}
# Measure words: part of the value they follow ("16 GB", "port 8080", "room Aurora").
LABELS = words(
    """
    port version v release room floor building gb mb kb tb gib mib kib ms s sec second
    minute min hour h day week month year percent request rps rpm qps node core cpu replica
    instance
    """
)
TIME_WORDS = words(
    """
    monday tuesday wednesday thursday friday saturday sunday weekday weekend january
    february march april may june july august september october november december jan feb
    mar apr jun jul aug sep sept oct nov dec morning afternoon evening night noon midnight
    daily nightly weekly biweekly monthly quarterly yearly annually hourly today tomorrow
    yesterday q1 q2 q3 q4 h1 h2 utc
    """
)

# "from X to Y", "instead of X", "X was replaced by Y", "took over from X", "X handed ...
# over to Y", "renamed X to Y": X is the older statement's value, named in the newer one.
# ("The CLI was renamed to Y" names the subject, not the old value: no pattern for it.)
# A character of a phrase: no clause punctuation, but a full stop inside a word
# ("booking.com", "1.4") stays.
_PHRASE_CHAR = r"(?:[^,;.]|\.(?=\w))"
OLD_VALUE_PATTERNS = tuple(
    re.compile(pattern)
    for pattern in (
        rf"\bfrom (?P<old>{_PHRASE_CHAR}+?) (?:to|into)\b",
        r"\b(?:instead of|rather than) (?P<old>[^,;]+?)(?:[,;.]|$)",
        rf"\breplac(?:ed|es|ing) (?P<old>{_PHRASE_CHAR}+?) (?:with|by|as|in|for)\b",
        rf"^(?P<old>{_PHRASE_CHAR}+?) (?:was|were|has been|have been|is being|got) replaced\b",
        rf"\b(?:took|taken|takes|take) over (?:{_PHRASE_CHAR}+? )?from "
        rf"(?P<old>{_PHRASE_CHAR}+?)(?:[,;.]|$)",
        rf"^(?P<old>{_PHRASE_CHAR}+?) (?:handed|hands|passed|passes|transferred) "
        rf"(?:{_PHRASE_CHAR}+ )?over\b",
        rf"\brenamed (?P<old>{_PHRASE_CHAR}+?) to\b",
    )
)


def verb_forms(base: str) -> set[str]:
    """A verb's base, -s, -ed and -ing forms (regular spelling rules, roughly)."""
    forms = {base}
    if base.endswith("e"):
        forms |= {base + "s", base + "d", base[:-1] + "ing"}
    elif base.endswith("y") and base[-2:-1] not in set("aeiou"):
        forms |= {base[:-1] + "ies", base[:-1] + "ied", base + "ing"}
    elif base.endswith(("s", "sh", "ch", "x", "z")):
        forms |= {base + "es", base + "ed", base + "ing"}
    else:
        forms |= {base + "s", base + "ed", base + "ing"}
        if len(base) <= 4 and base[-1] in "bdgmnpt" and base[-2:-1] in set("aeiou"):
            double = base + base[-1]  # stop -> stopped, plan -> planned
            forms |= {double + "ed", double + "ing"}
    return forms


VERB_FORM_BASE: dict[str, str] = {form: base for base in VERBS for form in verb_forms(base)}

# Units a quantity can be converted in: seconds and bytes.
DURATION_S: dict[str, float] = {"ms": 0.001, "s": 1, "sec": 1, "second": 1, "min": 60}
DURATION_S |= {"minute": 60, "h": 3600, "hour": 3600, "day": 86400, "week": 604800}
SIZE_B: dict[str, float] = {"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}
SIZE_B |= {"kib": 1024, "mib": 1024**2, "gib": 1024**3}
