"""The LLM prompts: one module each, holding the prompt text, its name and version, the
render function and the pydantic model its JSON answer must validate against.

Bump a prompt's ``VERSION`` whenever its text or answer changes: cached answers are keyed
by it.
"""

from thoughtgraph.llm.prompts.base import ChatMessage, Prompt

__all__ = ["ChatMessage", "Prompt"]
