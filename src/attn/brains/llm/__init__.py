"""The LLM brain: a tool loop whose interrupts are the mailbox's yield points.

Spec: 000 §4, §5, §13.2, §20, §21, §3.5, §24; acceptance LLM-01..41.
"""

__all__: list[str] = []
