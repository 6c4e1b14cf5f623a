"""The offline contradiction judge: deterministic rules over two similar statements.

It reads a pair the way a careful person would, past opening interjections ("Heads up,"):
what each statement is about (its subject: the words before the verb), which words differ,
and what kind of words they are.

* The subjects differ ("the billing service" / "the auth service") -> compatible.
* The newer one adds ("also", "too", "as well") -> compatible.
* Values of one slot differ and nothing else does ("listens on 8080" / "now listens on
  9443") -> update; the same with a second difference beside the value ("3000 in staging" /
  "443 in production") -> compatible, since that second difference is a different context.
* One negates the other ("uses X" / "no longer uses X"), or antonyms ("enabled" /
  "disabled") -> update with a change cue, conflict without one.
* The newer names the older value as replaced ("from X to Y", "instead of X", "X was
  replaced by Y") and keeps the rest -> update.
* Another name in a role one person holds ("Carlos is the release manager" / "the release
  manager is now Mei", "Alice owns X" / "Bob owns X") -> update; the same person in two
  roles, or a value said "for" something else ("enabled for the API tier" / "... for the
  web tier") -> compatible.
* The newer restates the older's role whole with another holder first ("taught by Dr.
  Lindqvist because Dr. Okonkwo is on leave") -> update (``holders.py``).

Change cues ("now", "moved to", "switched", "no longer", ...) make an update confident and
let the newer reword the rest; without one, a single-valued slot with a new value is still
an update, at lower confidence. Precision first: when in doubt, compatible.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from thoughtgraph.domain.judgement import (
    RULES_DETECTOR,
    PairRelation,
    PairToJudge,
    UsageMeter,
    Verdict,
)
from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.claims import without_openers
from thoughtgraph.domain.language.holders import role_refilled
from thoughtgraph.domain.language.slots import (
    counted,
    different_slots,
    same_quantity,
    same_unit,
    two_items,
)
from thoughtgraph.domain.language.statements import (
    CONTENT,
    VALUE,
    VERB,
    Statement,
    Token,
    parse,
    said,
)
from thoughtgraph.domain.language.subjects import comparable_tokens, shares_pronoun
from thoughtgraph.domain.language.words import capitalised_names, clauses


@dataclass(frozen=True)
class Finding:
    relation: PairRelation
    confidence: float
    explanation: str
    # The two statements are about different things (no shared subject, or each names a
    # subject the other lacks): no weighing of other evidence makes one replace the other.
    different_subjects: bool = False


class RuleJudge:
    """Judges pairs with :func:`judge_texts`; no model, no I/O, the same answer every time.

    Meant for pairs that are already similar (cosine >= ~0.55): it decides how two
    statements about what looks like one thing relate, not whether they are related.
    """

    name = RULES_DETECTOR

    async def judge(self, pairs: Sequence[PairToJudge], usage: UsageMeter) -> list[Verdict]:
        return [self.judge_pair(pair) for pair in pairs]

    def judge_pair(self, pair: PairToJudge) -> Verdict:
        finding = judge_texts(pair.older_text, pair.newer_text)
        return Verdict(
            pair_id=pair.pair_id,
            relation=finding.relation,
            confidence=finding.confidence,
            explanation=finding.explanation,
            detector=RULES_DETECTOR,
        )


def judge_texts(older: str, newer: str) -> Finding:
    """How ``newer`` relates to ``older``. Multi-clause texts are judged on the two clauses
    that share the most ("...; they live in Vault" does not hide "no longer stored")."""
    older, newer = without_openers(older), without_openers(newer)
    names = capitalised_names(older, newer)
    best: tuple[float, Statement, Statement] | None = None
    for older_clause in clauses(older):
        old = parse(older_clause, names=names)
        for newer_clause in clauses(newer):
            new = parse(newer_clause, names=names, older=old)
            overlap = _overlap(old, new)
            if best is None or overlap > best[0]:
                best = (overlap, old, new)
    assert best is not None  # clauses() never returns an empty list
    finding = _decide(best[1], best[2])
    # Read whole where the clauses looked compatible: the older holder often stays named
    # in the newer ("... because Dr. Okonkwo is on leave"), holders.py.
    refill = role_refilled(older, newer) if finding.relation is PairRelation.COMPATIBLE else None
    if refill is not None:
        return _found(PairRelation.UPDATE, refill.confidence, refill.explanation)
    return finding


def _overlap(old: Statement, new: Statement) -> float:
    union = old.norms | new.norms
    return len(old.norms & new.norms) / len(union) if union else 0.0


_ONE_VALUE_WORDS = 3  # a value that changed is a short phrase ("the Leeds office")


def _decide(old: Statement, new: Statement) -> Finding:
    only_old = _unique(t for t in comparable_tokens(old, new) if t.norm not in new.norms)
    only_new = _unique(t for t in comparable_tokens(new, old) if t.norm not in old.norms)
    cue = ", ".join(f"'{c}'" for c in new.change_cues)
    replaced = _named_replacement(old, new, only_new)
    if replaced is not None:
        return replaced
    if not shares_pronoun(old, new) and not [
        t for t in old.tokens if t.norm in new.norms and t.kind != VERB
    ]:
        return _different(0.6, "They share no subject, only similar wording")

    holder = _new_holder(old, new, only_old, only_new)
    if holder is not None:
        return holder
    subject_old = [t for t in only_old if t.names_the_subject]
    subject_new = [t for t in only_new if t.names_the_subject]
    if subject_old or subject_new:
        # A change cue lets the newer name its subject more briefly ("sprint planning"
        # for "the sprint planning meeting"): one plain word less is not a new subject.
        dropped = subject_old + subject_new
        brief = len(dropped) == 1 and dropped[0].kind == CONTENT and not dropped[0].capitalised
        if not (cue and not subject_new and brief):
            # Apart only when each names a subject of its own: one side's extra subject
            # word ("the slot", "the application") narrows the same subject.
            explained = f"Different subjects: {said(subject_old)} vs {said(subject_new)}"
            return _different(0.8, explained, apart=bool(subject_old) and bool(subject_new))
        only_old = [t for t in only_old if t is not dropped[0]]
    if new.additive_cues:
        added = ", ".join(f"'{c}'" for c in new.additive_cues)
        return _compatible(0.8, f"The newer adds to the older ({added}); both can hold")
    return _compare_predicates(old, new, only_old, only_new)


def _compare_predicates(
    old: Statement, new: Statement, only_old: list[Token], only_new: list[Token]
) -> Finding:
    """Same subject: what do the words that differ say, bar a when-or-why clause of the newer?"""
    only_new = [t for t in only_new if t.position < new.adjunct_start]
    cue = ", ".join(f"'{c}'" for c in new.change_cues)
    verbs_old, verbs_new = _of(only_old, VERB), _of(only_new, VERB)
    values_old, values_new = _of(only_old, VALUE), _of(only_new, VALUE)
    content_old, content_new = _of(only_old, CONTENT), _of(only_new, CONTENT)
    flipped = old.polarity != new.polarity
    antonyms = [
        (a, b) for a in values_old for b in values_new if b.norm in lx.ANTONYM_OF.get(a.norm, ())
    ]
    if antonyms:
        states = {id(t) for pair in antonyms for t in pair}
        values_old = [t for t in values_old if id(t) not in states]
        values_new = [t for t in values_new if id(t) not in states]
    if cue:
        # The cue's verb stands in for the older one ("runs on 3.10" / "was upgraded to
        # 3.12"), or a reporting verb wraps the change ("wants weekly" / "asked to switch to
        # monthly"): with new values, verbs do not count. Without, the verb is what changed
        # ("decided to keep the monolith" / "decided to split it after all").
        if (values_old and values_new) or flipped or antonyms:
            verbs_old, verbs_new = [], []
        else:
            content_old, content_new = content_old + verbs_old, content_new + verbs_new
            verbs_old, verbs_new = [], []
    setting = all(t.norm in lx.SETTING_VERBS for t in verbs_new)
    if verbs_new and setting and same_unit(old, new, values_old, values_new):
        verbs_old, verbs_new = [], []  # "is set to 5 degrees" / "was turned down to 3 degrees"
    if verbs_old or verbs_new:
        return _compatible(
            0.7,
            f"Different things said about the subject: {said(verbs_old)} vs {said(verbs_new)}",
        )
    subject = _masked(old, only_old)

    if flipped or antonyms:
        if (content_old and content_new) or (values_old and values_new):
            return _compatible(0.6, "Opposite statements, but about different details")
        what = (
            f"{said([a for a, _ in antonyms])} vs {said([b for _, b in antonyms])}"
            if antonyms
            else "one negates the other"
        )
        if cue:
            return _found(PairRelation.UPDATE, 0.85, f"'{subject}': {what}; changed ({cue})")
        return _found(PairRelation.CONFLICT, 0.7, f"'{subject}': {what}")

    differing = content_old + content_new + values_old + values_new
    if not cue and _several_roles(old, new):
        return _compatible(0.7, f"{said(_holder_side(old))} can hold more than one role")
    if differing and all(t.scope and t.value_type != "time" for t in differing):
        return _compatible(
            0.7,
            f"Said for different things: {said(content_old + values_old)} vs "
            f"{said(content_new + values_new)}",
        )
    if (values_old or values_new) and content_old and content_new:
        return _compatible(
            0.7,
            f"Different values of different things: {said(content_old + values_old)} vs "
            f"{said(content_new + values_new)}",
        )
    two_slots = None if cue else different_slots(old, new, only_old, only_new)
    if two_slots is not None:
        return _compatible(0.6, two_slots)
    if values_old and values_new:
        if not cue:
            if content_old or content_new:
                extra = said(content_old or content_new)
                return _compatible(0.6, f"Different values, and only one says {extra}")
            if two_items(values_old, values_new):
                return _compatible(
                    0.6, f"Different items: {said(values_old)} vs {said(values_new)}"
                )
            if old.verb_base in lx.MULTI_VALUED_VERBS:
                return _compatible(0.6, f"'{old.verb_base}' can hold for several values")
        if same_quantity(values_old, values_new):
            return _compatible(0.8, "The same quantity in other units")
        change = f"{said(values_old)} -> {said(values_new)}"
        if cue:
            return _found(PairRelation.UPDATE, 0.85, f"'{subject}': {change} ({cue})")
        return _found(PairRelation.UPDATE, 0.7, f"'{subject}': new value {change}")
    if (values_old and content_new) or (values_new and content_old):
        # One slot, written as a value on one side and as a plain word on the other
        # ("bucket acme-backups-old" / "bucket acme-backups-2024").
        change = f"{said(content_old + values_old)} -> {said(content_new + values_new)}"
        if cue:
            return _found(PairRelation.UPDATE, 0.8, f"'{subject}': {change} ({cue})")
        if old.verb_base in lx.MULTI_VALUED_VERBS:
            return _compatible(0.6, f"'{old.verb_base}' can hold for several values")
        if counted(content_old + values_old) != counted(content_new + values_new):
            return _compatible(0.6, f"A count and plain words fill two slots: {change}")
        return _found(PairRelation.UPDATE, 0.6, f"'{subject}': new value {change}")

    if content_old and content_new:
        change = f"{said(content_old + values_old)} -> {said(content_new + values_new)}"
        if max(len(content_old), len(content_new)) > _ONE_VALUE_WORDS:
            return _compatible(0.6, f"Too much differs to be one value: {change}")
        if cue:
            return _found(PairRelation.UPDATE, 0.7, f"'{subject}': {change} ({cue})")
        if _copula_complement(old, new, content_old, content_new):
            return _found(PairRelation.UPDATE, 0.6, f"'{subject}': new value {change}")
        return _compatible(0.6, f"Different details: {change}")
    if only_old or only_new:
        return _compatible(0.7, "One adds detail to the other; nothing conflicts")
    return _compatible(0.9, "The same statement")


def _named_replacement(old: Statement, new: Statement, only_new: list[Token]) -> Finding | None:
    """The newer names the older value as what was replaced and keeps everything else."""
    if not new.old_mention:
        return None
    rest = {t.norm for t in old.tokens if t.kind != VERB and t.norm not in new.old_mention}
    kept = [t for t in new.tokens if t.position not in new.mention_positions]
    if not rest or not rest <= {t.norm for t in kept}:
        return None
    cue = ", ".join(f"'{c}'" for c in new.change_cues)
    mentioned = [t for t in old.tokens if t.norm in new.old_mention]
    added = [t for t in only_new if t.kind != VERB and t.position not in new.mention_positions]
    return _found(
        PairRelation.UPDATE,
        0.9,
        f"'{_masked(old, mentioned)}': {said(mentioned)} replaced"
        + (f" by {said(added)}" if added else "")
        + f" ({cue})",
    )


def _new_holder(
    old: Statement, new: Statement, only_old: list[Token], only_new: list[Token]
) -> Finding | None:
    """Another name in a role only one holds: "Alice owns X" / "Bob owns X", "Carlos is the
    release manager" / "the release manager is now Mei"."""
    differ_old = [t for t in only_old if t.kind != VERB]
    differ_new = [t for t in only_new if t.kind != VERB]
    if len(differ_old) != 1 or len(differ_new) != 1 or old.polarity != new.polarity:
        return None
    before, after = differ_old[0], differ_new[0]
    people = all(t.capitalised and t.value_type in (None, "name") for t in (before, after))
    if not people:
        return None
    if (_of(only_old, VERB) or _of(only_new, VERB)) and not new.change_cues:
        return None
    if before not in _holder_side(old) or after not in _holder_side(new):
        return None
    change = f"{said(differ_old)} -> {said(differ_new)}"
    if new.change_cues:
        return _found(PairRelation.UPDATE, 0.85, f"A role with one holder: {change}")
    return _found(PairRelation.UPDATE, 0.6, f"A role with one holder: {change}")


def _holder_side(statement: Statement) -> list[Token]:
    """Who holds the role a statement names: the side of "is" facing "the <role>" ("Carlos"
    in "Carlos is the release manager", "Mei" in "the release manager is Mei"), or the
    subject of a verb only one can do at a time ("Alice" in "Alice owns X")."""
    words, at = statement.words, statement.boundary
    subject = [t for t in statement.tokens if t.in_subject]
    complement = [t for t in statement.tokens if not t.in_subject]
    if statement.boundary_word in lx.COPULAS:
        first = words[statement.subject_start]
        following = words[at + 1] if at + 1 < len(words) else None
        if first.lower in lx.DETERMINERS or first.possessive:
            return complement
        if following is not None and (following.lower in lx.DETERMINERS or following.possessive):
            return subject
        return []
    return subject if statement.verb_base in lx.EXCLUSIVE_VERBS else []


def _several_roles(old: Statement, new: Statement) -> bool:
    """ "Carlos is the release manager for 4.2" / "... for 4.3": a named person or thing is
    described twice; it can be both."""
    holders = _holder_side(old)
    return (
        bool(holders)
        and holders == [t for t in old.tokens if t.in_subject]
        and all(t.capitalised for t in holders)
        and {t.norm for t in holders} == {t.norm for t in _holder_side(new)}
        and old.boundary_word in lx.COPULAS
    )


def _copula_complement(
    old: Statement, new: Statement, content_old: list[Token], content_new: list[Token]
) -> bool:
    """ "The default branch is master" / "... is main", "the user wants replies to be
    short" / "... detailed": what a definite subject is, at the end, one value at a time."""
    if not (old.definite and new.definite and old.tokens and new.tokens):
        return False
    if len(content_old) > 3 or len(content_new) > 3:
        return False
    for statement, differing in ((old, content_old), (new, content_new)):
        if statement.tokens[-1] not in differing:
            return False
        first = min(t.position for t in differing)
        before = [w for w in statement.words[:first] if w.lower not in lx.DETERMINERS]
        if not before or before[-1].lower not in lx.COPULAS:
            return False
    return True


def _masked(statement: Statement, differing: list[Token]) -> str:
    """The statement with its differing words as "_": what it is about."""
    positions = {t.position for t in differing}
    shown = [
        "_" if index in positions else word.raw
        for index, word in enumerate(statement.words)
        if not word.punct
    ]
    return " ".join(shown)


def _unique(tokens: Iterable[Token]) -> list[Token]:
    seen: set[str] = set()
    unique: list[Token] = []
    for token in tokens:
        if token.norm not in seen:
            seen.add(token.norm)
            unique.append(token)
    return unique


def _of(tokens: list[Token], kind: str) -> list[Token]:
    return [t for t in tokens if t.kind == kind]


def _found(relation: PairRelation, confidence: float, explanation: str) -> Finding:
    return Finding(relation, confidence, explanation)


def _compatible(confidence: float, explanation: str) -> Finding:
    return Finding(PairRelation.COMPATIBLE, confidence, explanation)


def _different(confidence: float, explanation: str, *, apart: bool = True) -> Finding:
    return Finding(PairRelation.COMPATIBLE, confidence, explanation, different_subjects=apart)
