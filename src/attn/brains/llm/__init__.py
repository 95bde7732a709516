"""The LLM brain: a tool loop whose interrupts are the mailbox's yield points.

Also tier 1 and tier 2 of triage with a model: :class:`LLMInterruptClassifier`
(the interrupt judge) and :class:`LLMDeliberator` (deliberation as the agent).

Spec: 000 §4, §5, §13.2, §20, §21, §3.5, §24; acceptance LLM-01..41.
"""

from attn.brains.llm.classifier import LLMInterruptClassifier
from attn.brains.llm.deliberator import DELIBERATION_TOOLS, LLMDeliberator

__all__ = ["DELIBERATION_TOOLS", "LLMDeliberator", "LLMInterruptClassifier"]
