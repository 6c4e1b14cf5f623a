"""Packing candidates into a token budget, tier by tier. Pure: candidates, a budget, a
split and a token counter in; the rendered text and what went where out.

Rules, each checked by tests/domain/test_context_packer.py over random inputs:
- the text's exact token count (the counter run on the whole text) never exceeds the budget;
- tiers are filled in order, and what a tier leaves unused is passed on to the next;
- what is still unused after the last tier goes back first to the relevant tier (what
  answers the query takes what the background and index tiers left), then to the others
  in order, so a budget is not left empty while candidates wait;
- nothing appears twice: an item covering an id already shown is left out;
- an item is rendered at its tier's level, or the next levels down when that does not fit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from thoughtgraph.domain.context.budget import Split, allocate
from thoughtgraph.domain.context.model import (
    TIER_LEVEL,
    TIER_TITLES,
    Candidate,
    PackedItem,
    Packing,
    Tier,
    TierUsage,
    levels_from,
)

Counter = Callable[[str], int]
SECOND_PASS = (Tier.RELEVANT, Tier.CRITICAL, Tier.BACKGROUND, Tier.INDEX)


def pack(
    candidates: Iterable[Candidate],
    budget: int,
    split: Split,
    count: Counter,
    *,
    header: str = "",
) -> Packing:
    """The context for ``budget`` tokens: ``header`` first (the delta header, dropped when
    it alone does not fit), then the tiers in order."""
    budget = max(0, budget)
    header = header if header and count(_header_block(header)) <= budget else ""
    header_tokens = count(_header_block(header)) if header else 0
    shares = allocate(budget - header_tokens, split)
    by_tier = _ranked_by_tier(candidates)
    used: set[str] = set()
    chosen: dict[Tier, list[PackedItem]] = {}
    budgets: dict[Tier, int] = {}
    carry = 0
    for tier in Tier:
        allowance = shares[tier] + carry
        budgets[tier] = allowance
        chosen[tier] = _fill_tier(tier, by_tier.get(tier, []), allowance, count, used)
        carry = allowance - _tier_cost(tier, chosen[tier], count)
    returned = dict.fromkeys(Tier, 0)
    for tier in SECOND_PASS:  # what is left: the relevant tier first
        if carry <= 0:
            break
        before = _tier_cost(tier, chosen[tier], count)
        extra = _fill_tier(
            tier, by_tier.get(tier, []), carry, count, used, titled=bool(chosen[tier])
        )
        if extra:
            chosen[tier] = sorted([*chosen[tier], *extra], key=_rank)
            taken = _tier_cost(tier, chosen[tier], count) - before
            returned[tier] = taken
            budgets[tier] += taken
            carry -= taken
    packed = [item for tier in Tier for item in chosen[tier]]
    return _fit(header, header_tokens, packed, budget, budgets, returned, count)


def _rank(item: PackedItem) -> tuple[float, str]:
    return (-item.candidate.score, item.candidate.key)


def render(header: str, items: Sequence[PackedItem]) -> str:
    """The header, then each tier that has items: its title and one line per item."""
    blocks = [header] if header else []
    for tier in Tier:
        lines = [item.line for item in items if item.tier is tier]
        if lines:
            blocks.append("\n".join([TIER_TITLES[tier], *lines]))
    return "\n\n".join(blocks)


def _header_block(header: str) -> str:
    return f"{header}\n\n"


def _ranked_by_tier(candidates: Iterable[Candidate]) -> dict[Tier, list[Candidate]]:
    ranked: dict[Tier, list[Candidate]] = {}
    for candidate in candidates:
        ranked.setdefault(candidate.tier, []).append(candidate)
    for items in ranked.values():
        items.sort(key=lambda c: (-c.score, c.key))
    return ranked


def _fill_tier(
    tier: Tier,
    candidates: Sequence[Candidate],
    allowance: int,
    count: Counter,
    used: set[str],
    *,
    titled: bool = False,
) -> list[PackedItem]:
    """Items in rank order while they fit, each at the most detailed level that fits
    (``titled``: the tier already has items, so its title is paid for)."""
    chosen: list[PackedItem] = []
    title_cost = count(TIER_TITLES[tier] + "\n") + count("\n")  # title and blank line
    spent = 0
    for candidate in candidates:
        if candidate.covers & used or candidate.key in used:
            continue
        overhead = 0 if chosen or titled else title_cost
        item = _largest_fitting(tier, candidate, allowance - spent - overhead, count)
        if item is None:
            continue
        chosen.append(item)
        spent += item.tokens + overhead
        used.update(candidate.covers)
        used.add(candidate.key)
    return chosen


def _largest_fitting(
    tier: Tier, candidate: Candidate, room: int, count: Counter
) -> PackedItem | None:
    if room <= 0:
        return None
    for level in levels_from(TIER_LEVEL[tier]):
        line = candidate.text_at(level)
        if not line:
            continue
        tokens = count(line + "\n")
        if tokens <= room:
            return PackedItem(candidate=candidate, tier=tier, level=level, line=line, tokens=tokens)
    return None


def _tier_cost(tier: Tier, items: Sequence[PackedItem], count: Counter) -> int:
    if not items:
        return 0
    return count(TIER_TITLES[tier] + "\n") + count("\n") + sum(item.tokens for item in items)


def _fit(
    header: str,
    header_tokens: int,
    items: list[PackedItem],
    budget: int,
    budgets: dict[Tier, int],
    returned: dict[Tier, int],
    count: Counter,
) -> Packing:
    """Render and count the whole text; tokens at the joins may differ from the sum of the
    parts, so while the exact count is over budget the last item goes (then the header)."""
    text = render(header, items)
    total = count(text)
    trimmed = 0
    while total > budget and (items or header):
        if items:
            items.pop()
            trimmed += 1
        else:
            header, header_tokens = "", 0
        text = render(header, items)
        total = count(text)
    usage = tuple(
        TierUsage(
            tier=tier,
            budget=budgets[tier],
            returned=returned[tier],
            items=sum(1 for item in items if item.tier is tier),
            tokens=count(render("", [item for item in items if item.tier is tier])),
        )
        for tier in Tier
    )
    return Packing(
        text=text,
        token_count=total,
        budget=budget,
        items=tuple(items),
        tiers=usage,
        header_tokens=header_tokens,
        trimmed=trimmed,
    )
