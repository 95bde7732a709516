"""What the attention controller asks about an arrival while an item is in focus.

Tier 0 is an :class:`InterruptRules` (by default the heuristic table of
:mod:`attn.core.heuristics`); tier 1 is an optional :class:`InterruptClassifier`
asked when tier 0 says continue.

Spec: 000 §4 (interrupt decisions), §21 (triage tiers).
"""

from __future__ import annotations

from typing import Any, Protocol

from attn.core.heuristics import Verdict
from attn.models import MailboxItem


class InterruptRules(Protocol):
    """Tier 0: decides about an arrival while another item is in focus, without a model.

    The default is :class:`~attn.core.heuristics.HeuristicRules`, the
    heuristic table. Not the seed's judge: that is :class:`InterruptClassifier`.
    """

    async def decide(self, focus: MailboxItem, new: MailboxItem) -> Verdict:
        """Decide about ``new`` while ``focus`` is being processed.

        Returns:
            The verdict: merge, preempt, defer or continue, with its reason and rule.
        """
        ...


class InterruptClassifier(Protocol):
    """Tier 1 (000 §21), the seed's interrupt judge: a one-word judgement (an LLM's)
    when the tier 0 rules say continue.

    Receives the focus, the new item, the queue and the last decisions; returns
    one of ``continue``, ``preempt``, ``cancel``, ``merge`` or ``defer``. Any
    other answer, or an exception, means continue.
    """

    async def classify(
        self,
        focus: MailboxItem,
        new: MailboxItem,
        queue: list[MailboxItem],
        recent: list[dict[str, Any]],
    ) -> str: ...
