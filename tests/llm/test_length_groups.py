"""A batch is embedded in groups of about the same length: the same vectors, fewer padded
tokens, and one call for texts that are alike."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.llm.test_coalescing import EncodeCalls
from tests.llm.test_embedders import assert_close
from thoughtgraph.llm import LocalEmbedder
from thoughtgraph.llm.embedders.length_groups import (
    CALL_COST,
    TEXT_COST,
    estimated_tokens,
    length_groups,
)
from thoughtgraph.settings import Settings

SHORT = [f"where does service {i} run now" for i in range(8)]
LONG = "The billing migration covers the database move, the queue cut-over and the drills; " * 10


def cost(groups: list[list[int]], lengths: list[int]) -> float:
    return sum(
        CALL_COST + len(group) * (TEXT_COST + max(lengths[i] for i in group)) for group in groups
    )


def test_texts_alike_go_in_one_call() -> None:
    assert length_groups([12, 14, 11, 13]) == [[2, 0, 3, 1]]
    assert length_groups([]) == []


def test_a_long_text_is_not_padded_onto_short_ones() -> None:
    lengths = [10] * 8 + [250]
    groups = length_groups(lengths)
    assert groups == [list(range(8)), [8]]
    assert cost(groups, lengths) < cost([list(range(9))], lengths)


def test_the_partition_is_the_cheapest_of_every_cut_of_the_sorted_texts() -> None:
    lengths = [5, 40, 41, 120, 7, 250, 44, 6]
    groups = length_groups(lengths)
    assert sorted(i for group in groups for i in group) == list(range(len(lengths)))
    ordered = sorted(range(len(lengths)), key=lambda i: lengths[i])
    for mask in range(1 << (len(lengths) - 1)):  # every way to cut the sorted list
        cuts = [0, *(i + 1 for i in range(len(lengths) - 1) if mask >> i & 1), len(lengths)]
        other = [ordered[a:b] for a, b in itertools.pairwise(cuts)]
        assert cost(groups, lengths) <= cost(other, lengths) + 1e-9


def test_the_estimate_is_capped_at_the_model_window() -> None:
    assert estimated_tokens("word " * 1000, 256) == 256
    assert estimated_tokens("", 256) == 2


@pytest.fixture(scope="module")
def minilm() -> LocalEmbedder:
    return LocalEmbedder.load(Settings())


def test_the_model_embeds_a_mixed_batch_in_groups_with_the_vectors_of_each_alone(
    minilm: LocalEmbedder,
) -> None:
    texts = [SHORT[0], LONG, *SHORT[1:]]
    alone = [minilm.embed_query(text) for text in texts]
    with pytest.MonkeyPatch.context() as patch:
        calls = EncodeCalls(minilm, patch)
        together = minilm.embed_documents(texts)
    assert_close(together, alone, tol=1e-5)
    assert calls.sizes == [8, 1]  # the short ones together, the long one alone


def test_an_empty_batch_asks_nothing_of_the_model(minilm: LocalEmbedder) -> None:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("the model was called")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(minilm.model, "encode", refuse)
        assert minilm.embed_documents([]) == []
