"""Whether two statements share a subject the words alone do not show: a pronoun both
open with ("I live in Lisbon" / "I live in Porto now"), or a name one of them describes
("my partner Leo" / "Leo")."""

from __future__ import annotations

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.statements import Statement, Token


def shares_pronoun(old: Statement, new: Statement) -> bool:
    """Both open with the same pronoun, which no token stands for, and the same verb: "I
    live in ..." twice is one frame; "I won't give up" / "I won't quit" are two sayings."""
    pronoun, verb = _pronoun_subject(old), old.verb_base  # no verb: "I" alone
    if pronoun is None or verb is None:
        return False
    return pronoun == _pronoun_subject(new) and verb == new.verb_base


def comparable_tokens(statement: Statement, other: Statement) -> list[Token]:
    """Its tokens, bar those that say who in other words than the other statement: words
    describing a name ("my daughter Mia") the other names plainly ("Mia ..."), and a
    contracted pronoun ("I've worked") where the other has the pronoun ("I work"). Two
    descriptions ("my sister Ana" / "my cousin Ana") and two pronouns ("she" / "they'd")
    still tell people apart."""
    described = not any(t.describes_name for t in other.tokens)
    pronoun = _pronoun_subject(other)
    return [
        t
        for t in statement.tokens
        if not (described and t.describes_name) and not _contracts(t, pronoun)
    ]


def _contracts(token: Token, pronoun: str | None) -> bool:
    """Whether the token is ``pronoun`` with its auxiliary ("I've" for "I")."""
    return (
        pronoun is not None
        and token.in_subject
        and lx.CONTRACTED_PRONOUNS.get(token.raw.lower()) == pronoun
    )


def _pronoun_subject(statement: Statement) -> str | None:
    """The pronoun that is the whole subject ("I" in "I live in Lisbon", "I've worked")."""
    start = statement.subject_start
    if statement.boundary != start + 1:
        return None
    lower = statement.words[start].lower
    return lower if lower in lx.PRONOUNS else lx.CONTRACTED_PRONOUNS.get(lower)
