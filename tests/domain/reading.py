"""A helper for tests of the rules judge: judge a pair and check what it says."""

from __future__ import annotations

from thoughtgraph.domain.judgement import PairRelation
from thoughtgraph.domain.language.rules_judge import Finding, judge_texts


def reads(older: str, newer: str, relation: PairRelation, *says: str) -> Finding:
    """The rules' finding on a pair, checked to be ``relation`` and to say each of ``says``."""
    finding = judge_texts(older, newer)
    assert finding.relation is relation, finding
    for fragment in says:
        assert fragment in finding.explanation, finding
    return finding
