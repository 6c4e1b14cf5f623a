"""Which categories each agent may read, and how each reaches its context.

The file (``TG_ALLOWLIST_FILE``, YAML) keeps the shape::

    categories:              # the categories and their default context mode
      system:
        - name: profile
          context: all       # "all" or "always"
        - name: event
          context: rag
          rag_length: 30
      custom:
        - name: procedural
          context: on_demand
    allowlists:              # agent -> the categories it may read
      supervisor: [profile, event]
      planner:               # a mapping gives this agent its own mode per category
        event: always
        procedural: on_demand
      "*": [profile]         # optional: agents not listed (none: they may read nothing)

Context modes, for context assembly: ``always`` (seed "all": in every context the agent
gets), ``rag`` (when it matches the request, at most ``rag_length`` items), ``on_demand``
(only when the request names the category; search and recall return it) and ``never``
(never assembled into context; search and recall still return it). A category an
allowlist names without a definition is ``rag``.

Reads by an agent with an allowlist return only its categories: a thought without a
category is in none of them. Who the agent is comes from the API key (``agent`` on the
key), or from the request when the key names none (see :func:`effective_agent`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import (
    AgentMismatchError,
    CategoryNotAllowedError,
    ConfigurationError,
)

ANY_AGENT = "*"


class ContextMode(StrEnum):
    ALWAYS = "always"
    RAG = "rag"
    ON_DEMAND = "on_demand"
    NEVER = "never"


_MODE_NAMES = {
    "all": ContextMode.ALWAYS,  # seed 001's word
    "always": ContextMode.ALWAYS,
    "rag": ContextMode.RAG,
    "on_demand": ContextMode.ON_DEMAND,
    "on-demand": ContextMode.ON_DEMAND,
    "never": ContextMode.NEVER,
}


@dataclass(frozen=True)
class CategoryRule:
    name: str
    context: ContextMode = ContextMode.RAG
    rag_length: int | None = None  # rag: at most this many items in one context


@dataclass(frozen=True)
class AllowlistPolicy:
    """Agents' allowlists. Without a file (``unrestricted()``) every read is unrestricted."""

    agents: Mapping[str, Mapping[str, CategoryRule]] = field(default_factory=dict)
    configured: bool = False

    @classmethod
    def unrestricted(cls) -> AllowlistPolicy:
        return cls()

    def rules_for(self, agent: str | None) -> Mapping[str, CategoryRule] | None:
        """The categories ``agent`` may read with their context modes; None when it is
        unrestricted (no file, or no agent known for the request)."""
        if not self.configured or agent is None:
            return None
        rules = self.agents.get(agent, self.agents.get(ANY_AGENT))
        if rules is None:
            raise CategoryNotAllowedError(
                f"Agent {agent!r} has no allowlist: it may read no category.", agent=agent
            )
        return rules

    def categories_for(
        self, agent: str | None, requested: Iterable[str] | None = None
    ) -> frozenset[str] | None:
        """The categories a read by ``agent`` may return: the requested ones (all of them
        within its allowlist, else :class:`CategoryNotAllowedError`), its whole allowlist
        when none are requested, None when unrestricted and none are requested."""
        asked = frozenset(requested) if requested else None
        rules = self.rules_for(agent)
        if rules is None:
            return asked
        allowed = frozenset(rules)
        if asked is None:
            return allowed
        outside = sorted(asked - allowed)
        if outside:
            raise CategoryNotAllowedError(
                f"Agent {agent!r} may not read {', '.join(map(repr, outside))}.",
                agent=agent,
                categories=outside,
            )
        return asked

    def context_rules(
        self, agent: str | None, requested: Iterable[str] | None = None
    ) -> dict[str, CategoryRule] | None:
        """What context assembly may put into ``agent``'s context, by category with its
        mode: ``always`` and ``rag`` ones, ``on_demand`` ones only when ``requested`` names
        them, ``never`` ones not at all. Refuses like :meth:`categories_for`; None when
        unrestricted."""
        allowed = self.categories_for(agent, requested)
        rules = self.rules_for(agent)
        if rules is None or allowed is None:
            return None
        named = frozenset(requested or ())
        return {
            name: rule
            for name, rule in rules.items()
            if name in allowed
            and rule.context is not ContextMode.NEVER
            and (rule.context is not ContextMode.ON_DEMAND or name in named)
        }

    def readable_by(
        self,
        caller_agent: str | None,
        claimed: str | None,
        requested: Iterable[str] | None = None,
        *,
        field: str = "agent",
    ) -> frozenset[str] | None:
        """``categories_for`` the agent a request reads as (``effective_agent``): the one
        its API key is bound to, else the one it claims in ``field``."""
        return self.categories_for(effective_agent(caller_agent, claimed, field), requested)

    def context_categories_for(
        self, caller_agent: str | None, claimed: str | None, *, field: str = "agent"
    ) -> frozenset[str] | None:
        """The categories context assembly may put into the reading agent's context (None:
        unrestricted)."""
        rules = self.context_rules(effective_agent(caller_agent, claimed, field))
        return None if rules is None else frozenset(rules)

    def allows(self, allowed: frozenset[str] | None, category: str | None) -> bool:
        """Whether a thought of ``category`` may be returned under ``categories_for``'s
        answer (None: anything)."""
        return allowed is None or (category is not None and category in allowed)


def effective_agent(key_agent: str | None, claimed: str | None, field: str = "agent") -> str | None:
    """The agent a request reads as: the one its API key is bound to, which a caller
    cannot change; a claimed one only when the key names none (a claim can only narrow
    what an unbound caller reads). A claimed name is checked as every name is (the
    ``field`` it came in)."""
    if claimed is not None:
        claimed = check.require_name(field, claimed)
    if key_agent is None:
        return claimed
    if claimed is not None and claimed != key_agent:
        raise AgentMismatchError(
            f"This API key reads as agent {key_agent!r}, not {claimed!r}.", agent=key_agent
        )
    return key_agent


# --- the file -----------------------------------------------------------------------------


def load_allowlist(path: Path | None) -> AllowlistPolicy:
    """The policy in ``path`` (none: unrestricted). A file that cannot be read or does not
    have the documented shape stops the start with a :class:`ConfigurationError` naming
    the file and the fault."""
    if path is None:
        return AllowlistPolicy.unrestricted()
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigurationError(f"the allowlist file {path} cannot be read: {exc}") from exc
    try:
        return parse_allowlist(data)
    except ValueError as exc:
        raise ConfigurationError(f"the allowlist file {path} is not valid: {exc}") from exc


def parse_allowlist(data: Any) -> AllowlistPolicy:
    """The policy in already parsed YAML; ValueError says what is wrong and where."""
    if not isinstance(data, dict):
        raise ValueError("expected a mapping with `allowlists` (and optional `categories`)")
    unknown = sorted(set(data) - {"categories", "allowlists"})
    if unknown:
        raise ValueError(f"unknown top-level keys: {', '.join(unknown)}")
    defaults = _categories(data.get("categories"))
    lists = data.get("allowlists")
    if not isinstance(lists, dict) or not lists:
        raise ValueError("`allowlists` must map at least one agent to its categories")
    agents = {
        _name(f"allowlists key {agent!r}", agent): _agent_rules(str(agent), entry, defaults)
        for agent, entry in lists.items()
    }
    return AllowlistPolicy(agents=agents, configured=True)


def _categories(given: Any) -> dict[str, CategoryRule]:
    if given is None:
        return {}
    if isinstance(given, dict):  # {system: [...], custom: [...]}
        unknown = sorted(set(given) - {"system", "custom"})
        if unknown:
            raise ValueError(f"`categories` has unknown groups: {', '.join(map(str, unknown))}")
        items = [*(given.get("system") or []), *(given.get("custom") or [])]
    elif isinstance(given, list):
        items = given
    else:
        raise ValueError("`categories` must be a list, or a mapping of `system` and `custom`")
    rules: dict[str, CategoryRule] = {}
    for item in items:
        rule = _category(item)
        if rule.name in rules:
            raise ValueError(f"category {rule.name!r} is defined twice")
        rules[rule.name] = rule
    return rules


def _category(item: Any) -> CategoryRule:
    if isinstance(item, str):
        return CategoryRule(_name("category", item))
    if not isinstance(item, dict) or "name" not in item:
        raise ValueError(f"a category must be a name or a mapping with `name`, not {item!r}")
    name = _name("category", item["name"])
    unknown = sorted(set(item) - {"name", "context", "rag_length"})
    if unknown:
        raise ValueError(f"category {name!r} has unknown keys: {', '.join(map(str, unknown))}")
    length = item.get("rag_length")
    if length is not None and (not isinstance(length, int) or isinstance(length, bool)):
        raise ValueError(f"category {name!r}: rag_length must be a whole number")
    if length is not None and length < 1:
        raise ValueError(f"category {name!r}: rag_length must be at least 1")
    return CategoryRule(name, _mode(name, item.get("context", "rag")), length)


def _agent_rules(
    agent: str, entry: Any, defaults: Mapping[str, CategoryRule]
) -> dict[str, CategoryRule]:
    if isinstance(entry, list):
        names = [_name(f"agent {agent!r}: category", item) for item in entry]
        return {n: defaults.get(n, CategoryRule(n)) for n in names}
    if isinstance(entry, dict):
        rules = {}
        for raw, mode in entry.items():
            name = _name(f"agent {agent!r}: category", raw)
            base = defaults.get(name, CategoryRule(name))
            chosen = base.context if mode is None else _mode(f"{agent}/{name}", mode)
            rules[name] = CategoryRule(name, chosen, base.rag_length)
        return rules
    raise ValueError(
        f"agent {agent!r}: expected a list of categories or a mapping category -> context mode"
    )


def _mode(where: str, value: Any) -> ContextMode:
    mode = _MODE_NAMES.get(str(value).strip().lower()) if isinstance(value, str) else None
    if mode is None:
        known = ", ".join(sorted(_MODE_NAMES))
        raise ValueError(f"{where}: context mode {value!r} is not one of {known}")
    return mode


def _name(what: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, not {value!r}")
    return value.strip()
