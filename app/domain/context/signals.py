"""Reading the signals: which words a file path or a branch name stands for, and whether
a thought mentions them. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable

from thoughtgraph.domain.context.model import Signals
from thoughtgraph.domain.models import Thought

MAX_ERRORS = 5  # recent errors looked up, newest first
# Path and branch parts that say nothing about the subject.
_GENERIC = frozenset(
    {
        "src", "lib", "app", "apps", "test", "tests", "spec", "main", "master", "develop",
        "dev", "index", "init", "feature", "feat", "fix", "bugfix", "hotfix", "chore",
        "release", "refs", "heads", "origin", "the", "and", "for", "with", "py", "ts",
        "js", "tsx", "jsx", "go", "rs", "java", "md", "json", "yaml", "yml",
    }
)  # fmt: skip
_PART = re.compile(r"[A-Za-z][A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def words_of(name: str | None) -> list[str]:
    """Subject words of a path or branch: ``src/auth/loginForm.ts`` -> auth, login, form."""
    if not name:
        return []
    found: list[str] = []
    for part in _PART.findall(name):
        for word in _CAMEL.split(part):
            lower = word.lower()
            if len(lower) >= 3 and lower not in _GENERIC and lower not in found:
                found.append(lower)
    return found


def file_terms(path: str | None) -> list[str]:
    """Exact strings a thought may name the file by: the path and its base name."""
    if not path:
        return []
    base = path.rstrip("/").rsplit("/", 1)[-1]
    return [term for term in dict.fromkeys([path, base]) if len(term) >= 3]


def task_query(signals: Signals) -> str | None:
    """One search text for the file and the branch: what the agent is working on."""
    words = words_of(signals.current_file) + words_of(signals.branch)
    unique = list(dict.fromkeys(words))
    return " ".join(unique) if unique else None


def signal_words(signals: Signals) -> set[str]:
    words = set(words_of(signals.current_file)) | set(words_of(signals.branch))
    words |= set(words_of(signals.query))
    words |= set(words_of(signals.activity))
    return words


def mentions(thought: Thought, terms: Iterable[str]) -> bool:
    """The thought names one of the exact ``terms`` (a path, a file name) anywhere."""
    haystack = _haystack(thought)
    return any(term.lower() in haystack for term in terms)


def overlap(thought: Thought, words: set[str]) -> int:
    """How many of ``words`` the thought's text, context and tags contain."""
    if not words:
        return 0
    return len(set(words_of(_haystack(thought))) & words)


def errors_of(signals: Signals) -> list[str]:
    errors = [" ".join(error.split()) for error in signals.recent_errors if error.strip()]
    return list(dict.fromkeys(errors))[:MAX_ERRORS]


def _haystack(thought: Thought) -> str:
    return " ".join([thought.content, thought.context or "", *thought.tags]).lower()
