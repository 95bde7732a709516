"""The LLM brain: a tool loop whose interrupts are the mailbox's yield points.

Also tier 1 and tier 2 of triage with a model: :class:`LLMInterruptClassifier`
(the interrupt judge) and :class:`LLMDeliberator` (deliberation as the agent).

Spec: 000 §4, §5, §13.2, §20, §21, §3.5, §24; acceptance LLM-01..41.
"""

from attn.brains.llm.brain import LLMBrain
from attn.brains.llm.classifier import LLMInterruptClassifier
from attn.brains.llm.deliberator import DELIBERATION_TOOLS, LLMDeliberator
from attn.brains.llm.marker import MarkerFilter
from attn.brains.llm.prompt import Identity, context_block, first_message, system_prompt
from attn.brains.llm.scenarios import Scenario, instructions, scenario_for, uses_marker
from attn.brains.llm.settings import LLMSettings

__all__ = [
    "DELIBERATION_TOOLS",
    "Identity",
    "LLMBrain",
    "LLMDeliberator",
    "LLMInterruptClassifier",
    "LLMSettings",
    "MarkerFilter",
    "Scenario",
    "context_block",
    "first_message",
    "instructions",
    "scenario_for",
    "system_prompt",
    "uses_marker",
]
