"""The pure parts around the packer: the session block's idempotent injection (seed 003),
the delta header's categories and bullets (seed 001), signal words, and the tokenizer
working offline."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from thoughtgraph.domain.changes import ChangeEvent, ChangeKind, SubjectKind
from thoughtgraph.domain.context.delta import MAX_BULLETS, delta_header
from thoughtgraph.domain.context.session_block import TAG, count_blocks, inject, version_of, wrap
from thoughtgraph.domain.context.signals import file_terms, words_of

# Text around a block: anything, including things that look like tags.
AROUND = st.lists(
    st.sampled_from([*"ab \n<>/=\"'", f"<{TAG}>", f"</{TAG}>", f"<{TAG}-x>", "<thought"]),
    max_size=30,
).map("".join)
BODY = st.text(max_size=80).filter(lambda body: TAG not in body)


@settings(max_examples=300, deadline=None)
@given(AROUND, AROUND, BODY, BODY, st.integers(0, 3))
def test_injection_leaves_exactly_one_block_and_is_idempotent(
    before: str, after: str, old_body: str, new_body: str, old_blocks: int
) -> None:
    old = wrap(old_body, "ns").text
    text = before + "".join(f"{old}{after}" for _ in range(old_blocks))
    block = wrap(new_body, "ns")
    once = inject(text, block)
    assert count_blocks(once.text) == 1
    assert block.text in once.text
    twice = inject(once.text, block)
    assert twice.text == once.text  # repeated injections change nothing
    assert not twice.changed and twice.replaced == 1
    assert twice.version == version_of(new_body)


def test_injection_keeps_everything_else_where_it_was() -> None:
    first = wrap("old memory", "ns")
    text = f"You are a helpful agent.\n\n{first.text}\nUser prefers short answers.\n"
    second = wrap("new memory", "ns")
    result = inject(text, second)
    assert result.replaced == 1 and result.changed
    assert result.text == (
        f"You are a helpful agent.\n\n{second.text}\nUser prefers short answers.\n"
    )
    added = inject("Some instructions.", second)
    assert added.replaced == 0
    assert added.text == f"Some instructions.\n\n{second.text}\n"
    # A block cut short (its end tag lost) is replaced up to the end of the text.
    cut = f"Intro\n{first.text[:-10]}"
    assert inject(cut, second).text == f"Intro\n{second.text}\n"


def test_the_version_is_a_hash_of_the_content() -> None:
    assert wrap("same", "ns").version == wrap("same", "ns").version
    assert wrap("same", "ns").version != wrap("other", "ns").version
    assert wrap("same", "ns").text.startswith(f'<{TAG} version="{version_of("same")}"')


def event(revision: int, kind: ChangeKind, subject: str) -> ChangeEvent:
    return ChangeEvent(
        id=f"e{revision}",
        namespace="ns",
        revision=revision,
        kind=kind,
        subject_kind=SubjectKind.THOUGHT,
        subject_id=subject,
        source_ids=(),
        actor_id="a",
        actor_name="A",
        at_ms=revision,
    )


def test_delta_header_counts_every_category_and_bullets_at_most_three() -> None:
    events = [
        event(4, ChangeKind.CREATED, "t1"),
        event(5, ChangeKind.REFINED, "t2"),
        event(6, ChangeKind.LINKED, "t2"),  # maintenance bookkeeping: not news
        event(7, ChangeKind.SUPERSEDED, "t2"),
        event(8, ChangeKind.CREATED, "t3"),
        event(9, ChangeKind.SOFT_DELETED, "t3"),
        event(10, ChangeKind.RESTORED, "t3"),
        event(11, ChangeKind.CONSOLIDATED, "t4"),
    ]
    previews = {"t1": "First", "t2": "Second, refined", "t3": "Third", "t4": "Merged"}
    header = delta_header(3, 11, events, previews)
    assert header is not None
    assert dict(header.counts) == {
        "superseded": 1,
        "forgotten": 1,
        "merged": 1,
        "updated": 1,
        "restored": 1,
        "created": 2,
    }
    assert header.bullets == (
        "- ↓superseded: Second, refined",
        "- ⊘forgotten: Third",
        "- ↔merged: Merged",
    )
    assert len(header.bullets) == MAX_BULLETS
    assert header.render().startswith("Memory updates since rev 3: 1 superseded, 1 forgotten")
    only_created = delta_header(3, 5, [*events[:1], event(5, ChangeKind.CREATED, "t9")], {})
    assert only_created is not None
    assert only_created.bullets == ("- +created: thought t9 (+1 more)",)
    assert delta_header(3, 6, [event(6, ChangeKind.LINKED, "t2")], previews) is None
    assert delta_header(11, 11, events, previews) is None


def test_signal_words() -> None:
    assert words_of("src/auth/loginForm.ts") == ["auth", "login", "form"]
    assert words_of("feature/payment-retry") == ["payment", "retry"]
    assert file_terms("src/auth/login.ts") == ["src/auth/login.ts", "login.ts"]


def test_tokens_are_counted_offline_with_litellm() -> None:
    """In a fresh process with every proxy pointing at a closed port (and no network
    namespace at all where `unshare` allows it), litellm counts with its bundled files."""
    script = (
        "from thoughtgraph.features.context.tokens import TokenCounter\n"
        "import tiktoken\n"
        "c = TokenCounter()\n"
        "text = 'Deploys go through GitHub Actions; 東京 émigré 🙂'\n"
        "assert c(text) == len(tiktoken.get_encoding('o200k_base').encode(text)), c(text)\n"
        "a = TokenCounter('claude-sonnet-4-5')\n"
        "assert a(text) > 0\n"
        "print(c.name, '|', a.name)\n"
    )
    closed = "http://127.0.0.1:9"
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "HF_HUB_OFFLINE": "1",
        "HTTP_PROXY": closed,
        "HTTPS_PROXY": closed,
        "http_proxy": closed,
        "https_proxy": closed,
        "NO_PROXY": "",
    }
    command = [sys.executable, "-c", script]
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], check=False).returncode == 0:
        command = [unshare, "-rn", *command]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "gpt-4o (o200k_base) | claude-sonnet-4-5 (anthropic, bundled)" in done.stdout


def test_the_configured_model_chooses_the_tokenizer() -> None:
    from thoughtgraph.features.context.tokens import TokenCounter

    assert TokenCounter().name == "gpt-4o (o200k_base)" and TokenCounter().is_default
    # A provider prefix litellm's counter would not understand is dropped for known models.
    assert TokenCounter("openai/gpt-4o-mini").name == "gpt-4o-mini (o200k_base)"
    assert TokenCounter("gpt-4").name == "gpt-4 (cl100k_base)"
    text = "Deploys go through GitHub Actions; 東京 émigré 🙂"
    assert TokenCounter("gpt-4")(text) != TokenCounter("gpt-4o")(text)
