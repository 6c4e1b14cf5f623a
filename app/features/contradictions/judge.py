"""Contradiction judges: the LLM when one is configured, the rules otherwise or beyond it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import structlog

from thoughtgraph.domain.judgement import (
    RULES_DETECTOR,
    PairRelation,
    PairToJudge,
    UsageMeter,
    Verdict,
)
from thoughtgraph.domain.language.claims import claim_sentences
from thoughtgraph.domain.language.different_things import about_different_things
from thoughtgraph.domain.language.rules_judge import RuleJudge, judge_texts
from thoughtgraph.domain.language.update_model import UpdateModel, features, shipped_model
from thoughtgraph.llm.client import LLMBudgetExhausted, LLMClient, LLMError
from thoughtgraph.llm.prompts import contradictions

if TYPE_CHECKING:
    from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)

DEFAULT_PAIRS_PER_CALL = 8


class ContradictionJudge(Protocol):
    """Decides, for each pair, whether the newer thought updates, conflicts with or is
    compatible with the older one. One verdict per pair, in the order given."""

    @property
    def name(self) -> str: ...

    async def judge(self, pairs: Sequence[PairToJudge], usage: UsageMeter) -> list[Verdict]: ...


class LLMJudge:
    """Asks the LLM about ``pairs_per_call`` pairs at a time (one call, one prompt).

    A batch the LLM cannot judge goes to ``fallback`` instead: when the run's call budget
    is spent, when the provider still fails after the client's retries, or when the answer
    stays invalid. A pair the answer leaves out is judged by the fallback too. Verdicts
    say which judge gave them (``detector``: the model name or "rules").
    """

    def __init__(
        self,
        client: LLMClient,
        fallback: RuleJudge | ModelJudge,
        *,
        pairs_per_call: int = DEFAULT_PAIRS_PER_CALL,
    ) -> None:
        self.client = client
        self.fallback = fallback
        self.pairs_per_call = max(1, pairs_per_call)

    @property
    def name(self) -> str:
        return self.client.model

    async def judge(self, pairs: Sequence[PairToJudge], usage: UsageMeter) -> list[Verdict]:
        verdicts: list[Verdict] = []
        budget_logged = False
        for start in range(0, len(pairs), self.pairs_per_call):
            batch = pairs[start : start + self.pairs_per_call]
            try:
                answer = await self.client.complete(contradictions.PROMPT, usage, batch)
            except LLMBudgetExhausted:
                if not budget_logged:  # once per run, not once per batch
                    log.info(
                        "llm_judge_budget_spent",
                        namespace=usage.namespace,
                        max_calls=usage.max_calls,
                        pairs_left=len(pairs) - start,
                    )
                    budget_logged = True
                verdicts.extend(await self.fallback.judge(batch, usage))
                continue
            except LLMError as exc:
                log.warning(
                    "llm_judge_fallback",
                    model=self.client.model,
                    pairs=len(batch),
                    error=exc.message,
                    code=exc.code,
                )
                verdicts.extend(await self.fallback.judge(batch, usage))
                continue
            verdicts.extend(self._verdicts(batch, answer))
        return verdicts

    def _verdicts(
        self, batch: Sequence[PairToJudge], answer: contradictions.Response
    ) -> list[Verdict]:
        given = {verdict.pair_id: verdict for verdict in answer.verdicts}
        verdicts: list[Verdict] = []
        for pair in batch:
            found = given.get(pair.pair_id)
            if found is None:
                log.warning("llm_judge_pair_missing", model=self.client.model, pair=pair.pair_id)
                verdicts.append(self.fallback.judge_pair(pair))
                continue
            verdicts.append(
                Verdict(
                    pair_id=pair.pair_id,
                    relation=found.relation,
                    confidence=found.confidence,
                    explanation=found.explanation.strip() or f"judged {found.relation.value}",
                    detector=self.client.model,
                )
            )
        return verdicts


def build_judge(settings: Settings, client: LLMClient | None) -> ContradictionJudge:
    """The LLM judge (the offline model judge as its fallback) when there is a client, else
    the offline model judge."""
    rules = ModelJudge()
    if client is None:
        return rules
    return LLMJudge(client, rules, pairs_per_call=settings.llm_pairs_per_call)


class ModelJudge:
    """The offline judge: the rules' reading plus the fitted update model
    (:mod:`thoughtgraph.domain.language.update_model`) that weighs it with structural
    evidence. A pair is flagged when the model's probability reaches its precision-first
    threshold and the rules do not find the two about different subjects (the model's
    evidence, words kept and changed, is shape-free, and on conversation it flagged
    chit-chat between two people: docs/design/contradictions.md); the rules' conflict
    stays a conflict, anything else flagged is an update. The model was fitted on single
    statements (every older and 98% of newer statements in its sets hold one claim
    sentence): a pair where either text holds more is outside what it knows, and the
    rules alone judge it."""

    name = RULES_DETECTOR

    def __init__(self, model: UpdateModel | None = None) -> None:
        self.model = model if model is not None else shipped_model()

    async def judge(self, pairs: Sequence[PairToJudge], usage: UsageMeter) -> list[Verdict]:
        return [self.judge_pair(pair) for pair in pairs]

    def judge_pair(self, pair: PairToJudge) -> Verdict:
        finding = judge_texts(pair.older_text, pair.newer_text)
        if not (_one_claim(pair.older_text) and _one_claim(pair.newer_text)):
            return Verdict(
                pair_id=pair.pair_id,
                relation=finding.relation,
                confidence=round(min(1.0, max(0.0, finding.confidence)), 4),
                explanation=f"rules (more than one claim sentence): {finding.explanation}",
                detector=RULES_DETECTOR,
            )
        vector = features(pair.older_text, pair.newer_text, pair.similarity, finding)
        probability = float(self.model.probability(vector[None, :])[0])
        apart = about_different_things(pair.older_text, pair.newer_text)
        if probability < self.model.threshold or apart:
            relation = PairRelation.COMPATIBLE
            if apart and not finding.different_subjects:  # read on the claims alone
                explanation = f"their claims are about different things; {finding.explanation}"
            elif finding.relation is PairRelation.COMPATIBLE:
                explanation = finding.explanation
            else:
                explanation = (
                    f"model {probability:.2f} below {self.model.threshold:.2f}; "
                    f"rules: {finding.explanation}"
                )
            confidence = finding.confidence if apart else 1.0 - probability
        else:
            relation = (
                PairRelation.CONFLICT
                if finding.relation is PairRelation.CONFLICT
                else PairRelation.UPDATE
            )
            explanation = f"model {probability:.2f}; rules: {finding.explanation}"
            confidence = probability
        return Verdict(
            pair_id=pair.pair_id,
            relation=relation,
            confidence=round(min(1.0, max(0.0, confidence)), 4),
            explanation=explanation,
            detector=RULES_DETECTOR,
        )


def _one_claim(text: str) -> bool:
    return len(claim_sentences(text)) <= 1
