"""Tiered context assembly, predictive prefetch, the delta header and the session-start
block (seeds 001, 002, 003), over the store and the search service.

The rules live in app/context (pure, tested over random inputs); this service gathers
candidates, reads the change log and counts tokens with the configured tokenizer.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.access import Principal
from thoughtgraph.domain.allowlist import AllowlistPolicy, effective_agent
from thoughtgraph.domain.context.budget import Split, split_for
from thoughtgraph.domain.context.delta import delta_header, subject_ids
from thoughtgraph.domain.context.model import (
    AssembledContext,
    Candidate,
    DeltaHeader,
    Packing,
    Signals,
)
from thoughtgraph.domain.context.packer import pack
from thoughtgraph.domain.context.predict import Prediction, predict
from thoughtgraph.domain.context.session_block import (
    Injection,
    SessionBlock,
    envelope_of,
    inject,
    wrap,
)
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.models import TimeView
from thoughtgraph.domain.ops import NO_OPS_EVENTS, OpsEvents, OpsNode, acting_as
from thoughtgraph.domain.procedures import wants_procedures
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.features.access import Action, check_access, events_seen, viewer_of
from thoughtgraph.features.context.gathering import (
    Gathering,
    ThoughtSearch,
    query_hits_for,
    visibility,
)
from thoughtgraph.features.context.tokens import TokenCounter
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.retention.service import AccessRecorder
from thoughtgraph.ports.clock import Clock, SystemClock
from thoughtgraph.settings import Settings

MAX_BUDGET = 200_000
MAX_ERRORS = 20
MAX_COLLABORATORS = 20
MAX_SIGNAL_CHARS = 1_000  # a file path, a branch, an activity
MAX_INJECTION_CHARS = 400_000  # the text a session block is injected into
FIT_ATTEMPTS = 4


@dataclass(frozen=True)
class _Gathered:
    revision: int
    delta: DeltaHeader | None
    candidates: list[Candidate]
    split: Split


class ContextService:
    def __init__(
        self,
        repos: Repositories,
        search: ThoughtSearch,
        *,
        settings: Settings | None = None,
        clock: Clock | None = None,
        events: OpsEvents = NO_OPS_EVENTS,
        allowlist: AllowlistPolicy | None = None,
        access: AccessRecorder | None = None,
    ) -> None:
        settings = settings or Settings()
        self._access = access
        self._allowlist = allowlist or AllowlistPolicy.unrestricted()
        self._repos = repos
        self._events = events
        self._search = search
        self._clock = clock or SystemClock()
        self.default_budget = settings.context_budget
        self._contradiction_min_confidence = settings.context_contradiction_min_confidence
        self.session_budget = settings.context_session_budget
        self.tokens = TokenCounter(settings.context_tokenizer_model or settings.llm_model)

    @property
    def tokenizer(self) -> str:
        default = " (default: no model configured)" if self.tokens.is_default else ""
        return f"{self.tokens.name}{default}"

    async def assemble(
        self,
        namespace: str,
        *,
        budget: int | None = None,
        signals: Signals | None = None,
        since_revision: int | None = None,
        caller: Principal | None = None,
        agent_field: str = "agent",
    ) -> AssembledContext:
        """The context for ``signals`` within ``budget`` tokens, tier by tier; with
        ``since_revision``, headed by what changed since. What it shows counts as
        retrieved; what it considered and left out does not."""
        check_access(caller, Action.READ, namespace)
        assembled = await self._assemble(
            namespace, budget, signals, since_revision, caller, agent_field
        )
        self._shown(namespace, assembled)
        return assembled

    async def _assemble(
        self,
        namespace: str,
        budget: int | None,
        signals: Signals | None,
        since_revision: int | None,
        caller: Principal | None,
        agent_field: str,
    ) -> AssembledContext:
        budget = self._budget(budget, self.default_budget)
        signals, allowed = self._reading(caller, signals, agent_field)
        gathered = await self._gather(
            namespace, signals, since_revision, allowed, viewer_of(caller), budget=budget
        )
        return self._packed(gathered, budget)

    def _shown(self, namespace: str, assembled: AssembledContext) -> None:
        if self._access is not None:
            self._access.record(namespace, assembled.packing.ids)

    async def predict(
        self,
        namespace: str,
        *,
        signals: Signals | None = None,
        budget: int | None = None,
        caller: Principal | None = None,
        agent_field: str = "agent",
    ) -> Prediction:
        """What ``assemble`` would load for these signals, with a confidence per item."""
        check_access(caller, Action.READ, namespace)
        # A prediction shows nothing yet: nothing counts as retrieved.
        assembled = await self._assemble(namespace, budget, signals, None, caller, agent_field)
        return predict(assembled.packing, assembled.tokenizer)

    async def session_block(
        self,
        namespace: str,
        *,
        budget: int | None = None,
        signals: Signals | None = None,
        since_revision: int | None = None,
        caller: Principal | None = None,
        agent_field: str = "agent",
    ) -> tuple[SessionBlock, AssembledContext]:
        """The tagged block, tags included within ``budget`` (default 2000) tokens."""
        check_access(caller, Action.READ, namespace)
        budget = self._budget(budget, self.session_budget)
        check.require_namespace(namespace)
        await self.tokens.load()
        inner = budget - self.tokens(envelope_of(namespace))
        if inner < 0:
            raise InvalidInputError(
                f"budget must leave room for the block's tags ({budget - inner} tokens)",
                field="budget",
            )
        # Gathered once: only the packing is redone when the block comes out too long.
        signals, allowed = self._reading(caller, signals, agent_field)
        gathered = await self._gather(
            namespace, signals, since_revision, allowed, viewer_of(caller), budget=budget
        )
        for _ in range(FIT_ATTEMPTS):
            assembled = self._packed(gathered, max(0, inner))
            block = wrap(assembled.packing.text, namespace)
            over = self.tokens(block.text) - budget
            if over <= 0:
                self._shown(namespace, assembled)
                return block, assembled
            inner -= over  # the seams between tags and body cost a token or two
        return wrap("", namespace), self._packed(gathered, 0)

    async def inject_session_block(
        self,
        namespace: str,
        text: str,
        *,
        budget: int | None = None,
        signals: Signals | None = None,
        since_revision: int | None = None,
        caller: Principal | None = None,
        agent_field: str = "agent",
    ) -> tuple[Injection, SessionBlock]:
        """``text`` with the session block replaced (or added once): never two blocks."""
        check_access(caller, Action.READ, namespace)
        if text.strip():
            check.require_text("text", text, MAX_INJECTION_CHARS)
        block, _ = await self.session_block(
            namespace,
            budget=budget,
            signals=signals,
            since_revision=since_revision,
            caller=caller,
            agent_field=agent_field,
        )
        return inject(text, block), block

    # --- helpers -----------------------------------------------------------------------
    def _reading(
        self, caller: Principal | None, signals: Signals | None, agent_field: str
    ) -> tuple[Signals | None, frozenset[str] | None]:
        """The signals as the agent the caller reads as (its key's, else the one the
        signals claim: AGENT_MISMATCH when they differ), and the categories its allowlist
        lets into its context (None: unrestricted)."""
        claimed = signals.agent if signals is not None else None
        key_agent = caller.agent if caller is not None else None
        reading_as = effective_agent(key_agent, claimed, agent_field)
        allowed = self._allowlist.context_categories_for(key_agent, claimed, field=agent_field)
        if signals is not None and reading_as != claimed:
            signals = replace(signals, agent=reading_as)
        return signals, allowed

    def _budget(self, budget: int | None, default: int) -> int:
        chosen = default if budget is None else budget
        return check.require_int_range("budget", chosen, 0, MAX_BUDGET)

    async def _gather(
        self,
        namespace: str,
        signals: Signals | None,
        since_revision: int | None,
        allowed: Collection[str] | None,
        viewer: Viewer,
        *,
        budget: int,
    ) -> _Gathered:
        """Everything an assembly reads from the store and the search service."""
        signals = require_signals(signals or Signals())
        check.require_namespace(namespace)
        if since_revision is not None:
            check.require_int_range("sinceRevision", since_revision, 0, 2**53)
        await self.tokens.load()
        # The revision is read first: a write landing meanwhile shows in the next delta.
        revision = await self._repos.changes.revision(namespace)
        delta = (
            await self._delta(namespace, since_revision, revision, viewer)
            if since_revision is not None
            else None
        )
        gathering = Gathering(
            repos=self._repos,
            search=self._search,
            namespace=namespace,
            signals=signals,
            current=TimeView(now_ms=self._clock.now_ms(), current_only=True, viewer=viewer),
            revision=revision,
            visible=visibility(allowed, viewer),
            query_hits=query_hits_for(budget),
            contradiction_min_confidence=self._contradiction_min_confidence,
            procedural=wants_procedures(signals.agent, signals.activity, allowed),
        )
        with acting_as(OpsNode.CONTEXT):  # its searches are the assembly's, not a caller's
            candidates = await gathering.candidates()
        if revision:  # a namespace never written to gets no event (it would create it)
            self._events.record(namespace, "search", node=OpsNode.CONTEXT)
        return _Gathered(revision, delta, candidates, split_for(signals.activity))

    def _packed(self, gathered: _Gathered, budget: int) -> AssembledContext:
        delta = gathered.delta
        packing = pack(
            gathered.candidates,
            budget,
            gathered.split,
            self.tokens,
            header=delta.render() if delta else "",
        )
        return AssembledContext(
            packing=packing,
            tokenizer=self.tokenizer,
            revision=gathered.revision,
            delta=delta if packing.header_tokens else None,  # None: it did not fit
            candidates=len(gathered.candidates),
        )

    async def _delta(
        self, namespace: str, since_revision: int, revision: int, viewer: Viewer
    ) -> DeltaHeader | None:
        if revision <= since_revision:
            return None
        found = await self._repos.changes.since(namespace, since_revision, check.MAX_CHANGES)
        events = await events_seen(self._repos, namespace, found, viewer)
        ids = subject_ids(events)
        thoughts = await self._repos.thoughts.get_many(namespace, ids)
        previews = {tid: thought.content for tid, thought in thoughts.items()}
        return delta_header(
            since_revision,
            revision,
            events,
            previews,
            more=len(found) >= check.MAX_CHANGES,
        )


def require_signals(signals: Signals) -> Signals:
    """The signals checked like every other input (nothing is searched before)."""
    if signals.query is not None:
        check.require_text("signals.query", signals.query, check.MAX_QUERY_CHARS)
    for name, value in (
        ("signals.currentFile", signals.current_file),
        ("signals.branch", signals.branch),
        ("signals.activity", signals.activity),
    ):
        if value is not None:
            check.require_name(name, value, MAX_SIGNAL_CHARS)
    _require_list("signals.recentErrors", signals.recent_errors, MAX_ERRORS)
    for error in signals.recent_errors:
        check.require_text("signals.recentErrors", error, check.MAX_QUERY_CHARS)
    if signals.agent is not None:
        check.require_identifier("signals.agent", signals.agent)
    _require_list("signals.collaborators", signals.collaborators, MAX_COLLABORATORS)
    for who in signals.collaborators:
        check.require_identifier("signals.collaborators", who)
    return signals


def _require_list(field: str, values: Sequence[str], most: int) -> None:
    check.require_int_range(f"{field} (count)", len(values), 0, most)


__all__ = ["ContextService", "Packing", "require_signals"]
