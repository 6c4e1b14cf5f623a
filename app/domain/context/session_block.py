"""The session-start summary block: one tagged block with a version hash,
replaced in place on every injection, never accumulated.

    <thoughtgraph-memory version="1a2b3c4d5e6f" namespace="team-a">
    ...the assembled context...
    </thoughtgraph-memory>

The version is a hash of the block's content (no timestamp), so the same knowledge gives
the same block, byte for byte, and a changed version says the memory changed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

TAG = "thoughtgraph-memory"
# Any block of ours, attributes and all; a block whose end tag is missing runs to the end
# of the text (it was cut, and what follows the cut cannot be told apart from it).
_BLOCK = re.compile(rf"<{TAG}(?:\s[^>]*)?>.*?(?:</{TAG}>|\Z)\n?", re.DOTALL)


@dataclass(frozen=True)
class SessionBlock:
    text: str
    version: str


@dataclass(frozen=True)
class Injection:
    text: str
    version: str
    replaced: int  # how many blocks were there before (0: the block was added)
    changed: bool  # the text differs from what was given


def version_of(body: str) -> str:
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def wrap(body: str, namespace: str) -> SessionBlock:
    version = version_of(body)
    inner = f"{body}\n" if body else ""
    text = f'<{TAG} version="{version}" namespace="{namespace}">\n{inner}</{TAG}>'
    return SessionBlock(text=text, version=version)


def envelope_of(namespace: str) -> str:
    """The block around an empty body: what the tags cost, for the token budget."""
    return wrap("", namespace).text


def count_blocks(text: str) -> int:
    return len(_BLOCK.findall(text))


def inject(text: str, block: SessionBlock) -> Injection:
    """``text`` with exactly one block: where the first existing one was (the others
    removed), or appended after the text when it had none. Everything else is kept."""
    matches = list(_BLOCK.finditer(text))
    if not matches:
        joined = f"{text.rstrip()}\n\n{block.text}\n" if text.strip() else f"{block.text}\n"
        return Injection(text=joined, version=block.version, replaced=0, changed=True)
    first = matches[0]
    pieces = [text[: first.start()], f"{block.text}\n"]
    position = first.end()
    for match in matches[1:]:
        pieces.append(text[position : match.start()])
        position = match.end()
    pieces.append(text[position:])
    result = "".join(pieces)
    return Injection(
        text=result, version=block.version, replaced=len(matches), changed=result != text
    )
