"""Texts of a batch grouped by length, so that short ones are not padded to a long one.

A transformer embeds a batch padded to its longest text, so a long note in a call makes
every short text in it cost as much. A call has a fixed cost too, so splitting everything
is no answer either. The texts are sorted by length and cut where the estimated cost is
least: an exact partition of a sorted list (at most a few dozen texts, microseconds). The
costs and their measurements: docs/design/thoughts.md (Batches by length).
"""

from __future__ import annotations

from collections.abc import Sequence

# Costs in tokens' worth of work, measured on all-MiniLM-L6-v2.
CALL_COST = 100.0  # one call: twice the measured cost, to split only where it pays
TEXT_COST = 4.0  # one more text in a call, besides its padded tokens
CHARS_PER_TOKEN = 4  # a cautious estimate: English runs about 5.5 characters a token
SPECIAL_TOKENS = 2  # the tokens a model adds around every text


def estimated_tokens(text: str, max_tokens: int) -> int:
    return min(max_tokens, SPECIAL_TOKENS + len(text) // CHARS_PER_TOKEN)


def length_groups(lengths: Sequence[int]) -> list[list[int]]:
    """Indexes of ``lengths`` (tokens per text) in groups to embed one call each, shortest
    first: the partition of the sorted texts with the least total cost."""
    order = sorted(range(len(lengths)), key=lambda index: lengths[index])
    sizes = [lengths[index] for index in order]
    # best[i]: the least cost of the first i sorted texts; cut[i]: where its last group starts.
    best = [0.0] + [float("inf")] * len(sizes)
    cut = [0] * (len(sizes) + 1)
    for end in range(1, len(sizes) + 1):
        longest = sizes[end - 1]
        for start in range(end):
            cost = best[start] + CALL_COST + (end - start) * (TEXT_COST + longest)
            if cost < best[end]:
                best[end], cut[end] = cost, start
    groups: list[list[int]] = []
    end = len(sizes)
    while end > 0:
        groups.append(order[cut[end] : end])
        end = cut[end]
    return groups[::-1]
